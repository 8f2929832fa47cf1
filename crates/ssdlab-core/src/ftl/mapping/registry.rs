//! Layer: ftl. The mapping scheme registry: `REGISTRY` names every policy of `ftl.mapping`, one line
//! each, with its constructor and capabilities (`ftl/registry.rs`). The policy files import the
//! seam's trait from `mod.rs`, never this file.

use super::{dftl, learned, page, tpftl, BuildCtx, Mapping};
use crate::error::Result;
use crate::registry::Entry;

pub type BuildMapping = fn(&BuildCtx) -> Result<Box<dyn Mapping>>;

/// `ftl.mapping`: every mapping scheme, one line each.
pub const REGISTRY: &[Entry<BuildMapping>] = &[
    Entry {
        id: "page",
        summary: "the whole table in DRAM (the ideal FTL)",
        build: page::build,
        caps: (),
        settings: None,
    },
    Entry {
        id: "dftl",
        summary: "DFTL: translation pages on flash, an LRU cached mapping table",
        build: dftl::build,
        caps: (),
        settings: Some(dftl::SETTINGS),
    },
    Entry {
        id: "tpftl",
        summary: "TPFTL: translation-page nodes of compact entries, clean-first replacement, prefetching",
        build: tpftl::build,
        caps: (),
        settings: Some(tpftl::SETTINGS),
    },
    Entry {
        id: "learned",
        summary: "LearnedFTL: TPFTL's cache and a learned model per translation page (bitmap-filtered)",
        build: learned::build,
        caps: (),
        settings: Some(learned::SETTINGS),
    },
];
