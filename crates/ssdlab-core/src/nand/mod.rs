//! Layer: nand. What a flash device is made of: geometry, addresses, cell and page types,
//! timing tables. Pure data and arithmetic; no state that changes during a run.

pub mod address;
pub mod cell;
pub mod geometry;
pub mod timing;
pub mod vppn;

pub use address::PageAddress;
pub use cell::{BlockMode, CellType};
pub use geometry::Geometry;
pub use timing::{ArrayUnit, Timing, TimingConfig};
