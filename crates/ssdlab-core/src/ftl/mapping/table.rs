//! Layer: ftl. The exact logical-to-physical table: one `u32` per logical page. The page mapping
//! keeps it in DRAM; the demand schemes keep it as the content of their translation pages (the
//! simulator's truth, whatever their cache holds). One type, so every scheme reads, writes,
//! trims and relocates entries the same way.

use crate::ftl::blocks::{Owner, INVALID};
use crate::ftl::mapping::Relocation;
use crate::units::{Lpn, Ppn};

#[derive(Clone)]
pub struct Table {
    ppn: Vec<u32>,
}

impl Table {
    pub fn new(logical_pages: u32) -> Table {
        Table { ppn: vec![INVALID; logical_pages as usize] }
    }

    /// Where `lpn` is (None: unmapped).
    #[inline]
    pub fn get(&self, lpn: Lpn) -> Option<Ppn> {
        let v = self.ppn[lpn.index()];
        (v != INVALID).then_some(Ppn(v))
    }

    /// `lpn` now lives at `ppn`; returns where it was.
    #[inline]
    pub fn set(&mut self, lpn: Lpn, ppn: Ppn) -> Option<Ppn> {
        let old = std::mem::replace(&mut self.ppn[lpn.index()], ppn.0);
        (old != INVALID).then_some(Ppn(old))
    }

    /// Forget `lpn` (trim); returns where it was.
    pub fn clear(&mut self, lpn: Lpn) -> Option<Ppn> {
        let old = std::mem::replace(&mut self.ppn[lpn.index()], INVALID);
        (old != INVALID).then_some(Ppn(old))
    }

    /// GC or migration moved these pages: follow the data pages.
    pub fn relocated(&mut self, moves: &[Relocation]) {
        for m in moves {
            if let Owner::Data(lpn) = m.owner {
                debug_assert_eq!(self.ppn[lpn.index()], m.from.0, "relocating a page the table does not point at");
                self.ppn[lpn.index()] = m.to.0;
            }
        }
    }

    /// Logical pages the table covers.
    pub fn logical_pages(&self) -> u32 {
        self.ppn.len() as u32
    }

    /// Hint: bring `lpn`'s entry into cache.
    #[inline]
    pub fn touch(&self, lpn: Lpn) {
        if let Some(v) = self.ppn.get(lpn.index()) {
            crate::units::prefetch(v);
        }
    }

    /// DRAM the whole table takes on a device that keeps it there: 4 bytes per logical page.
    pub fn dram_bytes(&self) -> u64 {
        self.ppn.len() as u64 * 4
    }
}
