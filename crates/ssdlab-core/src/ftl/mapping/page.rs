//! Layer: ftl. Page-level mapping with the whole table in DRAM (the "ideal" FTL of the
//! LearnedFTL paper and the page-level FTL of the RLGC paper): one u32 per logical page, no
//! translation I/O.

use crate::error::Result;
use crate::ftl::mapping::table::Table;
use crate::ftl::mapping::{BuildCtx, MapCtx, Mapping, Relocation, Translation};
use crate::units::{Lpn, Ppn};

#[derive(Clone)]
pub struct PageMapping {
    table: Table,
}

pub fn build(ctx: &BuildCtx) -> Result<Box<dyn Mapping>> {
    Ok(Box::new(PageMapping::new(ctx.logical_pages)))
}

impl PageMapping {
    pub fn new(logical_pages: u32) -> PageMapping {
        PageMapping { table: Table::new(logical_pages) }
    }
}

impl Mapping for PageMapping {
    fn lookup(&mut self, lpns: &[Lpn], out: &mut Vec<Translation>, ctx: &mut MapCtx) -> Result<()> {
        out.extend(lpns.iter().map(|&l| Translation { ppn: self.table.get(l), start: ctx.now }));
        Ok(())
    }
    fn update(&mut self, lpn: Lpn, ppn: Ppn, ctx: &mut MapCtx) -> Result<(Option<Ppn>, u64)> {
        Ok((self.table.set(lpn, ppn), ctx.now))
    }
    fn premap(&mut self, lpn: Lpn, ppn: Ppn) {
        self.table.set(lpn, ppn);
    }
    fn relocated(&mut self, moves: &[Relocation], _ctx: &mut MapCtx) -> Result<()> {
        self.table.relocated(moves);
        Ok(())
    }
    fn unmap(&mut self, lpn: Lpn, _ctx: &mut MapCtx) -> Result<Option<Ppn>> {
        Ok(self.table.clear(lpn))
    }
    fn peek(&self, lpn: Lpn) -> Option<Ppn> {
        self.table.get(lpn)
    }
    fn touch(&self, lpn: Lpn) {
        self.table.touch(lpn);
    }
    fn logical_pages(&self) -> u32 {
        self.table.logical_pages()
    }
    fn dram_bytes(&self) -> u64 {
        self.table.dram_bytes()
    }
    fn corrupt(&mut self, lpn: Lpn, ppn: Ppn) {
        self.table.set(lpn, ppn);
    }
}
