//! Layer: nand. Virtual PPNs (LearnedFTL, Wang et al., HPCA 2024, Sec. 3.3.2, Fig. 10-11): the
//! physical pages renumbered in allocation order, so pages written one after another across the
//! parallel units get consecutive numbers a linear model can learn.
//!
//! A PPN counts pages block-major inside planes numbered channel-major (`nand::address`):
//! `(plane * blocks_per_plane + block_in_plane) * pages_per_block + page`. A VPPN reorders the same
//! digits fastest first as LearnedFTL allocates: channel, chip, die, plane, then page, then block
//! in plane. The first four digits together are the plane's rank in
//! `Geometry::channel_first_order()`, so
//!
//! `vppn = (block_in_plane * pages_per_block + page) * planes + plane_rank`.
//!
//! A *line* (the same block index on every plane) written page row by page row, each row in
//! plane-rank order, therefore gets consecutive VPPNs. Like reordering the factors of a product
//! (the paper's "commutative law"), this is a bijection on `0..pages`.
//!
//! Deviation from the paper: Fig. 11's allocation order lists channel, chip (LUN), plane; the
//! simulator has dies between chips and planes and places them there, as
//! `channel_first_order()` does.

use strength_reduce::StrengthReducedU32 as Divisor;

use crate::nand::geometry::Geometry;
use crate::units::{BlockId, PlaneId, Ppn};

/// PPN <-> VPPN translation for one geometry. Copies the few counts it needs, so it can sit beside
/// the mapping without borrowing the geometry. The counts are kept as strength-reduced divisors,
/// and the plane ranks as tables: LearnedFTL translates every valid page of a translation page at
/// each training, and a division per digit dominated that loop (then, with strength reduction,
/// the seven of the plane rank: 9-12 % of a LearnedFTL warm-up under perf).
#[derive(Debug, Clone)]
pub struct VirtualPages {
    channels: Divisor,
    chips_per_channel: Divisor,
    dies_per_chip: Divisor,
    planes_per_die: Divisor,
    blocks_per_plane: Divisor,
    pages_per_block: Divisor,
    /// All planes of the device (the product of the four counts above it).
    planes: Divisor,
    /// Planes of one chip, and of one channel (products of the counts above).
    planes_per_chip: Divisor,
    planes_per_channel: Divisor,
    /// Ranks of one chip row and of one die row in the allocation order (channel fastest).
    chips: Divisor,
    dies: Divisor,
    /// `plane_rank` of every plane, and `plane_at_rank` of every rank (one entry per plane).
    rank_of_plane: Box<[u32]>,
    plane_of_rank: Box<[u32]>,
}

impl PartialEq for VirtualPages {
    fn eq(&self, other: &Self) -> bool {
        self.counts() == other.counts()
    }
}

impl Eq for VirtualPages {}

/// A divisor for a count a validated geometry keeps at 1 or more (0 is taken as 1, so no input
/// can make this panic).
fn divisor(count: u32) -> Divisor {
    Divisor::new(count.max(1))
}

impl VirtualPages {
    pub fn new(g: &Geometry) -> Self {
        let (c, w, d, p) = (g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die);
        let mut vp = VirtualPages {
            channels: divisor(c),
            chips_per_channel: divisor(w),
            dies_per_chip: divisor(d),
            planes_per_die: divisor(p),
            blocks_per_plane: divisor(g.blocks_per_plane),
            pages_per_block: divisor(g.pages_per_block),
            planes: divisor(g.planes()),
            planes_per_chip: divisor(p * d),
            planes_per_channel: divisor(p * d * w),
            chips: divisor(c * w),
            dies: divisor(c * w * d),
            rank_of_plane: Box::default(),
            plane_of_rank: Box::default(),
        };
        let planes = vp.planes.get();
        vp.rank_of_plane = (0..planes).map(|plane| vp.compute_plane_rank(PlaneId(plane))).collect();
        vp.plane_of_rank = (0..planes).map(|rank| vp.compute_plane_at_rank(rank).0).collect();
        vp
    }

    fn counts(&self) -> [u32; 6] {
        [
            self.channels.get(),
            self.chips_per_channel.get(),
            self.dies_per_chip.get(),
            self.planes_per_die.get(),
            self.blocks_per_plane.get(),
            self.pages_per_block.get(),
        ]
    }

