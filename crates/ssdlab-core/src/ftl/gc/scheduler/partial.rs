//! Layer: ftl. Pieces shared by the partial-GC schedulers (Lazy-RTGC, RLGC and its variants):
//! the partial-task size that fits in one erase time, and intensive GC.
//!
//! * `copies_per_erase`: Lazy-RTGC (Zhang et al., TODAES 2015, via Kang et al. 2017 Sec. 5.2
//!   and implementation notes A4) splits a victim into partial tasks of at most alpha valid-page
//!   copies, alpha chosen so one task takes no longer than the block erase that ends the victim:
//!   `alpha = floor(tBERS / (tR + tPROG))`. We take the slowest page type's tR and tPROG (a copy
//!   may hit any type) and leave the channel transfer out, as the formula does. Presets:
//!   kang-3d-128gb 4000 / (49 + 600) = 6.16 -> 6; kang-3d-512gb 3500 / (60 + 700) = 4.6 -> 4;
//!   tiny 3000 / (90 + 500) = 5.08 -> 5. At least 1.
//! * `IntensiveMode`: when the host is down to its last free block, Lazy-RTGC ignores its
//!   normal step and copies a fixed, larger number of pages after every write until more than
//!   one block is free again; RLGC (Sec. 5.2) keeps it but stops only above T_IGC = 3. Entry is
//!   `free <= enter`, exit `free > stop`. The count is `GcObservation::host_free_blocks` (free
//!   blocks beyond each plane's GC reserve): in our FTL a plane's last free block is kept for
//!   GC relocations, so the paper's "one free block left" for the host is one block beyond the
//!   reserves, not one free block on the device (by then host writes already have nowhere to go).

use serde::Serialize;

use crate::error::{ConfigProblem, Error, Result};
use crate::nand::TimingConfig;

/// Intensive GC (Lazy-RTGC, adopted by RLGC Sec. 5.2): when the host is down to its last free
/// blocks, a fixed number of copies follows every write, whatever the policy says. Counted in
/// free blocks the host may still open (each plane's GC reserve excluded), see
/// `GcObservation::host_free_blocks`. Built from the `intensive_*` keys of a policy's table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntensiveConfig {
    /// Copies per step in intensive mode.
    pub copies: u32,
    /// Enter intensive mode when host-usable free blocks are at most this.
    pub enter_free_blocks: u32,
    /// Leave it when host-usable free blocks exceed this.
    pub stop_free_blocks: u32,
}

/// RLGC Sec. 5.2: intensive GC does "5 or 7" copies; ours: 7 (see lazy_rtgc.rs).
pub const DEFAULT_INTENSIVE_COPIES: u32 = 7;

/// Most copies a partial step may ask for (the RL schedulers' Q-tables have one column per
/// action).
pub const MAX_ACTION_COPIES: u32 = 1024;

/// The checks the partial-GC schedulers' tables share, keys in full: a step's copies, intensive
/// mode's settings.
pub(super) struct Checks<'a> {
    pub table: &'a str,
    pub problems: Vec<ConfigProblem>,
}

impl<'a> Checks<'a> {
    pub fn new(table: &'a str) -> Self {
        Checks { table, problems: Vec::new() }
    }

    /// A problem at `key` (within the table) unless `ok`.
    pub fn check(&mut self, ok: bool, key: &str, reason: impl FnOnce() -> String) {
        if !ok {
            self.problems.push(ConfigProblem { key: format!("{}.{key}", self.table), reason: reason() });
        }
    }

    /// A number of copies per step, if set: between 1 and `MAX_ACTION_COPIES`.
    pub fn copies(&mut self, key: &str, copies: Option<u32>) {
        if let Some(v) = copies {
            self.check((1..=MAX_ACTION_COPIES).contains(&v), key, || {
                format!("must be between 1 and {MAX_ACTION_COPIES}, got {v}")
            });
        }
    }

    /// The `intensive_*` keys.
    pub fn intensive(&mut self, i: &IntensiveConfig) {
        let table = self.table.to_string();
        self.check(i.copies >= 1, "intensive_copies", || "must be at least 1".into());
        self.check(i.stop_free_blocks >= i.enter_free_blocks, "intensive_stop_free_blocks", || {
            format!("must be at least {table}.intensive_enter_free_blocks ({})", i.enter_free_blocks)
        });
    }

    /// The problems of a check written as a `Result` (the `rl` module's validators).
    pub fn absorb(&mut self, result: Result<()>) {
        match result {
            Ok(()) => {}
            Err(Error::Config { problems, .. }) => self.problems.extend(problems),
            Err(e) => self.problems.push(ConfigProblem { key: self.table.to_string(), reason: e.to_string() }),
        }
    }
}

