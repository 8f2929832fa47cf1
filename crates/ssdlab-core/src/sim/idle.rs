//! Layer: sim. The idle clock: since when no request has been outstanding, whether that period
//! was counted yet (it counts once the gap `idle.gap_ns` passes with no arrival), and the
//! idle-time figures. The next idle-time event itself is the event queue's (`Event::Idle`).

use crate::config::ValidatedConfig;
use crate::stats::report::IdleSummary;
use crate::units::SimTime;

pub(super) struct IdleClock {
    /// Since when nothing has been outstanding (None while a request is, and before the first
    /// completes).
    since: Option<SimTime>,
    /// Whether this idle period was counted yet.
    counted: bool,
    pub summary: IdleSummary,
}

impl IdleClock {
    pub fn new(cfg: &ValidatedConfig) -> IdleClock {
        IdleClock {
            since: None,
            counted: false,
            summary: IdleSummary { gap_ns: cfg.idle.gap_ns, ..IdleSummary::default() },
        }
    }

    /// The host issues a request at `now`: an idle period under way ends (its time counted if
    /// the period was).
    #[inline(always)]
    pub fn host_active(&mut self, now: SimTime) {
        if let Some(since) = self.since.take() {
            if self.counted {
                self.summary.total_ns += now - since;
            }
        }
        self.counted = false;
    }

    /// The last outstanding request completed at `at`: idle from then. Returns when the gap
    /// closes (the first idle-time event, if no arrival comes first).
    #[inline(always)]
    pub fn host_quiet(&mut self, at: SimTime) -> SimTime {
        self.since = Some(at);
        at + self.summary.gap_ns
    }

    /// An idle-time event: the period counts (once).
    #[inline]
    pub fn woke(&mut self) {
        if !self.counted {
            self.summary.periods += 1;
            self.counted = true;
        }
    }

    /// The FTL did a step of idle work.
    #[inline]
    pub fn worked(&mut self) {
        self.summary.work_steps += 1;
    }
}
