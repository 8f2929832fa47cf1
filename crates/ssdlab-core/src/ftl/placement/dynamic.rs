//! Layer: ftl. Dynamic placement: each unit goes to the plane whose array unit frees earliest
//! among those with room; ties go to the first such plane in channel-first order after the plane
//! used last (so equally idle planes are striped channel first).
//!
//! Cost per unit independent of the plane count: instead of scanning every plane, a segment tree
//! over the planes (in channel-first order) keeps a lower bound of each plane's free time
//! (infinite while it has no room). A query takes the root's minimum and descends to its
//! leftmost position at or after the cursor (else before it), the first minimum in cyclic
//! order, then checks it against the truth: if its bound is stale (the unit was booked since,
//! or the plane lost its room), the leaf is refreshed and the query repeats. Bounds stay lower
//! bounds because a unit's free time only grows while timing runs, the tree is rebuilt when the
//! device resets its timing, and the FTL reports every plane that regains room (`on_room`) and
//! every plane it programs (`on_programmed`, which refreshes it exactly). The answer is exactly
//! the scan's: the chosen plane's bound is exact and every other plane's true time is at least
//! its bound.
//!
//! Up to `SCAN_PLANES` planes a plain scan is cheaper than the tree (on bench-16gib's 16 planes
//! the tree's queries cost more than the scan they replace), so small devices scan; a property
//! test checks that scan and tree always pick the same plane.

use crate::ftl::blocks::StreamId;
use crate::ftl::placement::{Placement, PlacementView};
use crate::nand::Geometry;
use crate::units::{Lpn, PlaneId, SimTime};

const NO_ROOM: SimTime = SimTime::MAX;

/// Devices with at most this many planes are scanned instead of searched in the tree.
const SCAN_PLANES: usize = 32;

/// The least-busy-plane search shared by `dynamic` and `wordline`.
#[derive(Clone)]
pub(crate) struct LeastBusy {
    /// Planes in channel-first order.
    order: Vec<PlaneId>,
    /// Position of each plane in `order`.
    position: Vec<u32>,
    /// The device's array unit of each position (filled on the first scan: the device's
    /// `array_unit` decides it).
    units: Vec<u32>,
    /// Min-tree over positions for the stream being placed: `tree[size + i]` is position i's
    /// bound. Room depends on the stream (each has its own write points, and a region's own
    /// pool), so each stream has a tree; the others wait in `parked`.
    tree: Vec<SimTime>,
    /// Trees of the other streams by stream index (empty: not built, or reset).
    parked: Vec<Vec<SimTime>>,
    current: usize,
    size: usize,
    cursor: usize,
    epoch: u64,
    /// Search the tree (more than `SCAN_PLANES` planes) rather than scan.
    use_tree: bool,
}

impl LeastBusy {
    pub(crate) fn new(geometry: &Geometry) -> Self {
        Self::with_tree(geometry, geometry.planes() as usize > SCAN_PLANES)
    }

    fn with_tree(geometry: &Geometry, use_tree: bool) -> Self {
        let order = geometry.channel_first_order();
        let mut position = vec![0; order.len()];
        for (i, p) in order.iter().enumerate() {
            position[p.index()] = i as u32;
        }
        let size = order.len().next_power_of_two();
        let tree = fresh_tree(size, order.len());
        LeastBusy {
            order,
            position,
            units: Vec::new(),
            tree,
            parked: Vec::new(),
            current: 0,
            size,
            cursor: 0,
            epoch: u64::MAX,
            use_tree,
        }
    }

    /// Make `stream`'s tree the current one.
    #[inline]
    fn select(&mut self, stream: usize) {
        if stream != self.current {
            self.swap_in(stream);
        }
    }

    #[cold]
    fn swap_in(&mut self, stream: usize) {
        if self.parked.len() <= stream.max(self.current) {
            self.parked.resize_with(stream.max(self.current) + 1, Vec::new);
        }
        let mut t = std::mem::take(&mut self.parked[stream]);
        if t.is_empty() {
            t = fresh_tree(self.size, self.order.len());
        }
        std::mem::swap(&mut self.tree, &mut t);
        self.parked[self.current] = t;
        self.current = stream;
    }