    /// The virtual page number of `ppn` (a bijection on `0..pages`). No arithmetic here can
    /// overflow: every intermediate is below the page count, which a `Geometry` keeps below 2^32.
    #[inline]
    pub fn to_vppn(&self, ppn: Ppn) -> u32 {
        let (block, page) = Divisor::div_rem(ppn.0, self.pages_per_block);
        let (plane, block_in_plane) = Divisor::div_rem(BlockId(block).0, self.blocks_per_plane);
        (block_in_plane * self.pages_per_block.get() + page) * self.planes.get() + self.plane_rank(PlaneId(plane))
    }

    /// The physical page of virtual page `vppn` (the inverse of `to_vppn`).
    #[inline]
    pub fn to_ppn(&self, vppn: u32) -> Ppn {
        let (row, rank) = Divisor::div_rem(vppn, self.planes);
        let plane = self.plane_at_rank(rank);
        let (block_in_plane, page) = Divisor::div_rem(row, self.pages_per_block);
        Ppn((plane.0 * self.blocks_per_plane.get() + block_in_plane) * self.pages_per_block.get() + page)
    }

    /// The plane rank in allocation order (channel fastest): the position of `plane` in
    /// `Geometry::channel_first_order()`.
    #[inline]
    pub fn plane_rank(&self, plane: PlaneId) -> u32 {
        self.rank_of_plane[plane.0 as usize]
    }

    /// The plane at position `rank` of `Geometry::channel_first_order()` (the inverse of
    /// `plane_rank`).
    #[inline]
    pub fn plane_at_rank(&self, rank: u32) -> PlaneId {
        PlaneId(self.plane_of_rank[rank as usize])
    }

    /// `plane_rank` computed: the digits of a channel-major plane id, read in reverse order.
    fn compute_plane_rank(&self, plane: PlaneId) -> u32 {
        let (c, w, d) = (self.channels.get(), self.chips_per_channel.get(), self.dies_per_chip.get());
        let plane_in_die = plane.0 % self.planes_per_die;
        let die = plane.0 / self.planes_per_die % self.dies_per_chip;
        let chip = plane.0 / self.planes_per_chip % self.chips_per_channel;
        let channel = plane.0 / self.planes_per_channel;
        ((plane_in_die * d + die) * w + chip) * c + channel
    }

