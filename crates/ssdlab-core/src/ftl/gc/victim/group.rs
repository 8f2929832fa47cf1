//! Layer: ftl. Group GC's victim (LearnedFTL: Wang et al., HPCA 2024, Sec. 3.3.1): in a
//! line-mode region (`ftl.placement = "group"`) the victim is a write stream, a GTD entry
//! group, and GC collects its sealed lines together, sorted by LPN (`ftl/reclaim/lines.rs`); the
//! stream chosen is "the GTD entry group with the most invalid data pages", counted over its
//! sealed lines. The translation pages' stream competes on the same terms. Outside line mode (an
//! SLC cache's migration victims) it is greedy: the block with the fewest valid pages.
//!
//! Deviations: only streams with a line GC can write back now are candidates
//! (`LineCensus::collectable`: the paper assumes free blocks for the write-back); ties go to the
//! lower stream id. The
//! paper does not say how translation pages are reclaimed (the authors' code gives them a line
//! pointer of their own, collected like a group); here their stream is one more candidate.
//!
//! Minimum-gain guard (`gc.group.min_invalid_fraction`, off by default; ours, not the paper's):
//! when the chosen group's sealed lines hold less than that share of invalid pages, the victim is
//! the single collectable line with the fewest valid pages instead (FEMU's greedy line), written
//! back into its own group. Group GC of many streams that each hold nearly valid lines (64
//! unaligned sequential writers, docs/experiments/learnedftl.md) otherwise rewrites whole groups
//! to gain a few pages.

use schemars::JsonSchema;
use serde::Deserialize;

use super::greedy::GreedyVictim;
use crate::ftl::gc::{LineCensus, LineVictim, LineVictimView, VictimPolicy, VictimView};
use crate::registry::{PolicySettings, Settings};
use crate::units::BlockId;

/// `[gc.group]`: LearnedFTL's group GC victim (`gc.victim = "group"`), its settings.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct GroupVictimSettings {
    /// A minimum-gain guard (an ssdlab option, not the paper's: issue #33's stress case of 64
    /// unaligned sequential streams): when the group with the most invalid pages has less than
    /// this share of its sealed lines' pages invalid, GC collects the single sealed line with the
    /// fewest valid pages instead (any group's, written back into its own group). 0 (default):
    /// off, the paper's group GC always. Between 0 and 1.
    pub min_invalid_fraction: f64,
}

impl PolicySettings for GroupVictimSettings {
    fn problems(&self) -> Vec<(&'static str, String)> {
        let guard = self.min_invalid_fraction;
        if (0.0..=1.0).contains(&guard) {
            Vec::new()
        } else {
            vec![("min_invalid_fraction", format!("must be between 0 and 1 (a share of a group's pages), not {guard}"))]
        }
    }
}

/// Where the settings are written (`[gc.group]`).
pub const SETTINGS: Settings = Settings::of::<GroupVictimSettings>("gc.group");

#[derive(Debug, Clone, Copy, Default)]
pub struct GroupVictim {
    /// The guard: below this invalid share of its sealed lines a group is not collected whole.
    pub min_invalid_fraction: f64,
}

impl GroupVictim {
    pub fn new(settings: &GroupVictimSettings) -> GroupVictim {
        GroupVictim { min_invalid_fraction: settings.min_invalid_fraction }
    }
}

impl VictimPolicy for GroupVictim {
    fn select(&mut self, view: &mut VictimView, min_invalid_fraction: f64) -> Option<BlockId> {
        GreedyVictim.select(view, min_invalid_fraction)
    }
    fn select_lines(&mut self, view: &LineVictimView) -> Option<LineVictim> {
        let invalid = |lines: &[LineCensus]| lines.iter().map(|l| l.invalid_pages() as u64).sum::<u64>();
        let (stream, lines) = view
            .streams()
            .filter(|(_, lines)| lines.iter().any(|l| l.collectable && l.invalid_pages() > 0))
            .min_by_key(|&(stream, lines)| (std::cmp::Reverse(invalid(lines)), stream))?;
        if self.min_invalid_fraction > 0.0 {
            let capacity: u64 = lines.iter().map(|l| l.capacity_pages as u64).sum();
            if (invalid(lines) as f64) < self.min_invalid_fraction * capacity as f64 {
                // The best single line instead (ties: the one listed first).
                let line = view
                    .lines()
                    .iter()
                    .filter(|l| l.collectable && l.invalid_pages() > 0)
                    .min_by_key(|l| l.valid_pages)?;
                return Some(LineVictim::Line(line.index));
            }
        }
        Some(LineVictim::Stream(stream))
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
        let pick = |l: &[LineCensus]| GroupVictim::default().select_lines(&LineVictimView { lines: l, now: 0 });
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

    #[test]
    fn the_guard_takes_the_best_line_when_the_best_group_gains_too_little() {
        let guarded = |min: f64, l: &[LineCensus]| {
            GroupVictim { min_invalid_fraction: min }.select_lines(&LineVictimView { lines: l, now: 0 })
        };
        // Stream 3: 2 lines, 30 of 200 pages invalid (15 %); stream 5: 1 line, 20 of 100 (20 %)
        // but fewer invalid pages, so group GC takes stream 3.
        let l = [line(3, 0, 90, true), line(3, 1, 80, true), line(5, 2, 80, true)];
        assert_eq!(guarded(0.0, &l), Some(LineVictim::Stream(StreamId(3))), "off: the paper's group GC");
        assert_eq!(guarded(0.15, &l), Some(LineVictim::Stream(StreamId(3))), "exactly at the guard passes");
        // Above 15 %: the line with the fewest valid pages (line 1 and 2 tie at 80: the first).
        assert_eq!(guarded(0.16, &l), Some(LineVictim::Line(1)));
        // A line GC cannot write back now is no fallback.
        let l = [line(3, 0, 90, true), line(3, 1, 80, false), line(5, 2, 85, true)];
        assert_eq!(guarded(0.5, &l), Some(LineVictim::Line(2)));
    }
}