    fn set(&mut self, pos: usize, value: SimTime) {
        set_in(&mut self.tree, self.size, pos, value);
    }

    /// The leftmost position at or after `lo` whose bound is at most `x` (O(log planes)).
    fn first_at_most(&self, lo: usize, x: SimTime) -> Option<usize> {
        let mut i = lo + self.size;
        loop {
            if self.tree[i] <= x {
                // Down to the leftmost leaf of this subtree holding a bound <= x.
                while i < self.size {
                    i *= 2;
                    if self.tree[i] > x {
                        i += 1;
                    }
                }
                return Some(i - self.size);
            }
            // Climb while `i` is a right child, then step to the next subtree on the right.
            while i & 1 == 1 {
                i >>= 1;
                if i <= 1 {
                    return None;
                }
            }
            i += 1;
        }
    }

    /// Whether searches go through the tree (more than `SCAN_PLANES` planes).
    pub(crate) fn uses_tree(&self) -> bool {
        self.use_tree
    }

    /// The least-busy plane with room for `pages`, or None.
    pub(crate) fn pick(&mut self, pages: u32, view: &PlacementView) -> Option<PlaneId> {
        if !view.device.is_timed() {
            return self.next_with_room(pages, view);
        }
        if self.use_tree {
            self.select(view.stream().0 as usize);
            self.search(pages, view)
        } else {
            self.scan(pages, view)
        }
    }

    /// Untimed (warm-up): operations take no time, so every array unit is equally idle and the
    /// least-busy plane is the first with room in cyclic order from the cursor: what the scan
    /// and the tree return on a device that has not run timed yet (all free times 0), found
    /// without either. Free times left from a timed run are ignored while untimed. The tree
    /// stays a valid lower bound (picks do not change it), and turning timing on starts a new
    /// epoch, which rebuilds it anyway.
    fn next_with_room(&mut self, pages: u32, view: &PlacementView) -> Option<PlaneId> {
        let n = self.order.len();
        let mut pos = self.cursor;
        for _ in 0..n {
            let plane = self.order[pos];
            pos = if pos + 1 == n { 0 } else { pos + 1 };
            if view.has_room(plane, pages) {
                self.cursor = pos;
                return Some(plane);
            }
        }
        None
    }

    /// Every plane in cyclic order from the cursor; the first with the earliest free time.
    /// A plane's room is checked only when its free time would beat the best so far: a plane
    /// that cannot win need not be asked (most can take the unit, and the room test reads the
    /// block tables, the costliest part of the scan).
    fn scan(&mut self, pages: u32, view: &PlacementView) -> Option<PlaneId> {
        let n = self.order.len();
        if self.units.len() != n {
            self.units = self.order.iter().map(|&p| view.device.unit_of_plane(p) as u32).collect();
        }
        let free_at = view.device.unit_free_times();
        // Cyclic order from the cursor: positions [cursor, n), then [0, cursor).
        let (mut best_t, mut best_pos) = (NO_ROOM, usize::MAX);
        for range in [self.cursor..n, 0..self.cursor] {
            for pos in range {
                let t = free_at[self.units[pos] as usize];
                if (t < best_t || best_pos == usize::MAX) && view.has_room(self.order[pos], pages) {
                    (best_t, best_pos) = (t, pos);
                }
            }
        }
        let best = (best_pos != usize::MAX).then_some((best_t, best_pos));
        let (_, pos) = best?;
        self.cursor = if pos + 1 == n { 0 } else { pos + 1 };
        Some(self.order[pos])
    }

