//! Layer: ftl. Dynamic placement: each unit goes to the plane whose array unit frees earliest
//! among those with room; ties go to the first such plane in channel-first order after the plane
//! used last (so equally idle planes are striped channel first).
//!
//! Cost per unit independent of the plane count: instead of scanning every plane, a segment tree
//! over the planes (in channel-first order) keeps a lower bound of each plane's free time
//! (infinite while it has no room). A query takes the leftmost minimum in cyclic order from the
//! cursor, then checks it against the truth: if its bound is stale (the unit was booked since,
//! or the plane lost its room), the leaf is refreshed and the query repeats. Bounds stay lower
//! bounds because a unit's free time only grows while timing runs, the tree is rebuilt when the
//! device resets its timing, and the FTL reports every plane that regains room (`on_room`).
//! Each refresh follows a booking, so the amortised cost is O(log planes) per unit. The answer
//! is exactly the scan's: the chosen plane's bound is exact and every other plane's true time is
//! at least its bound.

use crate::ftl::placement::{Placement, PlacementView};
use crate::nand::Geometry;
use crate::units::{Lpn, PlaneId, SimTime};

const NO_ROOM: SimTime = SimTime::MAX;

/// The least-busy-plane search shared by `dynamic` and `wordline`.
pub(crate) struct LeastBusy {
    /// Planes in channel-first order.
    order: Vec<PlaneId>,
    /// Position of each plane in `order`.
    position: Vec<u32>,
    /// Min-tree over positions: `tree[size + i]` is position i's bound.
    tree: Vec<SimTime>,
    size: usize,
    cursor: usize,
    epoch: u64,
}

impl LeastBusy {
    pub(crate) fn new(geometry: &Geometry) -> Self {
        let order = geometry.channel_first_order();
        let mut position = vec![0; order.len()];
        for (i, p) in order.iter().enumerate() {
            position[p.index()] = i as u32;
        }
        let size = order.len().next_power_of_two();
        // Every bound starts at 0 (a lower bound of anything), so the first queries refresh.
        let mut tree = vec![NO_ROOM; 2 * size];
        tree[size..size + order.len()].fill(0);
        let mut s = LeastBusy { order, position, tree, size, cursor: 0, epoch: u64::MAX };
        s.rebuild_inner();
        s
    }

    fn rebuild_inner(&mut self) {
        for i in (1..self.size).rev() {
            self.tree[i] = self.tree[2 * i].min(self.tree[2 * i + 1]);
        }
    }

    fn set(&mut self, pos: usize, value: SimTime) {
        let mut i = self.size + pos;
        self.tree[i] = value;
        while i > 1 {
            i /= 2;
            self.tree[i] = self.tree[2 * i].min(self.tree[2 * i + 1]);
        }
    }

    /// Leftmost position of the minimum over positions [lo, hi).
    fn leftmost_min(&self, lo: usize, hi: usize) -> Option<(SimTime, usize)> {
        if lo >= hi {
            return None;
        }
        self.descend(1, 0, self.size, lo, hi)
    }

    fn descend(&self, node: usize, node_lo: usize, node_hi: usize, lo: usize, hi: usize) -> Option<(SimTime, usize)> {
        if hi <= node_lo || node_hi <= lo || self.tree[node] == NO_ROOM {
            return None;
        }
        if node_hi - node_lo == 1 {
            return Some((self.tree[node], node_lo));
        }
        let mid = (node_lo + node_hi) / 2;
        if lo <= node_lo && node_hi <= hi {
            // Whole node inside the range: go to the first child holding the node's minimum.
            let target = self.tree[node];
            return if self.tree[2 * node] == target {
                self.descend(2 * node, node_lo, mid, lo, hi)
            } else {
                self.descend(2 * node + 1, mid, node_hi, lo, hi)
            };
        }
        let left = self.descend(2 * node, node_lo, mid, lo, hi);
        let right = self.descend(2 * node + 1, mid, node_hi, lo, hi);
        match (left, right) {
            (Some(l), Some(r)) if r.0 < l.0 => Some(r),
            (Some(l), _) => Some(l),
            (None, r) => r,
        }
    }

    /// The least-busy plane with room for `pages`, or None.
    pub(crate) fn pick(&mut self, pages: u32, view: &PlacementView) -> Option<PlaneId> {
        let epoch = view.device.timing_epoch();
        if epoch != self.epoch {
            self.epoch = epoch;
            let n = self.order.len();
            self.tree[self.size..self.size + n].fill(0);
            self.rebuild_inner();
        }
        let n = self.order.len();
        loop {
            let after = self.leftmost_min(self.cursor, n);
            let before = self.leftmost_min(0, self.cursor);
            let (bound, pos) = match (after, before) {
                (Some(a), Some(b)) if b.0 < a.0 => b,
                (Some(a), _) => a,
                (None, Some(b)) => b,
                (None, None) => return None,
            };
            let plane = self.order[pos];
            let truth = if view.has_room(plane, pages) { view.free_at(plane) } else { NO_ROOM };
            if truth == bound {
                self.cursor = (pos + 1) % n;
                return Some(plane);
            }
            debug_assert!(truth > bound, "a bound above the truth would hide a better plane");
            self.set(pos, truth);
        }
    }

    /// `plane` may have regained room: lower its bound to 0 so the next query refreshes it.
    pub(crate) fn refresh(&mut self, plane: PlaneId) {
        let pos = self.position[plane.index()] as usize;
        self.set(pos, 0);
    }
}

pub struct DynamicPlacement {
    least_busy: LeastBusy,
}

impl DynamicPlacement {
    pub fn new(geometry: &Geometry) -> Self {
        DynamicPlacement { least_busy: LeastBusy::new(geometry) }
    }
}

impl Placement for DynamicPlacement {
    fn id(&self) -> &'static str {
        "dynamic"
    }
    fn plane(&mut self, _lpns: &[Lpn], view: &PlacementView) -> Option<PlaneId> {
        self.least_busy.pick(1, view)
    }
    fn on_room(&mut self, plane: PlaneId) {
        self.least_busy.refresh(plane);
    }
}
