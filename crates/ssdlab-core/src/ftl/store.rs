//! Layer: ftl. What every unit of the FTL reads and changes: the block manager, the mapping,
//! where pages go (`Placer`: the placement policy and the write streams), verify mode's shadow
//! of the host's data, and the FTL's figures. The units (the host path, the reclaimer, the
//! region manager) own their own state and borrow this, with the device, for one operation.

use std::ops::Range;

use crate::device::Device;
use crate::error::Result;
use crate::ftl::blocks::{BlockManager, Owner, RegionId, StreamId};
use crate::ftl::mapping::{MapCtx, Mapping, Relocation, Translation};
use crate::ftl::placement::Placement;
use crate::ftl::region::{RegionStats, NATIVE};
use crate::ftl::stats::FtlStats;
use crate::ftl::verify::Verifier;
use crate::units::{BlockId, Lpn, PlaneId, Ppn, SimTime};

#[derive(Clone)]
pub(super) struct Store {
    pub(super) blocks: BlockManager,
    pub(super) mapping: Box<dyn Mapping>,
    pub(super) placer: Placer,
    pub(super) verify: Option<Verifier>,
    pub(super) stats: FtlStats,
    /// Per region: what the FTL counted (`RegionStats`).
    pub(super) region_stats: Vec<RegionStats>,
}

/// The streams the FTL writes to (per region where it matters).
#[derive(Clone)]
pub(super) struct Streams {
    /// Host data, per region.
    pub(super) host: Vec<StreamId>,
    /// GC relocations, per region.
    pub(super) gc: Vec<StreamId>,
    /// Data migrated into a region, per region.
    pub(super) migration: Vec<StreamId>,
    /// Translation pages (native region).
    pub(super) map: StreamId,
}

/// Where pages go: the placement policy, the FTL's streams, and the placement's own.
#[derive(Clone)]
pub(super) struct Placer {
    pub(super) policy: Box<dyn Placement>,
    /// `policy.tracks_programs()`, asked once.
    tracks_programs: bool,
    /// The placement's own streams (`PlacementLayout::streams`; empty for most), which it
    /// chooses for data bound for the native region (`Placement::stream_for`).
    own_streams: Range<u16>,
    /// `PlacementLayout::max_lines`: a placement stream holding this many lines is collected
    /// before it opens another.
    pub(super) max_lines: Option<u32>,
    pub(super) streams: Streams,
    /// Program-unit pages per region (the placement's unit on that region's mode).
    pub(super) unit_pages: Vec<u32>,
}

impl Placer {
    pub(super) fn new(
        policy: Box<dyn Placement>,
        own_streams: Range<u16>,
        max_lines: Option<u32>,
        streams: Streams,
        unit_pages: Vec<u32>,
    ) -> Placer {
        Placer { tracks_programs: policy.tracks_programs(), policy, own_streams, max_lines, streams, unit_pages }
    }

    /// The placement's own stream for data of `lpn` bound for `region`, if it chooses one
    /// (native region only): host writes and moved pages alike go there.
    #[inline]
    pub(super) fn own_stream(&self, region: RegionId, lpn: Lpn) -> Option<StreamId> {
        if region == NATIVE && !self.own_streams.is_empty() {
            self.policy.stream_for(lpn)
        } else {
            None
        }
    }

    /// The stream host data of `lpn` bound for `region` goes to: the placement's own, if it
    /// chooses one, else the region's host stream.
    #[inline]
    pub(super) fn host_stream(&self, region: RegionId, lpn: Lpn) -> StreamId {
        self.own_stream(region, lpn).unwrap_or(self.streams.host[region.0 as usize])
    }

    /// Whether `stream` is one of the placement's own.
    pub(super) fn is_own_stream(&self, stream: StreamId) -> bool {
        self.own_streams.contains(&stream.0)
    }

    /// Whether the placement chooses streams by LPN (so pages of one victim may part).
    #[inline]
    pub(super) fn has_own_streams(&self) -> bool {
        !self.own_streams.is_empty()
    }
}