    /// The tree search (see the module header).
    fn search(&mut self, pages: u32, view: &PlacementView) -> Option<PlaneId> {
        let epoch = view.device.timing_epoch();
        if epoch != self.epoch {
            // The device reset its timing: every bound may be too high now.
            self.epoch = epoch;
            self.tree = fresh_tree(self.size, self.order.len());
            self.parked.iter_mut().for_each(Vec::clear);
        }
        let n = self.order.len();
        loop {
            // Cyclic order from the cursor: the leftmost minimum at or after the cursor, else
            // the leftmost one before it.
            let bound = self.tree[1];
            if bound == NO_ROOM {
                return None;
            }
            let pos = self.first_at_most(self.cursor, bound).or_else(|| self.first_at_most(0, bound));
            let pos = pos.expect("a position holds the minimum just found");
            let plane = self.order[pos];
            let truth = if view.has_room(plane, pages) { view.free_at(plane) } else { NO_ROOM };
            if truth == bound {
                self.cursor = if pos + 1 == n { 0 } else { pos + 1 };
                return Some(plane);
            }
            debug_assert!(truth > bound, "a bound above the truth would hide a better plane");
            self.set(pos, truth);
        }
    }

    /// `plane`'s exact state for `stream`, known to the caller (its free time, or no room).
    pub(crate) fn update(&mut self, stream: StreamId, plane: PlaneId, free_at: SimTime, has_room: bool) {
        if self.use_tree {
            self.select(stream.0 as usize);
            let pos = self.position[plane.index()] as usize;
            self.set(pos, if has_room { free_at } else { NO_ROOM });
        }
    }

    /// `plane` may have regained room: lower its bound to 0 in every stream's tree so the next
    /// query refreshes it.
    pub(crate) fn refresh(&mut self, plane: PlaneId) {
        if self.use_tree {
            let pos = self.position[plane.index()] as usize;
            self.set(pos, 0);
            for t in self.parked.iter_mut().filter(|t| !t.is_empty()) {
                set_in(t, self.size, pos, 0);
            }
        }
    }
}

/// A tree whose `planes` bounds are 0 (a lower bound of anything: the first queries refresh).
fn fresh_tree(size: usize, planes: usize) -> Vec<SimTime> {
    let mut tree = vec![NO_ROOM; 2 * size];
    tree[size..size + planes].fill(0);
    for i in (1..size).rev() {
        tree[i] = tree[2 * i].min(tree[2 * i + 1]);
    }
    tree
}

fn set_in(tree: &mut [SimTime], size: usize, pos: usize, value: SimTime) {
    let mut i = size + pos;
    if tree[i] == value {
        return;
    }
    tree[i] = value;
    while i > 1 {
        i /= 2;
        let min = tree[2 * i].min(tree[2 * i + 1]);
        if tree[i] == min {
            // Unchanged here, so unchanged above.
            return;
        }
        tree[i] = min;
    }
}

#[derive(Clone)]
pub struct DynamicPlacement {
    least_busy: LeastBusy,
}

impl DynamicPlacement {
    pub fn new(geometry: &Geometry) -> Self {
        DynamicPlacement { least_busy: LeastBusy::new(geometry) }
    }
}

