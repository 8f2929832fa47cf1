//! Layer: workload. fio's job layout for synthetic workloads: the part of the working set each
//! job reads and writes (`offset`, `offset_increment`, `size`). The generator draws inside these
//! regions and config validation refuses one that leaves the working set, both through
//! `job_regions`, so the two cannot disagree.

use crate::error::{ConfigProblem, Error, Result};
use crate::workload::config::WorkloadConfig;

/// One job's region: `slots` blocks of `bs` bytes from `start_bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobRegion {
    pub start_bytes: u64,
    pub slots: u64,
}

/// The working set in bytes: `working_set` of the used logical space (`space_bytes`).
pub fn working_set_bytes(cfg: &WorkloadConfig, space_bytes: u64) -> u64 {
    ((space_bytes as f64) * cfg.working_set) as u64
}

/// Whether the jobs run as independent streams, as fio's threads do: `offset_increment` set and
/// more than one job. Otherwise they share one stream over one region (the behaviour before
/// these keys existed, kept for configs that do not set them).
pub fn independent(cfg: &WorkloadConfig) -> bool {
    cfg.offset_increment.is_some() && cfg.numjobs > 1
}

/// The jobs' regions: one per job when they are `independent`, job j's starting at
/// `offset + j x offset_increment`, else the one region they share; each spans `size` bytes, or
/// the rest of the working set when unset. A region that starts or ends beyond the working set
/// is refused, naming the key and its value.
pub fn job_regions(cfg: &WorkloadConfig, space_bytes: u64) -> Result<Vec<JobRegion>> {
    let ws = working_set_bytes(cfg, space_bytes) as u128;
    let bs = cfg.bs.0.max(1) as u128;
    let jobs = if independent(cfg) { cfg.numjobs as u128 } else { 1 };
    let offset = cfg.offset.0 as u128;
    let increment = if jobs > 1 { cfg.offset_increment.map_or(0, |b| b.0) as u128 } else { 0 };
    // Starts grow with the job number, so the last job's region is the one that can leave.
    let last_start = offset + (jobs - 1) * increment;
    let last = if jobs > 1 { format!("job {} of {jobs}", jobs - 1) } else { "the jobs' region".into() };
    let mut problems = Vec::new();
    let mut refuse = |key: &str, reason: String| problems.push(ConfigProblem { key: key.into(), reason });
    // With offset 0 a working set below one block is `working_set`'s problem, reported there.
    if offset > 0 && offset + bs > ws {
        refuse(
            "workload.offset",
            format!(
                "= {offset} bytes leaves no room for one {bs}-byte block (workload.bs) in the {ws}-byte working set"
            ),
        );
    } else if increment > 0 && last_start + bs > ws {
        refuse(
            "workload.offset_increment",
            format!(
                "= {increment} bytes starts {last} at byte {last_start}, leaving no room for one {bs}-byte block \
                 (workload.bs) in the {ws}-byte working set"
            ),
        );
    } else if let Some(size) = cfg.size {
        let size = size.0 as u128;
        if size < bs {
            refuse("workload.size", format!("= {size} bytes is smaller than one block of workload.bs ({bs} bytes)"));
        } else if last_start + size > ws {
            refuse(
                "workload.size",
                format!(
                    "= {size} bytes takes {last} (from byte {last_start}) to byte {}, beyond the {ws}-byte working set",
                    last_start + size
                ),
            );
        }
    }
    if !problems.is_empty() {
        return Err(Error::Config { path: None, problems });
    }
    Ok((0..jobs)
        .map(|j| {
            let start = offset + j * increment;
            let span = cfg.size.map_or(ws - start.min(ws), |s| s.0 as u128);
            // Every start and span is below `ws` (a u64) once the checks above passed.
            JobRegion { start_bytes: start as u64, slots: ((span / bs) as u64).max(1) }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::ByteSize;

    const MIB: u64 = 1 << 20;

    fn regions(offset: u64, increment: Option<u64>, size: Option<u64>) -> Result<Vec<JobRegion>> {
        let cfg = WorkloadConfig {
            numjobs: 3,
            bs: ByteSize(4096),
            offset: ByteSize(offset),
            offset_increment: increment.map(ByteSize),
            size: size.map(ByteSize),
            ..Default::default()
        };
        job_regions(&cfg, 64 * MIB)
    }

    fn region(start_bytes: u64, slots: u64) -> JobRegion {
        JobRegion { start_bytes, slots }
    }

    #[test]
    fn jobs_get_their_regions_in_fio_terms() {
        // Unset increment: one shared region, from `offset` to `size` or the end.
        assert_eq!(regions(0, None, None).unwrap(), [region(0, 16384)]);
        assert_eq!(regions(MIB, None, Some(MIB)).unwrap(), [region(MIB, 256)]);
        // fio's default for jobs on one device: all at `offset`, each its own.
        assert_eq!(regions(0, Some(0), None).unwrap(), [region(0, 16384); 3]);
        // Side by side, each to the end of the working set or `size` long.
        assert_eq!(
            regions(0, Some(16 * MIB), None).unwrap(),
            [region(0, 16384), region(16 * MIB, 12288), region(32 * MIB, 8192)]
        );
        assert_eq!(
            regions(MIB, Some(16 * MIB), Some(16 * MIB)).unwrap(),
            [region(MIB, 4096), region(17 * MIB, 4096), region(33 * MIB, 4096)]
        );
    }

    #[test]
    fn regions_beyond_the_working_set_are_refused_by_key() {
        let problem = |r: Result<Vec<JobRegion>>| match r {
            Err(Error::Config { problems, .. }) => (problems[0].key.clone(), problems[0].reason.clone()),
            other => panic!("expected a config error, got {other:?}"),
        };
        let (key, reason) = problem(regions(64 * MIB, Some(0), None));
        assert_eq!(key, "workload.offset");
        assert!(reason.contains("= 67108864 bytes") && reason.contains("67108864-byte working set"), "{reason}");
        let (key, reason) = problem(regions(0, Some(32 * MIB), None));
        assert_eq!(key, "workload.offset_increment");
        assert!(reason.contains("job 2 of 3 at byte 67108864"), "{reason}");
        let (key, reason) = problem(regions(0, Some(16 * MIB), Some(32 * MIB + 4096)));
        assert_eq!(key, "workload.size");
        assert!(reason.contains("job 2 of 3 (from byte 33554432) to byte 67112960"), "{reason}");
        assert_eq!(problem(regions(0, None, Some(100))).0, "workload.size");
        // The last job may end exactly at the end of the working set.
        assert!(regions(0, Some(16 * MIB), Some(32 * MIB)).is_ok());
    }
}
