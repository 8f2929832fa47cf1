//! Layer: ftl. Static placement: the plane is a function of the LPN alone, MQSim's
//! channel-way-die-plane ("CWDP") allocation scheme (Tavakkol et al., FAST 2018; MQSim's
//! `Flash_Plane_Allocation_Scheme_Type::CWDP`). With C channels, W chips (ways) per channel, D
//! dies per chip and P planes per die:
//!
//! ```text
//! channel = lpn mod C
//! chip    = (lpn / C) mod W
//! die     = (lpn / (C W)) mod D
//! plane   = (lpn / (C W D)) mod P
//! ```
//!
//! so consecutive LPNs stripe over channels first, then chips, dies and planes, and an LPN is
//! always written to the same plane. Where that plane has no room the unit waits for GC there
//! (the FTL reclaims, within the plane with `gc.scope = "plane"`).

use crate::ftl::placement::{Placement, PlacementView};
use crate::nand::Geometry;
use crate::units::{Lpn, PlaneId};

/// The CWDP plane of `lpn` (a global plane index: channel, chip, die, plane, channel-major).
pub fn cwdp_plane(g: &Geometry, lpn: Lpn) -> PlaneId {
    let l = lpn.0;
    let channel = l % g.channels;
    let chip = (l / g.channels) % g.chips_per_channel;
    let die = (l / (g.channels * g.chips_per_channel)) % g.dies_per_chip;
    let plane = (l / (g.channels * g.chips_per_channel * g.dies_per_chip)) % g.planes_per_die;
    PlaneId(((channel * g.chips_per_channel + chip) * g.dies_per_chip + die) * g.planes_per_die + plane)
}

/// The formula depends on the LPN only through `lpn mod (C W D P)`, so the policy looks the plane
/// up in a table of one stripe (four divisions per page cost more than the rest of placing it).
#[derive(Clone)]
pub struct StaticPlacement {
    stripe: Vec<PlaneId>,
}

impl StaticPlacement {
    pub fn new(geometry: &Geometry) -> Self {
        StaticPlacement { stripe: (0..geometry.planes()).map(|l| cwdp_plane(geometry, Lpn(l))).collect() }
    }
    #[inline]
    fn plane_of(&self, lpn: Lpn) -> PlaneId {
        let n = self.stripe.len() as u32;
        // A shift-free mask for the usual power-of-two plane count (a divide per page else).
        let i = if n.is_power_of_two() { lpn.0 & (n - 1) } else { lpn.0 % n };
        self.stripe[i as usize]
    }
}

impl Placement for StaticPlacement {
    fn plane(&mut self, lpns: &[Lpn], view: &PlacementView) -> Option<PlaneId> {
        let plane = self.plane_of(*lpns.first()?);
        view.has_room(plane, lpns.len() as u32).then_some(plane)
    }
    fn wanted_plane(&self, lpns: &[Lpn], _geometry: &Geometry) -> Option<PlaneId> {
        lpns.first().map(|&l| self.plane_of(l))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nand::CellType;

    #[test]
    fn cwdp_stripes_channels_then_ways_dies_planes() {
        let g = Geometry {
            channels: 2,
            chips_per_channel: 3,
            dies_per_chip: 2,
            planes_per_die: 2,
            blocks_per_plane: 4,
            pages_per_block: 8,
            page_bytes: 4096,
            cell: CellType::Slc,
        };
        // Written out from the formula for a few LPNs: (channel, chip, die, plane).
        for (lpn, (c, w, d, p)) in [
            (0, (0, 0, 0, 0)),
            (1, (1, 0, 0, 0)),
            (2, (0, 1, 0, 0)),
            (5, (1, 2, 0, 0)),
            (6, (0, 0, 1, 0)),
            (12, (0, 0, 0, 1)),
            (23, (1, 2, 1, 1)),
            (24, (0, 0, 0, 0)),
        ] {
            let plane = cwdp_plane(&g, Lpn(lpn));
            assert_eq!(g.channel_of_plane(plane), c, "lpn {lpn}");
            assert_eq!(g.chip_of_plane(plane) % 3, w, "lpn {lpn}");
            assert_eq!(g.die_of_plane(plane) % 2, d, "lpn {lpn}");
            assert_eq!(plane.0 % 2, p, "lpn {lpn}");
            assert_eq!(StaticPlacement::new(&g).plane_of(Lpn(lpn)), plane, "the stripe table, lpn {lpn}");
        }
        // Every plane is hit once per C x W x D x P consecutive LPNs.
        let mut hits = vec![0; g.planes() as usize];
        for lpn in 0..g.planes() {
            hits[cwdp_plane(&g, Lpn(lpn)).index()] += 1;
        }
        assert!(hits.iter().all(|&h| h == 1), "{hits:?}");
    }
}