impl Store {
    /// The mapping's context for an operation at `now`.
    #[inline]
    fn map_ctx<'a>(
        device: &'a mut Device,
        blocks: &'a mut BlockManager,
        stats: &'a mut FtlStats,
        stream: StreamId,
        now: SimTime,
    ) -> MapCtx<'a> {
        MapCtx { now, device, blocks, stream, io: &mut stats.translation }
    }

    /// `Mapping::lookup` at `now`.
    pub(super) fn lookup(
        &mut self,
        lpns: &[Lpn],
        out: &mut Vec<Translation>,
        device: &mut Device,
        now: SimTime,
    ) -> Result<()> {
        let mut ctx = Self::map_ctx(device, &mut self.blocks, &mut self.stats, self.placer.streams.map, now);
        self.mapping.lookup(lpns, out, &mut ctx)
    }

    /// `Mapping::update` at `now`: the page `lpn` held before, and when the update is done.
    #[inline]
    pub(super) fn update(
        &mut self,
        lpn: Lpn,
        ppn: Ppn,
        device: &mut Device,
        now: SimTime,
    ) -> Result<(Option<Ppn>, SimTime)> {
        let mut ctx = Self::map_ctx(device, &mut self.blocks, &mut self.stats, self.placer.streams.map, now);
        self.mapping.update(lpn, ppn, &mut ctx)
    }

    /// `Mapping::unmap` at `now`: the page `lpn` held.
    pub(super) fn unmap(&mut self, lpn: Lpn, device: &mut Device, now: SimTime) -> Result<Option<Ppn>> {
        let mut ctx = Self::map_ctx(device, &mut self.blocks, &mut self.stats, self.placer.streams.map, now);
        self.mapping.unmap(lpn, &mut ctx)
    }

    /// `Mapping::relocated` at `now`, for one batch of moves.
    pub(super) fn relocated(&mut self, moves: &[Relocation], device: &mut Device, now: SimTime) -> Result<()> {
        let mut ctx = Self::map_ctx(device, &mut self.blocks, &mut self.stats, self.placer.streams.map, now);
        self.mapping.relocated(moves, &mut ctx)
    }

    /// Tell a placement that tracks programs about `block`'s plane after a unit of host
    /// `stream` went there (timed units only: see `Placement::on_programmed`).
    #[inline(always)]
    pub(super) fn note_programmed(&mut self, stream: StreamId, block: BlockId, device: &Device) {
        if self.placer.tracks_programs && device.is_timed() {
            self.report_programmed(stream, block, device);
        }
    }

    fn report_programmed(&mut self, stream: StreamId, block: BlockId, device: &Device) {
        let plane = self.blocks.geometry().plane_of_block(block);
        let region = self.blocks.stream_region(stream);
        // Room for one more page: a lower bound of room for any unit (a query for a larger
        // unit that finds none there corrects the bound itself).
        let room = self.blocks.has_room(stream, plane, self.blocks.gc_reserve(region));
        self.placer.policy.on_programmed(stream, plane, device.plane_free_at(plane), room);
    }
}

/// The rules of the shared state: an owner change, a validity change, a block leaving or
/// returning to a free pool. The units go through these, never through `blocks` directly, so
/// the owner table, the valid counts, verify mode's shadow and the counters that follow them
/// stay in step; plain reads of `blocks` and `stats` stay direct.
impl Store {
    /// Host data of `lpn` now goes to `ppn` (allocated, not yet programmed): the mapping update
    /// (not before `ready`), the old copy invalid (an overwrite of its region), the owner entry
    /// and, in verify mode, the page's version (`version` kept by the buffer, or a new one for
    /// a direct host write). Returns when the mapping update is done.
    #[inline]
    pub(super) fn commit_host_page(
        &mut self,
        lpn: Lpn,
        ppn: Ppn,
        version: Option<u32>,
        device: &mut Device,
        ready: SimTime,
    ) -> Result<SimTime> {
        let (old, updated) = self.update(lpn, ppn, device, ready)?;
        if let Some(o) = old {
            let r = self.blocks.invalidate(o);
            self.region_stats[r.0 as usize].overwritten_pages += 1;
        }
        self.blocks.set_owner(ppn, Owner::Data(lpn));
        if let Some(v) = &mut self.verify {
            let version = version.unwrap_or_else(|| v.on_host_write(lpn));
            v.on_program(ppn, version);
        }
        self.stats.host_programs += 1;
        Ok(updated)
    }

