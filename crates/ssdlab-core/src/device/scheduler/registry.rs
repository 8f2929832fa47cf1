//! Layer: device. The transaction schedulers' registry (`transaction_scheduler.policy`): one
//! line per scheduler of this folder, with its constructor and capabilities (`crate::registry`);
//! the trait they implement is in `mod.rs`.

use super::BuildScheduler;
use crate::config::{Config, SchedulerConfig};
use crate::error::ConfigProblem;
use crate::registry::{self, Entry};

/// What the engine asks of a transaction scheduler without naming it (`Entry::caps`).
#[derive(Debug, Clone, Copy)]
pub struct TransactionCaps {
    /// Background work (GC steps after a request or in idle time, idle buffer flushes) waits
    /// behind host work, so a host read can suspend a background program or erase
    /// (`transaction_scheduler.suspend_ns`).
    pub host_first: bool,
}

/// `transaction_scheduler.policy`: every transaction scheduler, one line each.
pub const REGISTRY: &[Entry<BuildScheduler, TransactionCaps>] = &[
    Entry {
        id: "fcfs",
        summary: "every operation booked when issued, at the earliest time its unit and channel are idle \
                  (work-conserving: background GC copies issued before a host read are served before it; \
                  the RLGC and Lazy-RTGC papers' simulators)",
        build: |_| Ok(Box::new(super::fcfs::Fcfs)),
        caps: TransactionCaps { host_first: false },
        settings: None,
    },
    Entry {
        id: "priority",
        summary: "host work first (MQSim's priority scheduler): work nobody waits for (GC steps after a \
                  request or in idle time, idle buffer flushes) waits in per-unit queues and starts only when its \
                  unit has no host, mapping or foreground-GC operation; one arriving later waits only for the one \
                  in progress (or, with suspend_ns, suspends it)",
        build: |c| Ok(Box::new(super::priority::Priority::new(c.cfg, c.units, c.blocks))),
        caps: TransactionCaps { host_first: true },
        settings: None,
    },
];

/// The transaction scheduler's problems in `cfg`: an unregistered id, or read suspension
/// (`transaction_scheduler.suspend_ns`) with a scheduler that does not put host work first.
pub fn check_config(cfg: &Config) -> Vec<ConfigProblem> {
    problems(&cfg.transaction_scheduler)
}

/// `check_config` on the `[transaction_scheduler]` table alone (what `Device::set_scheduler` has).
pub(crate) fn problems(s: &SchedulerConfig) -> Vec<ConfigProblem> {
    let mut problems: Vec<ConfigProblem> =
        registry::check(REGISTRY, "transaction_scheduler.policy", &s.policy).into_iter().collect();
    if s.suspend_ns.is_some() && registry::caps(REGISTRY, &s.policy).is_some_and(|c| !c.host_first) {
        problems.push(ConfigProblem {
            key: "transaction_scheduler.suspend_ns".into(),
            reason: format!(
                "suspension serves reads before background work: it needs a scheduler that puts host work first \
                 (transaction_scheduler.policy: {})",
                registry::ids_where(REGISTRY, |c: &TransactionCaps| c.host_first)
            ),
        });
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(sets: &[&str]) -> Vec<String> {
        crate::config::test_support::problems(check_config, sets)
    }

    #[test]
    fn ids_and_suspension_are_checked_against_the_registry() {
        assert!(problems(&[]).is_empty());
        assert!(
            problems(&["transaction_scheduler.policy=priority", "transaction_scheduler.suspend_ns=20000"]).is_empty()
        );
        let p = problems(&["transaction_scheduler.policy=lifo"]);
        assert!(
            p.len() == 1
                && p[0].starts_with(
                    "transaction_scheduler.policy: unknown policy \"lifo\"; expected one of fcfs, priority"
                ),
            "{p:?}"
        );
        let p = problems(&["transaction_scheduler.suspend_ns=20000"]);
        assert!(
            p.len() == 1
                && p[0].starts_with("transaction_scheduler.suspend_ns: suspension")
                && p[0].ends_with("(transaction_scheduler.policy: priority)"),
            "{p:?}"
        );
    }
}
