//! Layer: ftl. A host request as the FTL sees it, and what its units are told of one.

use crate::units::Lpn;
use crate::workload::IoOp;

/// One host request as the FTL sees it: pages already folded into the logical space.
#[derive(Debug, Clone, Copy)]
pub struct PageRequest<'a> {
    pub seq: u64,
    pub op: IoOp,
    pub lpns: &'a [Lpn],
    /// The first / last page is only partly covered: a write then reads the old page first
    /// (read-modify-write, if it holds data); a trim keeps the page.
    pub partial_head: bool,
    pub partial_tail: bool,
    /// The request's size in bytes (region routing by size).
    pub size_bytes: u64,
}

/// Which host request a GC decision concerns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestInfo {
    pub seq: u64,
    pub op: IoOp,
    pub pages: u32,
}
