//! Layer: nand. Cell types, page types within a wordline, and block modes.
//!
//! A wordline of an n-bit cell holds n pages of different types. Pages of a block are numbered
//! wordline-major: page p lies on wordline p / n and has type p % n (0 = LSB ... n-1 = MSB).
//! A block of a multi-level device can run in SLC mode: it then holds one page per wordline
//! (pages_per_block / n pages) with SLC timings.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Bits stored per cell, hence page types per wordline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CellType {
    /// 1 bit per cell: one page type.
    Slc,
    /// 2 bits per cell: LSB and MSB pages.
    Mlc,
    /// 3 bits per cell: LSB, CSB and MSB pages.
    Tlc,
    /// 4 bits per cell: LSB, CLSB, CMSB and MSB pages.
    Qlc,
}

impl CellType {
    pub const fn bits_per_cell(self) -> u32 {
        match self {
            CellType::Slc => 1,
            CellType::Mlc => 2,
            CellType::Tlc => 3,
            CellType::Qlc => 4,
        }
    }

    /// Conventional names of the page types of one wordline, LSB first.
    pub fn page_type_names(self) -> &'static [&'static str] {
        match self {
            CellType::Slc => &["lsb"],
            CellType::Mlc => &["lsb", "msb"],
            CellType::Tlc => &["lsb", "csb", "msb"],
            CellType::Qlc => &["lsb", "clsb", "cmsb", "msb"],
        }
    }
}

/// How a block is programmed. Chosen when a free block is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BlockMode {
    /// All bits of every cell: the device's native cell type.
    #[default]
    Native,
    /// One bit per cell on a multi-level device: fewer pages, faster operations.
    Slc,
}

/// Page type (0 = LSB) of page `page` of a block in `mode` on a device of cell type `cell`.
pub const fn page_type(cell: CellType, mode: BlockMode, page: u32) -> u32 {
    match mode {
        BlockMode::Slc => 0,
        BlockMode::Native => page % cell.bits_per_cell(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qlc_wordline_holds_four_types_in_order() {
        let types: Vec<u32> = (0..8).map(|p| page_type(CellType::Qlc, BlockMode::Native, p)).collect();
        assert_eq!(types, vec![0, 1, 2, 3, 0, 1, 2, 3]);
        assert_eq!(page_type(CellType::Qlc, BlockMode::Slc, 3), 0);
        assert_eq!(CellType::Qlc.page_type_names()[2], "cmsb");
    }
}
