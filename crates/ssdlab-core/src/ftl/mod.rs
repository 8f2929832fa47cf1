//! Layer: ftl. The FTL, a shell over units that own their state: the host path (reads,
//! writes, trims, the write buffer), the reclaimer (GC and migration: the GC scheduler and
//! victim policy), the region manager (the region policy: the SLC cache), and the store they
//! share (the block manager, the mapping, the placement and its streams, verify mode's shadow
//! and the figures). Each unit borrows the store and the device for one operation; the shell
//! dispatches requests, timers and idle time to them. It issues every flash operation to the
//! device (timing), each tagged with its `Source`, and never names a policy: every policy is
//! built from its registry (`registry.rs`) by the id the config gives.
//!
//! Files: `mod.rs` (the shell), `build.rs` (building from a config), `check.rs`
//! (`check_config`), `store.rs`, `host/`, `reclaim/`, `regions.rs` (the units), `blocks/` (the
//! block manager), `verify.rs`; the policy seams in `mapping/`, `placement/`, `cache/`,
//! `region/`, `gc/`.

pub mod blocks;
mod build;
pub mod cache;
mod check;
pub mod gc;
mod host;
pub(crate) mod lru;
pub mod mapping;
pub mod placement;
mod policies;
mod reclaim;
pub mod region;
mod regions;
mod request;
mod stats;
mod store;
pub mod verify;

use crate::decision::{DecisionKind, DecisionPoint, DecisionSpace};
use crate::device::Device;
use crate::error::Result;
use crate::units::{Lpn, Ppn, SimTime};
use crate::workload::IoOp;
use blocks::BlockManager;
use cache::WriteBuffer;
use gc::{GcScheduler, GcStats};
use host::{HostPath, Units};
use mapping::Mapping;
use reclaim::Reclaimer;
use region::RegionPolicy;
use regions::RegionManager;
use store::Store;
use verify::Verifier;

pub use check::check_config;
pub use policies::Policies;
pub use request::{PageRequest, RequestInfo};
pub use stats::FtlStats;

/// Free blocks per plane of the native region that host writes leave for GC's relocations.
const GC_RESERVE_BLOCKS: u32 = 1;

#[derive(Clone)]
pub struct Ftl {
    store: Store,
    host: HostPath,
    reclaimer: Reclaimer,
    regions: RegionManager,
    /// The registry entries its policies were built from: their ids for the report.
    policies: Policies,
    last_arrival: Option<SimTime>,
    /// The latest completion time of the host requests served so far (0 before the first): a
    /// request arriving before it found the device still busy with an earlier one.
    busy_until: SimTime,
}

