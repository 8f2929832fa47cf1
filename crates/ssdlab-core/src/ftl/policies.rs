//! Layer: ftl. A configuration's policies resolved: each seam's id looked up in its registry
//! once, into the entry that builds the policy, declares its capabilities and names it in the
//! report. The checks (`check_config`) and the FTL's construction (`Ftl::build`) take these
//! entries; no later code looks an id up again or compares id strings.

use crate::config::Config;
use crate::error::{ConfigProblem, Error, Result};
use crate::registry::{lookup, Entry};

use super::cache::registry::{BuildEviction, EvictionCaps};
use super::gc::scheduler::{BuildScheduler, SchedulerCaps};
use super::gc::victim::{BuildVictim, VictimCaps};
use super::mapping::registry::BuildMapping;
use super::placement::registry::{BuildPlacement, PlacementCaps};
use super::region::registry::{BuildRegions, RegionCaps};
use super::{cache, gc, mapping, placement, region};

/// The entry of every FTL seam's chosen policy.
#[derive(Clone, Copy)]
pub struct Policies {
    pub mapping: &'static Entry<BuildMapping>,
    pub placement: &'static Entry<BuildPlacement, PlacementCaps>,
    pub eviction: &'static Entry<BuildEviction, EvictionCaps>,
    pub slc: &'static Entry<BuildRegions, RegionCaps>,
    pub scheduler: &'static Entry<BuildScheduler, SchedulerCaps>,
    pub victim: &'static Entry<BuildVictim, VictimCaps>,
}

/// Each seam's entry as far as its id is registered (None where not: `unknown` says so), for
/// checks that report every problem of a config together.
pub(crate) struct Chosen {
    pub mapping: Option<&'static Entry<BuildMapping>>,
    pub placement: Option<&'static Entry<BuildPlacement, PlacementCaps>>,
    pub eviction: Option<&'static Entry<BuildEviction, EvictionCaps>>,
    pub slc: Option<&'static Entry<BuildRegions, RegionCaps>>,
    pub scheduler: Option<&'static Entry<BuildScheduler, SchedulerCaps>>,
    pub victim: Option<&'static Entry<BuildVictim, VictimCaps>>,
    /// An id not in its key's registry, naming the known ids: one problem per such key.
    pub unknown: Vec<ConfigProblem>,
}

impl Chosen {
    /// Every policy id of `cfg` looked up in its registry, once each.
    pub fn of(cfg: &Config) -> Chosen {
        let mut unknown = Vec::new();
        let mapping = keep(lookup(mapping::registry::REGISTRY, "ftl.mapping", &cfg.ftl.mapping), &mut unknown);
        let placement = keep(lookup(placement::registry::REGISTRY, "ftl.placement", &cfg.ftl.placement), &mut unknown);
        let eviction = keep(lookup(cache::registry::REGISTRY, "cache.eviction", &cfg.cache.eviction), &mut unknown);
        let slc = keep(lookup(region::registry::REGISTRY, "slc.policy", &cfg.slc.policy), &mut unknown);
        let scheduler = keep(lookup(gc::scheduler::REGISTRY, "gc.scheduler", &cfg.gc.scheduler), &mut unknown);
        let victim = keep(lookup(gc::victim::REGISTRY, "gc.victim", &cfg.gc.victim), &mut unknown);
        Chosen { mapping, placement, eviction, slc, scheduler, victim, unknown }
    }

    /// Every seam's entry, or the config error listing the unregistered ids.
    pub fn complete(self) -> Result<Policies> {
        match self {
            Chosen {
                mapping: Some(mapping),
                placement: Some(placement),
                eviction: Some(eviction),
                slc: Some(slc),
                scheduler: Some(scheduler),
                victim: Some(victim),
                ..
            } => Ok(Policies { mapping, placement, eviction, slc, scheduler, victim }),
            Chosen { unknown, .. } => Err(Error::Config { path: None, problems: unknown }),
        }
    }
}

/// The entry found, or None with its problem noted in `unknown`.
fn keep<E>(found: std::result::Result<E, ConfigProblem>, unknown: &mut Vec<ConfigProblem>) -> Option<E> {
    found.map_err(|problem| unknown.push(problem)).ok()
}

impl Policies {
    /// The entries of `cfg`'s policies, or the config error listing its unregistered ids.
    pub fn resolve(cfg: &Config) -> Result<Policies> {
        Chosen::of(cfg).complete()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_every_seam_and_lists_every_unknown_id() {
        let load = |sets: &[&str]| {
            let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
            crate::catalog::load(Some("tiny"), &[], &sets).unwrap()
        };
        let cfg = load(&[]);
        let policies = Policies::resolve(&cfg).unwrap();
        assert_eq!(policies.scheduler.id, cfg.gc.scheduler);
        assert_eq!(policies.mapping.id, cfg.ftl.mapping);
        let wrong = load(&["gc.scheduler=nope", "gc.victim=neither"]);
        let Err(Error::Config { problems, .. }) = Policies::resolve(&wrong) else { panic!("unknown ids resolved") };
        let keys: Vec<&str> = problems.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(keys, ["gc.scheduler", "gc.victim"]);
    }
}
