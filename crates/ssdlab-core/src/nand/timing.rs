//! Layer: nand. Flash operation latencies and the channel rate, as configured and as resolved
//! per page type and block mode. Every operation's time comes from these equations:
//!
//! * read     = command + tR(page type or SLC) on the array unit, then page transfer on the channel
//! * program  = command + page transfer on the channel, then tPROG(page type or SLC) on the unit
//! * wordline = command + n page transfers, then one tPROG_wordline (full-sequence program)
//! * erase    = command on the channel, then tBERS on the unit

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::nand::cell::{BlockMode, CellType};
use crate::units::{transfer_ns, Nanos};

/// Which resource an array operation (read, program, erase) occupies exclusively.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ArrayUnit {
    /// One operation per chip at a time (all its dies and planes wait).
    Chip,
    /// One operation per die.
    Die,
    /// One operation per plane: planes of a die work independently.
    #[default]
    Plane,
}

/// `[device.timing]`: flash latencies as written in a preset or config, in nanoseconds, and the
/// channel rate. A read takes command + tR on the array unit, then the page transfer on the
/// channel; a program command + transfer, then tPROG; an erase command, then tBERS.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TimingConfig {
    /// tR per page type, LSB first. One value applies to every type.
    pub read_ns: Vec<u64>,
    /// tPROG per page type for page-by-page programming, LSB first. One value applies to all.
    pub program_ns: Vec<u64>,
    /// tPROG of a one-shot full-sequence program of a whole wordline. Defaults to the largest
    /// per-type program time.
    #[serde(default)]
    pub program_wordline_ns: Option<u64>,
    /// tBERS: block erase time.
    pub erase_ns: u64,
    /// tR of a block in SLC mode on a multi-level device. Unset: the LSB read time.
    #[serde(default)]
    pub slc_read_ns: Option<u64>,
    /// tPROG of a block in SLC mode on a multi-level device. Unset: the LSB program time.
    #[serde(default)]
    pub slc_program_ns: Option<u64>,
    /// tBERS of a block in SLC mode on a multi-level device. Unset: `erase_ns`.
    #[serde(default)]
    pub slc_erase_ns: Option<u64>,
    /// Channel rate in bytes per second (MB/s x 10^6).
    pub channel_bytes_per_s: u64,
    /// Command and address cycles on the channel before each operation.
    #[serde(default)]
    pub command_ns: u64,
    /// Which resource an array operation occupies: chip, die or plane.
    #[serde(default)]
    pub array_unit: ArrayUnit,
}

/// Resolved latencies: one lookup per operation on the hot path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timing {
    pub read_ns: Vec<Nanos>,
    pub program_ns: Vec<Nanos>,
    pub program_wordline_ns: Nanos,
    pub erase_ns: Nanos,
    pub slc_read_ns: Nanos,
    pub slc_program_ns: Nanos,
    pub slc_erase_ns: Nanos,
    pub command_ns: Nanos,
    /// Time to move one page over the channel.
    pub page_transfer_ns: Nanos,
    pub array_unit: ArrayUnit,
}

impl Timing {
    /// Resolve per-type tables. `cfg` must have been validated (lists of 1 or n values).
    pub fn resolve(cfg: &TimingConfig, cell: CellType, page_bytes: u64) -> Timing {
        let n = cell.bits_per_cell() as usize;
        let per_type = |v: &Vec<u64>| -> Vec<Nanos> {
            if v.len() == 1 {
                vec![v[0]; n]
            } else {
                v.clone()
            }
        };
        let read_ns = per_type(&cfg.read_ns);
        let program_ns = per_type(&cfg.program_ns);
        Timing {
            program_wordline_ns: cfg.program_wordline_ns.unwrap_or_else(|| *program_ns.iter().max().unwrap_or(&0)),
            slc_read_ns: cfg.slc_read_ns.unwrap_or(read_ns[0]),
            slc_program_ns: cfg.slc_program_ns.unwrap_or(program_ns[0]),
            slc_erase_ns: cfg.slc_erase_ns.unwrap_or(cfg.erase_ns),
            read_ns,
            program_ns,
            erase_ns: cfg.erase_ns,
            command_ns: cfg.command_ns,
            page_transfer_ns: transfer_ns(page_bytes, cfg.channel_bytes_per_s),
            array_unit: cfg.array_unit,
        }
    }

    pub fn read(&self, mode: BlockMode, page_type: u32) -> Nanos {
        match mode {
            BlockMode::Slc => self.slc_read_ns,
            BlockMode::Native => self.read_ns[page_type as usize],
        }
    }
    pub fn program(&self, mode: BlockMode, page_type: u32) -> Nanos {
        match mode {
            BlockMode::Slc => self.slc_program_ns,
            BlockMode::Native => self.program_ns[page_type as usize],
        }
    }
    pub fn erase(&self, mode: BlockMode) -> Nanos {
        match mode {
            BlockMode::Slc => self.slc_erase_ns,
            BlockMode::Native => self.erase_ns,
        }
    }
}
