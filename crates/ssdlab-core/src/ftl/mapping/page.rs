//! Layer: ftl. Page-level mapping with the whole table in DRAM (the "ideal" FTL of the
//! LearnedFTL paper and the page-level FTL of the RLGC paper): one u32 per logical page, no
//! translation I/O.

use crate::error::Result;
use crate::ftl::blocks::{Owner, INVALID};
use crate::ftl::mapping::{BuildCtx, MapCtx, Mapping, Relocation, Translation};
use crate::units::{Lpn, Ppn};

pub struct PageMapping {
    table: Vec<u32>,
}

pub fn build(ctx: &BuildCtx) -> Result<Box<dyn Mapping>> {
    Ok(Box::new(PageMapping::new(ctx.logical_pages)))
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
    fn lookup(&mut self, lpns: &[Lpn], out: &mut Vec<Translation>, ctx: &mut MapCtx) -> Result<()> {
        out.extend(lpns.iter().map(|l| Translation { ppn: entry(self.table[l.index()]), start: ctx.now }));
        Ok(())
    }
    fn update(&mut self, lpn: Lpn, ppn: Ppn, ctx: &mut MapCtx) -> Result<(Option<Ppn>, u64)> {
        let old = std::mem::replace(&mut self.table[lpn.index()], ppn.0);
        Ok((entry(old), ctx.now))
    }
    fn premap(&mut self, lpn: Lpn, ppn: Ppn) {
        self.table[lpn.index()] = ppn.0;
    }
    fn relocated(&mut self, moves: &[Relocation], _ctx: &mut MapCtx) -> Result<()> {
        for m in moves {
            if let Owner::Data(lpn) = m.owner {
                debug_assert_eq!(self.table[lpn.index()], m.from.0, "relocating a page the table does not point at");
                self.table[lpn.index()] = m.to.0;
            }
        }
        Ok(())
    }
    fn unmap(&mut self, lpn: Lpn, _ctx: &mut MapCtx) -> Result<Option<Ppn>> {
        Ok(entry(std::mem::replace(&mut self.table[lpn.index()], INVALID)))
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
    fn dram_bytes(&self) -> u64 {
        self.table.len() as u64 * 4
    }
    fn corrupt(&mut self, lpn: Lpn, ppn: Ppn) {
        self.table[lpn.index()] = ppn.0;
    }
}
