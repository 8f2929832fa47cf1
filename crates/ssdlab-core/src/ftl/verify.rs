//! Layer: ftl. Verify mode: a shadow of what the host wrote, checked on every read and by a
//! final scan. Each physical page's out-of-band area records the write version it holds (the
//! owner is already in the block manager's owner table); each LPN records its latest version; a
//! page in the write buffer carries its version there. No policy may lose data, resurrect stale
//! data or leave two owners for one LPN, through GC, migration, the buffer or the mapping.

use crate::error::{Error, Result};
use crate::ftl::blocks::{BlockManager, BlockState, Owner, RegionId};
use crate::ftl::mapping::Mapping;
use crate::units::{BlockId, Lpn, Ppn};

const TRIMMED: u32 = u32::MAX;

/// The version of data that predates the run (a page first read, never written, in
/// `map_on_read` mode). Host writes count from 1 whatever came before.
pub const PREEXISTING: u32 = u32::MAX - 1;

#[derive(Clone)]
pub struct Verifier {
    /// Latest version written per LPN (0 = never written, TRIMMED = discarded).
    latest: Vec<u32>,
    /// Version held by each physical page.
    oob_version: Vec<u32>,
    pub reads_checked: u64,
}

impl Verifier {
    pub fn new(logical_pages: u32, physical_pages: u64) -> Verifier {
        Verifier {
            latest: vec![0; logical_pages as usize],
            oob_version: vec![0; physical_pages as usize],
            reads_checked: 0,
        }
    }

    /// A host write of `lpn`: its new version (kept by the buffer or programmed at once).
    pub fn on_host_write(&mut self, lpn: Lpn) -> u32 {
        let v = &mut self.latest[lpn.index()];
        *v = if *v == TRIMMED || *v == PREEXISTING { 1 } else { *v + 1 };
        *v
    }

    /// The latest version of `lpn` (what a read must return).
    pub fn latest(&self, lpn: Lpn) -> u32 {
        self.latest[lpn.index()]
    }

    /// Version `version` was programmed into `ppn`.
    pub fn on_program(&mut self, ppn: Ppn, version: u32) {
        self.oob_version[ppn.index()] = version;
    }

    /// Data that predates the run was placed at `ppn` for `lpn`.
    pub fn on_premap(&mut self, lpn: Lpn, ppn: Ppn) {
        self.latest[lpn.index()] = PREEXISTING;
        self.oob_version[ppn.index()] = PREEXISTING;
    }

    /// The latest version written to `lpn`: 1 for its first write (or its first since a trim),
    /// counting up with each write; None if it was never written, was trimmed since, or lies
    /// outside the logical space.
    pub fn version(&self, lpn: Lpn) -> Option<u32> {
        match self.latest.get(lpn.index()).copied() {
            None | Some(0) | Some(TRIMMED) => None,
            v => v,
        }
    }

    pub fn on_copy(&mut self, from: Ppn, to: Ppn) {
        self.oob_version[to.index()] = self.oob_version[from.index()];
    }

    pub fn on_trim(&mut self, lpn: Lpn) {
        self.latest[lpn.index()] = TRIMMED;
    }

    /// A host read of `lpn` served from the write buffer, which held `version`.
    pub fn check_buffer_read(&mut self, lpn: Lpn, version: u32) -> Result<()> {
        self.reads_checked += 1;
        let latest = self.latest[lpn.index()];
        if version != latest {
            return Err(Error::invariant(format!(
                "verify: LPN {} read version {version} from the write buffer but latest written is {latest}",
                lpn.0
            )));
        }
        Ok(())
    }

    /// A host read of `lpn` found `ppn` (or nothing) on flash.
    pub fn check_read(&mut self, lpn: Lpn, ppn: Option<Ppn>, blocks: &BlockManager) -> Result<()> {
        self.reads_checked += 1;
        let latest = self.latest[lpn.index()];
        match ppn {
            None if latest == 0 || latest == TRIMMED => Ok(()),
            None => Err(Error::invariant(format!("verify: LPN {} (version {latest}) is unmapped: data lost", lpn.0))),
            Some(_) if latest == 0 || latest == TRIMMED => Err(Error::invariant(format!(
                "verify: LPN {} was never written or was trimmed, yet maps to data",
                lpn.0
            ))),
            Some(p) => {
                let owner = blocks.owner(p);
                let held = self.oob_version[p.index()];
                if owner != Some(Owner::Data(lpn)) {
                    return Err(Error::invariant(format!(
                        "verify: LPN {} maps to PPN {} whose out-of-band owner is {owner:?}",
                        lpn.0, p.0
                    )));
                }
                if held != latest {
                    return Err(Error::invariant(format!(
                        "verify: LPN {} read version {held} but latest written is {latest} (stale data)",
                        lpn.0
                    )));
                }
                Ok(())
            }
        }
    }

    /// Final scan (the write buffer must be flushed first): every written LPN maps to a page
    /// it owns with its latest version; every valid page is owned by an LPN (or a translation
    /// page) that maps back to it; per-block valid counts match the page table; each region's
    /// free-block counts match its pools; free + valid + invalid pages = total.
    pub fn final_scan(&mut self, mapping: &dyn Mapping, blocks: &BlockManager) -> Result<()> {
        for i in 0..self.latest.len() {
            let lpn = Lpn(i as u32);
            let ppn = mapping.peek(lpn);
            self.check_read(lpn, ppn, blocks)?;
            self.reads_checked -= 1;
        }
        let g = blocks.geometry().clone();
        for b in 0..blocks.blocks() {
            let b = BlockId(b);
            let counted = blocks.recount_valid(b);
            if counted != blocks.valid(b) {
                return Err(Error::invariant(format!(
                    "verify: block {} counts {} valid pages but its pages hold {counted}",
                    b.0,
                    blocks.valid(b)
                )));
            }
            if blocks.state(b) == BlockState::Free && counted != 0 {
                return Err(Error::invariant(format!("verify: free block {} holds valid data", b.0)));
            }
            for p in 0..blocks.written(b) {
                let ppn = g.ppn(b, p);
                let points_back = match blocks.owner(ppn) {
                    None => true,
                    Some(Owner::Data(lpn)) => mapping.peek(lpn) == Some(ppn),
                    Some(Owner::Map(tpage)) => mapping.translation_page(tpage) == Some(ppn),
                };
                if !points_back {
                    return Err(Error::invariant(format!(
                        "verify: PPN {} claims {:?} but the mapping does not point back at it",
                        ppn.0,
                        blocks.owner(ppn)
                    )));
                }
            }
        }
        let mut free_total = 0;
        for r in 0..blocks.regions() {
            let r = RegionId(r as u8);
            let (free, host_free) = blocks.recount_region_free(r);
            if (free, host_free) != (blocks.region_free_blocks(r), blocks.region_host_free_blocks(r)) {
                return Err(Error::invariant(format!(
                    "verify: region {} counts {} free ({} host-usable) blocks but its pools hold {free} ({host_free})",
                    r.0,
                    blocks.region_free_blocks(r),
                    blocks.region_host_free_blocks(r)
                )));
            }
            free_total += free;
        }
        if free_total != blocks.free_blocks() {
            return Err(Error::invariant(format!(
                "verify: {} free blocks counted but the regions' pools hold {free_total}",
                blocks.free_blocks()
            )));
        }
        let (free, valid, invalid) = blocks.page_census();
        if free + valid + invalid != g.pages() {
            return Err(Error::invariant(format!(
                "verify: free {free} + valid {valid} + invalid {invalid} != total {}",
                g.pages()
            )));
        }
        Ok(())
    }
}
