//! Layer: ftl. Group GC's victim (LearnedFTL: Wang et al., HPCA 2024, Sec. 3.3.1): in a
//! line-mode region (`ftl.placement = "group"`) the victim is a write stream, a GTD entry
//! group, and GC collects its sealed lines together, sorted by LPN (`ftl/reclaim.rs`); the
//! stream chosen is "the GTD entry group with the most invalid data pages", counted over its
//! sealed lines. The translation pages' stream competes on the same terms. Outside line mode (an
//! SLC cache's migration victims) it is greedy: the block with the fewest valid pages.
//!
//! Deviations: only streams with a line GC can write back now are candidates
//! (`LineCensus::collectable`: the paper assumes free blocks for the write-back); ties go to the
//! lower stream id. The
//! paper does not say how translation pages are reclaimed (the authors' code gives them a line
//! pointer of their own, collected like a group); here their stream is one more candidate.

use crate::ftl::gc::victim::GreedyVictim;
use crate::ftl::gc::{LineCensus, LineVictim, LineVictimView, VictimPolicy, VictimView};
use crate::units::BlockId;

pub struct GroupVictim;

impl VictimPolicy for GroupVictim {
    fn id(&self) -> &'static str {
        "group"
    }
    fn select(&mut self, view: &mut VictimView, min_invalid_fraction: f64) -> Option<BlockId> {
        GreedyVictim.select(view, min_invalid_fraction)
    }
    fn select_lines(&mut self, view: &LineVictimView) -> Option<LineVictim> {
        let invalid = |lines: &[LineCensus]| lines.iter().map(|l| l.invalid_pages() as u64).sum::<u64>();
        let (stream, _) = view
            .streams()
            .filter(|(_, lines)| lines.iter().any(|l| l.collectable && l.invalid_pages() > 0))
            .min_by_key(|&(stream, lines)| (std::cmp::Reverse(invalid(lines)), stream))?;
        Some(LineVictim::Stream(stream))
    }
    fn selects_lines(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftl::blocks::StreamId;

    fn line(stream: u16, index: u32, valid: u32, collectable: bool) -> LineCensus {
        LineCensus { index, stream: StreamId(stream), valid_pages: valid, capacity_pages: 100, collectable }
    }

    #[test]
    fn the_stream_with_the_most_invalid_pages_that_gc_can_write_back() {
        let pick = |l: &[LineCensus]| GroupVictim.select_lines(&LineVictimView { lines: l, now: 0 });
        // Stream 3: 2 lines, 120 invalid; stream 4: 150 invalid but no line collectable now;
        // stream 5: 1 line, 90 invalid.
        let l = [
            line(3, 0, 40, true),
            line(3, 1, 40, false),
            line(4, 2, 50, false),
            line(4, 3, 0, false),
            line(5, 4, 10, true),
        ];
        assert_eq!(pick(&l), Some(LineVictim::Stream(StreamId(3))));
        // Equal invalid pages: the lower stream.
        let l = [line(2, 0, 60, true), line(2, 1, 80, true), line(6, 2, 40, true)];
        assert_eq!(pick(&l), Some(LineVictim::Stream(StreamId(2))));
        // Nothing invalid: no victim.
        assert_eq!(pick(&[line(1, 0, 100, true)]), None);
        assert_eq!(pick(&[]), None);
    }
}
