//! Layer: nand. Physical page numbers <-> (channel, chip, die, plane, block, page).
//!
//! A PPN is a flat index: ((plane_global * blocks_per_plane) + block) * pages_per_block + page,
//! where plane_global counts channel-major (channel, chip, die, plane). Virtual PPNs in
//! allocation order (LearnedFTL, Sec. 3.3.2) are in `vppn.rs`.

use crate::nand::geometry::Geometry;
use crate::units::Ppn;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageAddress {
    pub channel: u32,
    pub chip: u32,
    pub die: u32,
    pub plane: u32,
    pub block: u32,
    pub page: u32,
}

impl Geometry {
    pub fn decode(&self, ppn: Ppn) -> PageAddress {
        let page = ppn.0 % self.pages_per_block;
        let block_global = ppn.0 / self.pages_per_block;
        let block = block_global % self.blocks_per_plane;
        let plane_global = block_global / self.blocks_per_plane;
        let plane = plane_global % self.planes_per_die;
        let die_global = plane_global / self.planes_per_die;
        let die = die_global % self.dies_per_chip;
        let chip_global = die_global / self.dies_per_chip;
        let chip = chip_global % self.chips_per_channel;
        let channel = chip_global / self.chips_per_channel;
        PageAddress { channel, chip, die, plane, block, page }
    }

    pub fn encode(&self, a: &PageAddress) -> Ppn {
        let chip_global = a.channel * self.chips_per_channel + a.chip;
        let die_global = chip_global * self.dies_per_chip + a.die;
        let plane_global = die_global * self.planes_per_die + a.plane;
        let block_global = plane_global * self.blocks_per_plane + a.block;
        Ppn(block_global * self.pages_per_block + a.page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nand::CellType;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn encode_decode_round_trip(
            channels in 1u32..5, chips in 1u32..4, dies in 1u32..3, planes in 1u32..3,
            blocks in 1u32..20, pages in 1u32..40, pick in 0u64..u64::MAX,
        ) {
            let g = Geometry { channels, chips_per_channel: chips, dies_per_chip: dies,
                planes_per_die: planes, blocks_per_plane: blocks, pages_per_block: pages,
                page_bytes: 4096, cell: CellType::Tlc };
            let ppn = Ppn((pick % g.pages()) as u32);
            let a = g.decode(ppn);
            prop_assert!(a.channel < channels && a.chip < chips && a.die < dies);
            prop_assert!(a.plane < planes && a.block < blocks && a.page < pages);
            prop_assert_eq!(g.encode(&a), ppn);
            let plane_global = g.plane_of_block(g.block_of(ppn));
            prop_assert_eq!(g.channel_of_plane(plane_global), a.channel);
        }
    }
}
