//! Layer: ftl. Pages for a host program unit: the placement policy chooses the plane, the
//! block manager gives consecutive pages of the stream's write point there, and the reclaimer
//! runs first where a plane (per-plane GC), a line threshold or the whole device (an
//! emergency) asks for it.

use crate::error::{Error, Result};
use crate::ftl::blocks::{RegionId, StreamId};
use crate::ftl::placement::PlacementView;
use crate::ftl::region::NATIVE;
use crate::units::{Lpn, PlaneId, Ppn, SimTime};

use super::Units;

/// Pages for a whole unit on one plane of `stream` (consecutive pages of one block): the
/// placement's plane, after the plane's own GC with per-plane GC. If no plane has room, GC
/// must reclaim first (an emergency: the scheduler did not keep up), one victim at a time,
/// until a plane has room: a reclaimed block may land on a plane that holds only its GC
/// reserve. Once a region has more free blocks than its planes' reserves, some plane has
/// one beyond its reserve, so this ends. A placement stream about to open a line while
/// holding `max_lines` - 1 sealed ones is collected first. Not before `ready`; `now` is the
/// request's arrival. Returns the first page, when the GC the unit waits for (as a write
/// waits for blocking GC) ended, and the region and stream it went to.
#[inline(always)]
pub(super) fn allocate_unit(
    lpns: &[Lpn],
    stream: StreamId,
    region: RegionId,
    (mut ready, now): (SimTime, SimTime),
    u: &mut Units,
) -> Result<(Ppn, SimTime, RegionId, StreamId)> {
    if u.store.placer.max_lines.is_some() {
        ready = ready.max(collect_at_threshold(stream, ready, u)?);
    }
    let reserve = u.store.blocks.gc_reserve(region);
    let view = PlacementView::new(u.device, &u.store.blocks, stream, reserve);
    let (first, gc_end, region) = match u.store.placer.policy.plane(lpns, &view) {
        Some(plane) => allocate_on(plane, lpns, (stream, region), (ready, now), u),
        None => return allocate_reclaiming(lpns, stream, region, (ready, now), u),
    }?;
    Ok((first, gc_end, region, stream))
}

/// The per-group line threshold (`PlacementLayout::max_lines`): a placement stream whose next
/// page opens a line while it holds `max_lines` - 1 sealed lines is collected first. Returns
/// when that collection ends (`ready` if none ran).
#[cold]
fn collect_at_threshold(stream: StreamId, ready: SimTime, u: &mut Units) -> Result<SimTime> {
    let Some(max) = u.store.placer.max_lines else { return Ok(ready) };
    let blocks = &u.store.blocks;
    if blocks.has_open_line(stream)
        || !u.store.placer.is_own_stream(stream)
        || (blocks.sealed_lines(stream).len() as u32) + 1 < max
    {
        return Ok(ready);
    }
    match u.reclaimer.collect_lines(u.store, stream, None, ready, u.device)? {
        Some(end) => {
            let gc = &mut u.reclaimer.stats;
            gc.threshold_collections += 1;
            gc.foreground_invocations += 1;
            gc.foreground_wait_ns += end.saturating_sub(ready);
            Ok(end.max(ready))
        }
        None => Ok(ready),
    }
}

/// The unit's pages on `plane`, which the placement chose, after that plane's own GC with
/// per-plane GC.
#[inline]
fn allocate_on(
    plane: PlaneId,
    lpns: &[Lpn],
    (stream, region): (StreamId, RegionId),
    (ready, now): (SimTime, SimTime),
    u: &mut Units,
) -> Result<(Ppn, SimTime, RegionId)> {
    let mut gc_end = ready;
    // The plane is its own GC domain: its free blocks are its domain's.
    if !u.reclaimer.region_wide()
        && region == NATIVE
        && u.store.blocks.region_free_blocks_in(region, plane) < u.reclaimer.trigger_free_blocks
    {
        let domain = u.store.blocks.domain_of(region, plane);
        gc_end = u.reclaimer.plane_gc(u.store, region, domain, ready, u.device)?;
    }
    let first = u
        .store
        .allocate_unit(stream, region, plane, lpns.len() as u32, now)
        .ok_or_else(|| Error::invariant("plane with room gave no page"))?;
    Ok((first, gc_end, region))
}

/// `allocate_unit` when no plane has room for the unit: overflow to the native region, or
/// reclaim (see `allocate_unit`) and ask the placement again.
#[cold]
fn allocate_reclaiming(
    lpns: &[Lpn],
    stream: StreamId,
    region: RegionId,
    (ready, now): (SimTime, SimTime),
    u: &mut Units,
) -> Result<(Ppn, SimTime, RegionId, StreamId)> {
    let planes = u.store.blocks.geometry().planes();
    let reserve = u.store.blocks.gc_reserve(region);
    let mut reclaimed = false;
    loop {
        if region != NATIVE {
            // A region emptied by migration (the SLC cache) with no room for the unit (on its
            // plane, with static placement; anywhere, if migration fell behind): the unit goes
            // to the native region, as a drive writes past a full SLC cache.
            u.store.stats.region_overflow_units += 1;
            let native = u.store.placer.host_stream(NATIVE, lpns[0]);
            return allocate_unit(lpns, native, NATIVE, (ready, now), u);
        }
        let blocks = &u.store.blocks;
        let wanted = u.store.placer.policy.wanted_plane(lpns, blocks.geometry());
        let domain = blocks.domain_of(region, wanted.unwrap_or(PlaneId(0)));
        // Free blocks beyond the reserve: device-wide, some plane then has room; on a plane
        // that is its own GC domain, that plane has.
        let beyond_reserve = if blocks.is_line_region(region) {
            blocks.free_lines(region) > reserve
        } else if blocks.domain_is_plane(region) {
            blocks.domain_free_blocks(region, domain) > reserve
        } else {
            blocks.region_free_blocks(region) > planes * reserve
        };
        if reclaimed && beyond_reserve {
            return Err(Error::DeviceFull { reason: "no plane has a free page after GC reclaimed blocks".into() });
        }
        if !reclaimed {
            u.reclaimer.stats.emergency_reclaims += 1;
            reclaimed = true;
        }
        let target = blocks.domain_free_blocks(region, domain) + 1;
        // The unit's program is not made to wait for this reclaim: where it lands on the
        // reclaimed plane, that plane's array unit runs the erase first anyway.
        u.reclaimer.reclaim_until(u.store, region, domain, target, ready, u.device)?;
        let view = PlacementView::new(u.device, &u.store.blocks, stream, reserve);
        if let Some(plane) = u.store.placer.policy.plane(lpns, &view) {
            let (first, gc_end, region) = allocate_on(plane, lpns, (stream, region), (ready, now), u)?;
            return Ok((first, gc_end, region, stream));
        }
    }
}

/// The warm-up's inline GC: with region-wide GC, reclaim when free blocks fall below the
/// trigger (no scheduler runs in the warm-up).
pub(super) fn reclaim_for_warm_write(u: &mut Units) -> Result<()> {
    let trigger = u.reclaimer.trigger_free_blocks;
    if u.reclaimer.region_wide() && u.store.blocks.region_free_blocks(NATIVE) < trigger {
        let domain = u.reclaimer.native_domain;
        u.reclaimer.reclaim_triggered(u.store, NATIVE, domain, trigger + 1, 0, u.device)?;
    }
    Ok(())
}
