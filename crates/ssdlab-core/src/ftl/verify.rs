//! Layer: ftl. Verify mode: a shadow of what the host wrote, checked on every read and by a
//! final scan. Each physical page's out-of-band area records the write version it holds (the
//! owning LPN is already in the block manager's owner table); each LPN records its latest
//! version. No policy may lose data, resurrect stale data or leave two owners for one LPN.

use crate::error::{Error, Result};
use crate::ftl::blocks::{BlockManager, BlockState};
use crate::ftl::mapping::Mapping;
use crate::units::{BlockId, Lpn, Ppn};

const TRIMMED: u32 = u32::MAX;

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

    pub fn on_write(&mut self, lpn: Lpn, ppn: Ppn) {
        let v = &mut self.latest[lpn.index()];
        *v = if *v == TRIMMED { 1 } else { *v + 1 };
        self.oob_version[ppn.index()] = *v;
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

    /// A host read of `lpn` found `ppn` (or nothing).
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
                if owner != Some(lpn) {
                    return Err(Error::invariant(format!(
                        "verify: LPN {} maps to PPN {} whose out-of-band owner is {:?}",
                        lpn.0,
                        p.0,
                        owner.map(|l| l.0)
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

    /// Final scan: every written LPN maps to a page it owns with its latest version; every
    /// valid page is owned by an LPN that maps back to it; per-block valid counts match the
    /// page table; free + valid + invalid pages = total.
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
                if let Some(lpn) = blocks.owner(ppn) {
                    if mapping.peek(lpn) != Some(ppn) {
                        return Err(Error::invariant(format!(
                            "verify: PPN {} claims LPN {} but the table maps it to {:?}",
                            ppn.0,
                            lpn.0,
                            mapping.peek(lpn).map(|p| p.0)
                        )));
                    }
                }
            }
        }
        let host_free: u32 = (0..g.planes())
            .map(|p| blocks.free_blocks_in(crate::units::PlaneId(p)).saturating_sub(blocks.gc_reserve()))
            .sum();
        if host_free != blocks.host_free_blocks() {
            return Err(Error::invariant(format!(
                "verify: host-usable free blocks counted {} but the pools hold {host_free}",
                blocks.host_free_blocks()
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
