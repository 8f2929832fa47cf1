//! Layer: ftl. What every unit of the FTL reads and changes: the block manager, the mapping,
//! where pages go (`Placer`: the placement policy and the write streams), verify mode's shadow
//! of the host's data, and the FTL's figures. The units (the host path, the reclaimer, the
//! region manager) own their own state and borrow this, with the device, for one operation.

use std::ops::Range;

use crate::device::Device;
use crate::error::Result;
use crate::ftl::blocks::{BlockManager, RegionId, StreamId};
use crate::ftl::mapping::{MapCtx, Mapping, Relocation, Translation};
use crate::ftl::placement::Placement;
use crate::ftl::region::{RegionStats, NATIVE};
use crate::ftl::stats::FtlStats;
use crate::ftl::verify::Verifier;
use crate::units::{BlockId, Lpn, Ppn, SimTime};

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
