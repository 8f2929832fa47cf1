//! Layer: nand. Device geometry and the capacity arithmetic derived from it.

use crate::nand::cell::{BlockMode, CellType};
use crate::units::{BlockId, PlaneId, Ppn};

/// Shape of the flash array. Validated on construction from config (all counts >= 1,
/// total pages < 2^32 so page numbers fit the compact u32 tables).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Geometry {
    pub channels: u32,
    pub chips_per_channel: u32,
    pub dies_per_chip: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    /// Pages per block in the native mode of the cell type.
    pub pages_per_block: u32,
    pub page_bytes: u64,
    pub cell: CellType,
}

/// `x / d`, as a shift when `d` is a power of two (block and page counts almost always are):
/// these divisions sit on every page's path, and a hardware divide costs tens of cycles.
#[inline]
fn div(x: u32, d: u32) -> u32 {
    if d.is_power_of_two() {
        x >> d.trailing_zeros()
    } else {
        x / d
    }
}

/// `x % d`, as a mask when `d` is a power of two (see `div`).
#[inline]
fn rem(x: u32, d: u32) -> u32 {
    if d.is_power_of_two() {
        x & (d - 1)
    } else {
        x % d
    }
}

impl Geometry {
    pub fn chips(&self) -> u32 {
        self.channels * self.chips_per_channel
    }
    pub fn dies(&self) -> u32 {
        self.chips() * self.dies_per_chip
    }
    pub fn planes(&self) -> u32 {
        self.dies() * self.planes_per_die
    }
    pub fn blocks(&self) -> u32 {
        self.planes() * self.blocks_per_plane
    }
    pub fn pages(&self) -> u64 {
        self.blocks() as u64 * self.pages_per_block as u64
    }

    /// Pages a block holds when programmed in `mode`.
    pub fn pages_in_mode(&self, mode: BlockMode) -> u32 {
        match mode {
            BlockMode::Native => self.pages_per_block,
            BlockMode::Slc => self.pages_per_block / self.cell.bits_per_cell(),
        }
    }

    #[inline]
    pub fn plane_of_block(&self, block: BlockId) -> PlaneId {
        PlaneId(div(block.0, self.blocks_per_plane))
    }
    #[inline]
    pub fn block_of(&self, ppn: Ppn) -> BlockId {
        BlockId(div(ppn.0, self.pages_per_block))
    }
    #[inline]
    pub fn page_in_block(&self, ppn: Ppn) -> u32 {
        rem(ppn.0, self.pages_per_block)
    }
    pub fn ppn(&self, block: BlockId, page: u32) -> Ppn {
        Ppn(block.0 * self.pages_per_block + page)
    }
    /// A block's index inside its plane (the line it belongs to in line mode).
    #[inline]
    pub fn block_in_plane(&self, block: BlockId) -> u32 {
        rem(block.0, self.blocks_per_plane)
    }
    pub fn first_block_of(&self, plane: PlaneId) -> BlockId {
        BlockId(plane.0 * self.blocks_per_plane)
    }
    /// Channel of a plane (planes are numbered channel-major: channel, chip, die, plane).
    pub fn channel_of_plane(&self, plane: PlaneId) -> u32 {
        plane.0 / (self.chips_per_channel * self.dies_per_chip * self.planes_per_die)
    }
    pub fn chip_of_plane(&self, plane: PlaneId) -> u32 {
        plane.0 / (self.dies_per_chip * self.planes_per_die)
    }
    pub fn die_of_plane(&self, plane: PlaneId) -> u32 {
        plane.0 / self.planes_per_die
    }

    /// The planes in channel-first order: consecutive entries sit on different channels, then
    /// different chips, dies and planes, so striping over this order spreads work widest.
    pub fn channel_first_order(&self) -> Vec<PlaneId> {
        let (c, w, d, p) = (self.channels, self.chips_per_channel, self.dies_per_chip, self.planes_per_die);
        let mut order = Vec::with_capacity(self.planes() as usize);
        for plane in 0..p {
            for die in 0..d {
                for chip in 0..w {
                    for channel in 0..c {
                        order.push(PlaneId(((channel * w + chip) * d + die) * p + plane));
                    }
                }
            }
        }
        order
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g() -> Geometry {
        Geometry {
            channels: 2,
            chips_per_channel: 2,
            dies_per_chip: 1,
            planes_per_die: 2,
            blocks_per_plane: 8,
            pages_per_block: 16,
            page_bytes: 4096,
            cell: CellType::Qlc,
        }
    }

    #[test]
    fn counts_multiply_out() {
        let g = g();
        assert_eq!(g.planes(), 8);
        assert_eq!(g.blocks(), 64);
        assert_eq!(g.pages(), 1024);
        assert_eq!(g.pages_in_mode(BlockMode::Slc), 4);
    }

    #[test]
    fn channel_first_order_alternates_channels() {
        let g = g();
        let order = g.channel_first_order();
        assert_eq!(order.len(), 8);
        let channels: Vec<u32> = order.iter().map(|p| g.channel_of_plane(*p)).collect();
        assert_eq!(channels, vec![0, 1, 0, 1, 0, 1, 0, 1]);
        let mut sorted = order.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 8, "every plane appears once");
    }
}