impl Ftl {
    pub fn blocks(&self) -> &BlockManager {
        &self.store.blocks
    }
    pub fn mapping(&self) -> &dyn Mapping {
        self.store.mapping.as_ref()
    }
    pub fn stats(&self) -> FtlStats {
        FtlStats { skipped_pages: self.store.blocks.skipped_pages(), ..self.store.stats.clone() }
    }
    /// Host pages written since the warm-up (`FtlStats::host_write_pages`, without a copy of
    /// the figures).
    pub fn host_write_pages(&self) -> u64 {
        self.store.stats.host_write_pages
    }
    pub fn gc_stats(&self) -> &GcStats {
        &self.reclaimer.stats
    }
    pub fn scheduler(&self) -> &dyn GcScheduler {
        self.reclaimer.scheduler.as_ref()
    }
    /// The registry entries of its policies (`Entry::id`: what the report names them).
    pub fn policies(&self) -> &Policies {
        &self.policies
    }
    pub fn victim_id(&self) -> &'static str {
        self.policies.victim.id
    }
    pub fn placement_id(&self) -> &'static str {
        self.policies.placement.id
    }
    pub fn region_policy(&self) -> &dyn RegionPolicy {
        self.regions.policy.as_ref()
    }
    /// What the FTL counted per region (native first) since the warm-up.
    pub fn region_stats(&self) -> &[region::RegionStats] {
        &self.store.region_stats
    }
    pub fn buffer(&self) -> Option<&WriteBuffer> {
        self.host.buffer.as_ref()
    }
    pub fn verify_reads_checked(&self) -> Option<u64> {
        self.store.verify.as_ref().map(|v| v.reads_checked)
    }
    /// Verify mode's shadow of what the host wrote (None when verify is off), so tests can hold
    /// it against a model of their own.
    pub fn verifier(&self) -> Option<&Verifier> {
        self.store.verify.as_ref()
    }

    /// Forget the figures gathered so far (end of warm-up); the drive's contents stay.
    pub fn reset_stats(&mut self) {
        self.store.stats = FtlStats::for_geometry(self.store.blocks.geometry());
        self.reclaimer.stats = GcStats::default();
        self.store.region_stats.fill(region::RegionStats::default());
        self.last_arrival = None;
        self.busy_until = 0;
        self.store.mapping.reset_stats();
        if let Some(b) = &mut self.host.buffer {
            b.stats = cache::CacheStats { capacity_pages: b.capacity_pages(), ..Default::default() };
        }
    }

    /// The host path's view of the other units, borrowed for one operation.
    #[inline]
    fn split<'a>(&'a mut self, device: &'a mut Device) -> (&'a mut HostPath, Units<'a>) {
        let units =
            Units { store: &mut self.store, reclaimer: &mut self.reclaimer, regions: &mut self.regions, device };
        (&mut self.host, units)
    }

    /// Serve one host request at `now`. Returns its completion time.
    pub fn serve(&mut self, request: &PageRequest, now: SimTime, device: &mut Device) -> Result<SimTime> {
        let PageRequest { seq, op, lpns, .. } = *request;
        if op == IoOp::Write {
            self.regions.before_request(&self.store, self.reclaimer.target_free_blocks, now);
        }
        let interval = self.last_arrival.map(|t| now - t).unwrap_or(u64::MAX);
        self.last_arrival = Some(now);
        let idle_before = now.saturating_sub(self.busy_until);
        let mut ready = now;
        let req = RequestInfo { seq, op, pages: lpns.len() as u32 };
        if self.reclaimer.region_wide() {
            ready = self.reclaimer.before_serve(&mut self.store, req, now, (interval, idle_before), device)?;
        }
        if op == IoOp::Write {
            ready = ready.max(self.regions.before_write(&mut self.store, &mut self.reclaimer, now, device)?);
        }
        let (host, mut units) = self.split(device);
        let done = match op {
            IoOp::Read => host.read_request(request, ready, now, &mut units),
            IoOp::Write => {
                let done = host.write_request(request, ready, now, &mut units);
                host.arm_flush_timer(now);
                done
            }
            IoOp::Trim => host.trim_request(request, ready, &mut units),
        }?;
        self.busy_until = self.busy_until.max(done);
        Ok(done)
    }

    /// The earliest time a policy asked to be woken at (`Ftl::on_timer`), if any. Today the
    /// write buffer's timed write-back (`cache.flush_interval_ns`) is the one timer.
    #[inline]
    pub fn next_timer(&self) -> Option<SimTime> {
        self.host.flush_timer
    }

    /// A timer fired at `now` (the engine calls this at `next_timer`, host activity or not):
    /// the write buffer writes back every dirty page, as background work.
    pub fn on_timer(&mut self, now: SimTime, device: &mut Device) -> Result<()> {
        let (host, mut units) = self.split(device);
        host.on_timer(now, &mut units)
    }

    /// The workload ended and every request completed (the end-of-trace event): data still in
    /// the write buffer goes to flash, so none is lost before the final figures and the verify
    /// scan. Returns when that work ends.
    pub fn on_end_of_trace(&mut self, now: SimTime, device: &mut Device) -> Result<SimTime> {
        let (host, mut units) = self.split(device);
        host.flush_timer = None;
        let end = host.flush_buffer(now, &mut units)?;
        self.regions.policy.finish()?;
        Ok(end)
    }

    /// After request `req` completed at `now` with `response_ns`: background GC if asked.
    pub fn after_served(
        &mut self,
        req: RequestInfo,
        response_ns: u64,
        now: SimTime,
        device: &mut Device,
    ) -> Result<()> {
        if !self.reclaimer.region_wide() {
            return Ok(());
        }
        self.reclaimer.after_serve(&mut self.store, req, response_ns, now, device)
    }

    /// Idle time: the host has had nothing outstanding for `idle.gap_ns` (or the work asked for
    /// last time ended and it still has none). Runs the idle-time work the config asks for, at
    /// `now` with no request waiting: the write buffer's flush (`cache.flush_on_idle`), then one
    /// GC step (`gc.background = "idle"`, as the scheduler decides). Returns when that work ends
    /// (the engine calls again then if the host is still idle), or None if there was none.
    pub fn on_idle(&mut self, now: SimTime, device: &mut Device) -> Result<Option<SimTime>> {
        // Nothing waits for idle-time work: with `transaction_scheduler.policy = "priority"` it yields to
        // any request that arrives.
        device.set_background(true);
        let result = self.idle_work(now, device);
        device.set_background(false);
        result
    }

    fn idle_work(&mut self, now: SimTime, device: &mut Device) -> Result<Option<SimTime>> {
        let mut end = None;
        if self.host.has_idle_flush() {
            let (host, mut units) = self.split(device);
            end = Some(host.flush_idle(now, &mut units)?);
        }
        if let Some(t) = self.reclaimer.idle_step(&mut self.store, now, device)? {
            end = Some(end.unwrap_or(now).max(t));
        }
        Ok(end)
    }

    /// Whether any idle-time work is configured (else the engine only counts idle periods).
    pub fn works_when_idle(&self) -> bool {
        self.host.settings.flush_on_idle || self.reclaimer.works_when_idle()
    }

    /// Warm-up write: no timing, no scheduler, no buffer (`host::write::warm_write`).
    pub fn warm_write(&mut self, lpn: Lpn, device: &mut Device) -> Result<()> {
        let (_, mut units) = self.split(device);
        host::warm_write(lpn, &mut units)
    }

    /// Verify mode's end-of-run scan (no-op when verify is off). Flush the buffer first.
    pub fn final_verify(&mut self) -> Result<()> {
        match &mut self.store.verify {
            Some(v) => v.final_scan(self.store.mapping.as_ref(), &self.store.blocks),
            None => Ok(()),
        }
    }

    /// Hint that `lpn` is about to be accessed (see `Mapping::touch`).
    pub fn touch(&self, lpn: Lpn) {
        self.store.mapping.touch(lpn);
    }

    /// Hint that the page now holding `lpn` is about to be read or invalidated.
    pub fn touch_owner_of(&self, lpn: Lpn) {
        if let Some(ppn) = self.store.mapping.peek(lpn) {
            self.store.blocks.touch_owner(ppn);
        }
    }

    /// Test hook: point `lpn` at `ppn` behind the FTL's back (the verify tests' lost page).
    /// What an outside agent of `kind` observes and may do, or why the chosen policy has no
    /// such decision point (naming the policies of that seam that have one).
    pub fn decision_space(&mut self, kind: DecisionKind) -> Result<DecisionSpace> {
        use crate::registry::ids_where;
        let (id, with) = match kind {
            DecisionKind::GcScheduler => {
                (self.policies.scheduler.id, ids_where(gc::scheduler::REGISTRY, |c| c.decides))
            }
            DecisionKind::CacheEviction => (
                self.host
                    .buffer
                    .as_ref()
                    .map_or("none (no write buffer: cache.capacity = 0)", |_| self.policies.eviction.id),
                ids_where(cache::registry::REGISTRY, |c| c.decides),
            ),
            DecisionKind::SlcPolicy => (self.policies.slc.id, ids_where(region::registry::REGISTRY, |c| c.decides)),
        };
        match self.decision_point(kind) {
            Some(point) => Ok(point.space()),
            None => Err(crate::error::Error::config(
                kind.key(),
                format!("`{id}` has no decision point an outside agent can drive (those that have one: {with})"),
            )),
        }
    }

    /// The decision point of the policy at seam `kind` (`crate::decision`), if it has one.
    pub fn decision_point(&mut self, kind: DecisionKind) -> Option<&mut dyn DecisionPoint> {
        match kind {
            DecisionKind::GcScheduler => self.reclaimer.scheduler.decision_point(),
            DecisionKind::CacheEviction => self.host.buffer.as_mut().and_then(|b| b.policy.decision_point()),
            DecisionKind::SlcPolicy => self.regions.policy.decision_point(),
        }
    }

    /// Draw every policy's random stream afresh from `seed`, as `Simulation::new` draws them:
    /// the measured run of a warm-up that had its own seed (`warmup.seed`).
    pub(crate) fn reseed_policies(&mut self, seed: u64) {
        use crate::rng::{rng_for, RngStream};
        self.reclaimer.scheduler.reseed(rng_for(seed, RngStream::Policy));
        if let Some(b) = &mut self.host.buffer {
            b.policy.reseed(rng_for(seed, RngStream::Eviction));
        }
        self.regions.policy.reseed(rng_for(seed, RngStream::Regions));
    }

    /// The top of an event, with outside agents attached for `kinds`: their policies leave
    /// pending what must be decided before it (the engine then stops, and calls again after
    /// the action). `write_arrival`: the event is a host write's arrival at `now`.
    pub fn before_event(&mut self, kinds: &[DecisionKind], write_arrival: bool, now: SimTime) {
        for &kind in kinds {
            match kind {
                DecisionKind::GcScheduler => {}
                DecisionKind::CacheEviction => {
                    if let Some(b) = &mut self.host.buffer {
                        b.before_event();
                    }
                }
                DecisionKind::SlcPolicy if write_arrival => {
                    self.regions.before_request(&self.store, self.reclaimer.target_free_blocks, now);
                }
                DecisionKind::SlcPolicy => {}
            }
        }
    }

    #[doc(hidden)]
    pub fn corrupt_mapping(&mut self, lpn: Lpn, ppn: Ppn) {
        self.store.mapping.corrupt(lpn, ppn);
    }
}

#[cfg(test)]
mod allocation_tests;