    /// `plane_at_rank` computed.
    fn compute_plane_at_rank(&self, rank: u32) -> PlaneId {
        let (w, d, p) = (self.chips_per_channel.get(), self.dies_per_chip.get(), self.planes_per_die.get());
        let channel = rank % self.channels;
        let chip = rank / self.channels % self.chips_per_channel;
        let die = rank / self.chips % self.dies_per_chip;
        let plane_in_die = rank / self.dies;
        PlaneId(((channel * w + chip) * d + die) * p + plane_in_die)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::presets;
    use crate::nand::{CellType, PageAddress};
    use proptest::prelude::*;

    /// Presets up to this many pages are checked page by page; larger ones (mqsim-default has
    /// 2^26 pages, too slow for a debug test) are sampled.
    const EXHAUSTIVE_PAGES: u64 = 1 << 23;

    fn geometry(channels: u32, chips: u32, dies: u32, planes: u32, blocks: u32, pages: u32) -> Geometry {
        Geometry {
            channels,
            chips_per_channel: chips,
            dies_per_chip: dies,
            planes_per_die: planes,
            blocks_per_plane: blocks,
            pages_per_block: pages,
            page_bytes: 4096,
            cell: CellType::Tlc,
        }
    }

    fn preset_geometry(name: &str) -> Geometry {
        crate::load_config(Some(name), &[], &[]).unwrap_or_else(|e| panic!("{name}: {e}")).geometry()
    }

    fn assert_round_trip(v: &VirtualPages, pages: u64, ppn: Ppn) {
        let vppn = v.to_vppn(ppn);
        assert!(u64::from(vppn) < pages, "{ppn:?} -> {vppn} out of range");
        assert_eq!(v.to_ppn(vppn), ppn, "{ppn:?} -> {vppn}");
    }

    /// Every page of each preset up to `EXHAUSTIVE_PAGES` pages, checked to be a bijection (each
    /// VPPN hit once). A larger preset is sampled: every 9973rd page (a prime stride, so the samples
    /// fall on every page, block and plane residue) in both directions, plus every page of the
    /// first and the last block of each plane.
    #[test]
    fn every_preset_round_trips_ppn_to_vppn_and_back() {
        let (mut exhaustive, mut sampled) = (Vec::new(), Vec::new());
        for name in presets::names() {
            let g = preset_geometry(name);
            let v = VirtualPages::new(&g);
            let pages = g.pages();
            if pages <= EXHAUSTIVE_PAGES {
                let mut seen = vec![false; pages as usize];
                for ppn in 0..pages as u32 {
                    assert_round_trip(&v, pages, Ppn(ppn));
                    let vppn = v.to_vppn(Ppn(ppn)) as usize;
                    assert!(!seen[vppn], "{name}: VPPN {vppn} hit twice");
                    seen[vppn] = true;
                }
                exhaustive.push(name);
            } else {
                for n in (0..pages).step_by(9973) {
                    assert_round_trip(&v, pages, Ppn(n as u32));
                    assert_eq!(v.to_vppn(v.to_ppn(n as u32)), n as u32, "{name}: VPPN {n}");
                }
                for plane in 0..g.planes() {
                    let first = g.first_block_of(PlaneId(plane));
                    for block in [first, BlockId(first.0 + g.blocks_per_plane - 1)] {
                        for page in 0..g.pages_per_block {
                            assert_round_trip(&v, pages, g.ppn(block, page));
                        }
                    }
                }
                sampled.push(name);
            }
        }
        // Loud about coverage: the small presets must have been checked in full.
        assert!(exhaustive.contains(&"tiny") && exhaustive.len() >= 4, "exhaustive: {exhaustive:?}");
        assert_eq!(exhaustive.len() + sampled.len(), presets::names().len());
    }

    #[test]
    fn fig11_pages_on_consecutive_channels_get_consecutive_vppns() {
        // Fig. 11: the same (LUN 5, plane 1, block 64, page 127) on channels 4, 5 and 6 has PPNs
        // a whole channel apart, and consecutive VPPNs.
        let g = geometry(8, 8, 1, 2, 128, 128);
        let v = VirtualPages::new(&g);
        let at = |channel| g.encode(&PageAddress { channel, chip: 5, die: 0, plane: 1, block: 64, page: 127 });
        let ppns = [at(4), at(5), at(6)];
        let pages_per_channel = g.pages() as u32 / g.channels;
        assert_eq!(ppns[1].0 - ppns[0].0, pages_per_channel);
        let vppns = ppns.map(|p| v.to_vppn(p));
        // (block * pages_per_block + page) * planes + ((plane * dies + die) * chips + chip) * channels + channel
        let row = (64 * 128 + 127) * g.planes();
        assert_eq!(vppns, [row + (8 + 5) * 8 + 4, row + (8 + 5) * 8 + 5, row + (8 + 5) * 8 + 6]);
    }

    #[test]
    fn plane_rank_is_the_position_in_channel_first_order() {
        for g in [
            geometry(1, 1, 1, 1, 4, 4),
            geometry(2, 1, 1, 2, 4, 4),
            geometry(3, 2, 2, 2, 4, 4),
            geometry(8, 4, 2, 2, 4, 4),
        ] {
            let v = VirtualPages::new(&g);
            let order = g.channel_first_order();
            assert_eq!(order.len() as u32, g.planes());
            for (rank, &plane) in order.iter().enumerate() {
                assert_eq!(v.plane_rank(plane), rank as u32, "{g:?} {plane:?}");
                assert_eq!(v.plane_at_rank(rank as u32), plane, "{g:?} rank {rank}");
            }
        }
    }

    #[test]
    fn a_line_written_row_by_row_gets_consecutive_vppns() {
        let g = geometry(3, 2, 2, 2, 5, 7);
        let v = VirtualPages::new(&g);
        let order = g.channel_first_order();
        for block_in_plane in 0..g.blocks_per_plane {
            let mut expected = block_in_plane * g.pages_per_block * g.planes();
            for page in 0..g.pages_per_block {
                for &plane in &order {
                    let ppn = g.ppn(BlockId(g.first_block_of(plane).0 + block_in_plane), page);
                    assert_eq!(v.to_vppn(ppn), expected, "block {block_in_plane} page {page} {plane:?}");
                    expected += 1;
                }
            }
        }
    }

    proptest! {
        #[test]
        fn round_trip_on_random_geometries(
            channels in 1u32..9, chips in 1u32..5, dies in 1u32..3, planes in 1u32..4,
            blocks in 1u32..20, pages in 1u32..40, pick in 0u64..u64::MAX,
        ) {
            let g = geometry(channels, chips, dies, planes, blocks, pages);
            let v = VirtualPages::new(&g);
            let n = (pick % g.pages()) as u32;
            prop_assert_eq!(v.to_ppn(v.to_vppn(Ppn(n))), Ppn(n));
            prop_assert_eq!(v.to_vppn(v.to_ppn(n)), n);
            prop_assert!(u64::from(v.to_vppn(Ppn(n))) < g.pages());
        }
    }
}