/// Lazy-RTGC's alpha: the most valid-page copies (tR + tPROG each) that fit in one erase time.
pub fn copies_per_erase(timing: &TimingConfig) -> u32 {
    let read = timing.read_ns.iter().copied().max().unwrap_or(0);
    let program = timing.program_ns.iter().copied().max().unwrap_or(0);
    let copy = (read + program).max(1);
    ((timing.erase_ns / copy) as u32).max(1)
}

/// Time of one valid-page copy as the partial-GC papers count it: tR + tPROG (slowest types).
pub fn copy_ns(timing: &TimingConfig) -> u64 {
    let read = timing.read_ns.iter().copied().max().unwrap_or(0);
    let program = timing.program_ns.iter().copied().max().unwrap_or(0);
    (read + program).max(1)
}

/// Intensive GC's hysteresis and counters.
#[derive(Debug, Clone)]
pub struct IntensiveMode {
    copies: u32,
    enter_free_blocks: u32,
    stop_free_blocks: u32,
    active: bool,
    entries: u64,
    steps: u64,
}

/// Intensive-mode figures for a report.
#[derive(Debug, Clone, Serialize)]
pub struct IntensiveStats {
    pub copies: u32,
    pub enter_free_blocks: u32,
    pub stop_free_blocks: u32,
    /// Times intensive mode was entered.
    pub entries: u64,
    /// Intensive steps issued.
    pub steps: u64,
    pub active: bool,
}

impl IntensiveMode {
    pub fn new(cfg: &IntensiveConfig) -> Self {
        IntensiveMode {
            copies: cfg.copies,
            enter_free_blocks: cfg.enter_free_blocks,
            stop_free_blocks: cfg.stop_free_blocks,
            active: false,
            entries: 0,
            steps: 0,
        }
    }

    /// Update the mode from the host-usable free blocks; returns whether it is active.
    pub fn update(&mut self, host_free_blocks: u32) -> bool {
        if !self.active && host_free_blocks <= self.enter_free_blocks {
            self.active = true;
            self.entries += 1;
        } else if self.active && host_free_blocks > self.stop_free_blocks {
            self.active = false;
        }
        self.active
    }

    pub fn is_active(&self) -> bool {
        self.active
    }

    pub fn copies(&self) -> u32 {
        self.copies
    }

    /// Count one intensive step and return its copies.
    pub fn step(&mut self) -> u32 {
        self.steps += 1;
        self.copies
    }

    pub fn stats(&self) -> IntensiveStats {
        IntensiveStats {
            copies: self.copies,
            enter_free_blocks: self.enter_free_blocks,
            stop_free_blocks: self.stop_free_blocks,
            entries: self.entries,
            steps: self.steps,
            active: self.active,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::presets;

    fn timing_of(preset: &str) -> TimingConfig {
        let cfg = crate::catalog::load(Some(preset), &[], &[]).unwrap();
        cfg.device.timing
    }

    #[test]
    fn alpha_of_the_presets() {
        assert!(presets::names().contains(&"kang-3d-128gb"));
        assert_eq!(copies_per_erase(&timing_of("kang-3d-128gb")), 6);
        assert_eq!(copies_per_erase(&timing_of("kang-3d-512gb")), 4);
        assert_eq!(copies_per_erase(&timing_of("tiny")), 5);
        assert_eq!(copy_ns(&timing_of("kang-3d-128gb")), 649_000);
        let mut t = timing_of("tiny");
        t.erase_ns = 1;
        assert_eq!(copies_per_erase(&t), 1, "never below one copy");
    }

    #[test]
    fn lazy_rtgc_hysteresis_enter_at_one_leave_above_one() {
        let mut m = IntensiveMode::new(&IntensiveConfig { copies: 7, enter_free_blocks: 1, stop_free_blocks: 1 });
        assert!(!m.update(3));
        assert!(!m.update(2));
        assert!(m.update(1), "enter with one free block left");
        assert!(m.update(0));
        assert!(m.update(1));
        assert!(!m.update(2), "leave above one");
        assert!(m.update(1));
        assert_eq!(m.stats().entries, 2);
    }

    #[test]
    fn rlgc_hysteresis_stops_above_t_igc() {
        let mut m = IntensiveMode::new(&IntensiveConfig { copies: 7, enter_free_blocks: 1, stop_free_blocks: 3 });
        assert!(!m.update(2));
        assert!(m.update(1));
        assert!(m.update(2));
        assert!(m.update(3), "stays at T_IGC");
        assert!(!m.update(4), "stops above T_IGC");
        assert!(!m.update(2), "does not re-enter before one block is left");
        assert_eq!(m.step(), 7);
        assert_eq!((m.stats().entries, m.stats().steps), (1, 1));
    }
}
