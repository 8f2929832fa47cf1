//! Layer: ftl. Page-level mapping with the whole table in DRAM (the "ideal" FTL of the
//! LearnedFTL paper and the page-level FTL of the RLGC paper): one u32 per logical page, no
//! translation I/O.

use crate::ftl::blocks::INVALID;
use crate::ftl::mapping::{MapCtx, Mapping};
use crate::units::{Lpn, Ppn, SimTime};

pub struct PageMapping {
    table: Vec<u32>,
}

impl PageMapping {
    pub fn new(logical_pages: u32) -> PageMapping {
        PageMapping { table: vec![INVALID; logical_pages as usize] }
    }
}

fn entry(v: u32) -> Option<Ppn> {
    (v != INVALID).then_some(Ppn(v))
}

impl Mapping for PageMapping {
    fn id(&self) -> &'static str {
        "page"
    }
    fn lookup(&mut self, lpn: Lpn, ctx: &mut MapCtx) -> (Option<Ppn>, SimTime) {
        (entry(self.table[lpn.index()]), ctx.now)
    }
    fn update(&mut self, lpn: Lpn, ppn: Ppn, ctx: &mut MapCtx) -> (Option<Ppn>, SimTime) {
        let old = std::mem::replace(&mut self.table[lpn.index()], ppn.0);
        (entry(old), ctx.now)
    }
    fn relocate(&mut self, lpn: Lpn, from: Ppn, to: Ppn) {
        debug_assert_eq!(self.table[lpn.index()], from.0, "relocating a page the table does not point at");
        self.table[lpn.index()] = to.0;
    }
    fn unmap(&mut self, lpn: Lpn) -> Option<Ppn> {
        entry(std::mem::replace(&mut self.table[lpn.index()], INVALID))
    }
    fn peek(&self, lpn: Lpn) -> Option<Ppn> {
        entry(self.table[lpn.index()])
    }
    fn touch(&self, lpn: Lpn) {
        if let Some(v) = self.table.get(lpn.index()) {
            crate::units::prefetch(v);
        }
    }
    fn logical_pages(&self) -> u32 {
        self.table.len() as u32
    }
    fn corrupt(&mut self, lpn: Lpn, ppn: Ppn) {
        self.table[lpn.index()] = ppn.0;
    }
}
