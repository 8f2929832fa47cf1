//! Layer: ftl. The FTL's host-side figures (pages, not requests).

use serde::Serialize;

use crate::ftl::mapping::TranslationIo;

/// Host-side FTL figures (pages, not requests).
#[derive(Debug, Clone, Default, Serialize)]
pub struct FtlStats {
    pub host_read_pages: u64,
    pub host_write_pages: u64,
    /// Pages a trim touched, whole or in part.
    pub host_trim_pages: u64,
    /// Pages a trim covered only in part, and so left alone: any data they hold stays mapped
    /// (the untrimmed bytes still hold data, and the mapping forgets whole pages only).
    /// Counted in `host_trim_pages` too.
    pub partial_trim_pages_kept: u64,
    /// Units for a region emptied by migration (the SLC cache) that found no room there and
    /// went to the native region instead.
    pub region_overflow_units: u64,
    /// Pages left unwritten so that one-shot wordline units start on a wordline (the rest of
    /// a wordline, or of a block, that an earlier shorter unit began).
    pub skipped_pages: u64,
    /// Reads of LPNs that hold no data (trimmed, or never written with
    /// `ftl.unwritten_reads = "free"`), served without a flash read.
    pub unmapped_read_pages: u64,
    /// Reads of pages the workload never wrote (nor trimmed) before: data that predates the
    /// trace. With `map_on_read` each gets a physical page on its first read (`premapped_pages`).
    pub unwritten_read_pages: u64,
    pub premapped_pages: u64,
    /// Partial-page writes of pages holding data elsewhere: the old page is read first
    /// (read-modify-write). Buffered pages merge in DRAM instead.
    pub rmw_reads: u64,
    /// Host page reads served by the flash, per page type (LSB first), native-mode blocks only
    /// (reads of SLC-mode blocks are not in it): the FSP paper's LSB read ratio.
    pub host_reads_by_page_type: Vec<u64>,
    /// Flash pages programmed with host data, directly or from the write buffer.
    pub host_programs: u64,
    pub gc_programs: u64,
    pub gc_reads: u64,
    pub migration_programs: u64,
    pub migration_reads: u64,
    /// Victims of a region migrated into another and erased.
    pub migrated_victims: u64,
    /// Translation pages read and written by the mapping.
    pub translation: TranslationIo,
}

impl FtlStats {
    /// Zero figures for a device of `geometry`'s cell type.
    pub fn for_geometry(geometry: &crate::nand::Geometry) -> Self {
        FtlStats { host_reads_by_page_type: vec![0; geometry.cell.bits_per_cell() as usize], ..FtlStats::default() }
    }
}