    /// Data of `lpn` that predates the run is at `ppn` (placed, never programmed).
    pub(super) fn premap(&mut self, lpn: Lpn, ppn: Ppn) {
        self.mapping.premap(lpn, ppn);
        self.blocks.set_owner(ppn, Owner::Data(lpn));
        if let Some(v) = &mut self.verify {
            v.on_premap(lpn, ppn);
        }
        self.stats.premapped_pages += 1;
    }

    /// The host trims `lpn` (at `now`): the mapping forgets it and its page becomes invalid.
    pub(super) fn trim(&mut self, lpn: Lpn, device: &mut Device, now: SimTime) -> Result<()> {
        if let Some(old) = self.unmap(lpn, device, now)? {
            self.blocks.invalidate(old);
        }
        if let Some(v) = &mut self.verify {
            v.on_trim(lpn);
        }
        Ok(())
    }

    /// The page `owner` held at `old` was copied to `new` (GC or migration): the old copy
    /// invalid, the new one `owner`'s. The mapping learns of it per batch (`relocated`).
    #[inline]
    pub(super) fn page_moved(&mut self, owner: Owner, old: Ppn, new: Ppn) {
        self.blocks.invalidate(old);
        self.blocks.set_owner(new, owner);
        if let Some(v) = &mut self.verify {
            v.on_copy(old, new);
        }
    }

    /// The next page of `stream` in `plane` (opening a free block when needed; None if the
    /// plane has none).
    #[inline]
    pub(super) fn allocate(&mut self, stream: StreamId, plane: PlaneId, now: SimTime) -> Option<Ppn> {
        self.blocks.allocate(stream, plane, now)
    }

    /// The first page of a program unit of `pages` for `stream` (writing to `region`) in
    /// `plane`, on a wordline of the placement's unit for that region where it is one
    /// (`BlockManager::allocate_run`).
    #[inline]
    pub(super) fn allocate_unit(
        &mut self,
        stream: StreamId,
        region: RegionId,
        plane: PlaneId,
        pages: u32,
        now: SimTime,
    ) -> Option<Ppn> {
        let unit_pages = self.placer.unit_pages[region.0 as usize];
        self.blocks.allocate_run(stream, plane, pages, unit_pages, now)
    }

    /// Sealed block `b` becomes a GC victim: out of the candidate indexes.
    pub(super) fn take_victim(&mut self, b: BlockId) {
        self.blocks.mark_victim(b);
    }

    /// Sealed line `index` of `stream` becomes a GC victim, every block of it.
    pub(super) fn take_victim_line(&mut self, stream: StreamId, index: u32) {
        self.blocks.take_sealed_line(stream, index);
    }

    /// Emptied victim `b` is erased (the device's erase booked by the caller): back in its
    /// region's free pool, and the placement told its plane has room again.
    pub(super) fn erased(&mut self, b: BlockId) {
        self.blocks.erase(b);
        let plane = self.blocks.geometry().plane_of_block(b);
        self.placer.policy.on_room(plane);
    }

    /// Move a free block of `plane` from region `from` to region `to` (the SLC cache's
    /// resizing), counted as converted into or out of the non-native region.
    pub(super) fn convert_free_block(&mut self, from: RegionId, to: RegionId, plane: PlaneId) -> Result<BlockId> {
        let b = self
            .blocks
            .move_free_block(from, to, plane)
            .ok_or_else(|| crate::error::Error::invariant("plane lost its free block"))?;
        if to == NATIVE {
            self.region_stats[from.0 as usize].blocks_converted_out += 1;
        } else {
            self.region_stats[to.0 as usize].blocks_converted_in += 1;
        }
        Ok(b)
    }
}