impl Placement for DynamicPlacement {
    fn plane(&mut self, _lpns: &[Lpn], view: &PlacementView) -> Option<PlaneId> {
        self.least_busy.pick(1, view)
    }
    fn on_room(&mut self, plane: PlaneId) {
        self.least_busy.refresh(plane);
    }
    fn tracks_programs(&self) -> bool {
        self.least_busy.uses_tree()
    }
    fn on_programmed(&mut self, stream: StreamId, plane: PlaneId, free_at: SimTime, has_room: bool) {
        self.least_busy.update(stream, plane, free_at, has_room);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::{Device, Source};
    use crate::ftl::blocks::{BlockManager, Owner, HOST};
    use crate::nand::CellType;
    use crate::units::Ppn;
    use proptest::prelude::*;

    fn geometry(channels: u32, chips: u32, planes: u32) -> Geometry {
        Geometry {
            channels,
            chips_per_channel: chips,
            dies_per_chip: 1,
            planes_per_die: planes,
            blocks_per_plane: 3,
            pages_per_block: 4,
            page_bytes: 4096,
            cell: CellType::Slc,
        }
    }

    fn device(g: &Geometry) -> Device {
        crate::device::test_device(g, 1_000)
    }

    proptest! {
        /// Scan and tree pick the same plane through any sequence of page programs (which make
        /// planes busy and use up their room) and reads (which make them busy elsewhere).
        #[test]
        fn tree_and_scan_pick_the_same_plane(
            channels in 1u32..4, chips in 1u32..4, planes in 1u32..3,
            ops in proptest::collection::vec((any::<bool>(), 0u32..64, 0u64..2_000_000), 1..120),
        ) {
            let g = geometry(channels, chips, planes);
            let mut dev = device(&g);
            let mut bm = BlockManager::new(g.clone(), 1);
            let mut scan = LeastBusy::with_tree(&g, false);
            let mut tree = LeastBusy::with_tree(&g, true);
            let mut now = 0;
            for (write, pick, gap) in ops {
                now += gap;
                if write {
                    let view = PlacementView::new(&dev, &bm, HOST, 1);
                    let a = scan.pick(1, &view);
                    let b = tree.pick(1, &view);
                    prop_assert_eq!(a, b);
                    let Some(plane) = a else { break };
                    let ppn = bm.allocate(HOST, plane, now).unwrap();
                    bm.set_owner(ppn, Owner::Data(Lpn(ppn.0)));
                    dev.program(ppn, crate::nand::BlockMode::Native, now, Source::Host);
                    // Half the time the FTL reports the program (as `program_unit` does); the
                    // tree must be exact either way.
                    if pick % 2 == 0 {
                        let view = PlacementView::new(&dev, &bm, HOST, 1);
                        tree.update(HOST, plane, view.free_at(plane), view.has_room(plane, 1));
                    }
                } else {
                    // A read somewhere makes a plane busy without the placement knowing.
                    let ppn = Ppn(pick % g.pages() as u32);
                    dev.read(ppn, crate::nand::BlockMode::Native, now, Source::Gc);
                }
            }
        }
    }

    /// Untimed (warm-up), every plane is idle: the pick is the next plane with room after the
    /// last one, as the scan and the tree pick on a device that has not run timed (all free
    /// times 0), through the whole fill of the device down to its GC reserve.
    #[test]
    fn untimed_pick_is_the_scan_and_tree_pick_on_an_idle_device() {
        let g = geometry(3, 2, 2); // 12 planes, 3 blocks of 4 pages each
        let mut untimed_dev = device(&g);
        untimed_dev.set_timed(false);
        let idle_dev = device(&g);
        let mut bm = BlockManager::new(g.clone(), 1);
        let (mut fast, mut scan, mut tree) =
            (LeastBusy::new(&g), LeastBusy::with_tree(&g, false), LeastBusy::with_tree(&g, true));
        let mut picks = 0;
        loop {
            let a = fast.pick(1, &PlacementView::new(&untimed_dev, &bm, HOST, 1));
            let view = PlacementView::new(&idle_dev, &bm, HOST, 1);
            let (b, c) = (scan.pick(1, &view), tree.pick(1, &view));
            assert_eq!((a, a), (b, c), "pick {picks}");
            let Some(plane) = a else { break };
            let ppn = bm.allocate(HOST, plane, 0).unwrap();
            bm.set_owner(ppn, Owner::Data(Lpn(ppn.0)));
            untimed_dev.program(ppn, crate::nand::BlockMode::Native, 0, Source::Host);
            picks += 1;
        }
        // Every plane filled down to its one reserved block.
        assert_eq!(picks, 12 * 2 * 4);
        assert_eq!(untimed_dev.plane_free_at(PlaneId(0)), 0, "untimed programs take no time");
    }

    #[test]
    fn first_at_most_finds_the_leftmost_bound_at_most_x() {
        let g = geometry(4, 2, 1);
        let mut t = LeastBusy::with_tree(&g, true);
        for (pos, v) in [5, 3, 9, 3, 7, 1, 8, 2].into_iter().enumerate() {
            t.set(pos, v);
        }
        assert_eq!(t.first_at_most(0, 3), Some(1));
        assert_eq!(t.first_at_most(2, 3), Some(3));
        assert_eq!(t.first_at_most(6, 2), Some(7));
        assert_eq!(t.first_at_most(6, 1), None);
        assert_eq!(t.first_at_most(0, 0), None);
    }
}
