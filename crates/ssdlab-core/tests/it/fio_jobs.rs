//! fio's independent jobs (`numjobs` with `offset_increment`): in closed loop each job issues
//! its next request when one of its own completes, so jobs at one offset go over the same data
//! (as fio's threads do) and a slow job does not hold a fast one back.

use std::sync::{Arc, Mutex};

use crate::common::config;
use ssdlab_core::units::Lpn;
use ssdlab_core::workload::request::RecordSource;
use ssdlab_core::workload::{IoOp, TraceRecord};
use ssdlab_core::Simulation;

const REQUESTS: u64 = 4000;

/// `numjobs = 4` sequential jobs from offset 0 in verify mode on `tiny`, without warm-up: the
/// run completes every request, and the pages it touched (its footprint) are about a quarter of
/// the pages requested, since every job starts at page 0 with a cursor of its own. With the
/// increment unset the jobs share one stream and touch a new page with every request.
#[test]
fn jobs_at_one_offset_retouch_the_same_pages() {
    for rw in ["read", "write"] {
        let footprint = |increment: &str| {
            let toml = format!(
                "verify = true\n[workload]\nrw = \"{rw}\"\nbs = \"4k\"\nnumjobs = 4\ncount = {REQUESTS}\n{increment}"
            );
            let cfg = config("tiny", &toml, &[]);
            let used = cfg.used_logical_pages();
            let mut sim = Simulation::new(cfg).expect("simulation builds");
            let r = sim.run().expect("simulation runs");
            assert_eq!((r.workload.requests, r.verify.final_scan_passed), (REQUESTS, true), "{rw} {increment}");
            if rw == "read" {
                // Each page read for the first time is mapped on that read (map_on_read).
                assert_eq!(r.ftl.host_read_pages, REQUESTS);
                r.ftl.premapped_pages
            } else {
                assert_eq!(r.ftl.host_write_pages, REQUESTS);
                (0..used).filter(|&l| sim.ftl().mapping().peek(Lpn(l)).is_some()).count() as u64
            }
        };
        let own = footprint("offset_increment = 0\n");
        assert!((REQUESTS / 4..REQUESTS / 2).contains(&own), "{rw}: {own} pages touched by {REQUESTS} requests");
        assert_eq!(footprint(""), REQUESTS, "{rw}: one shared stream touches a new page each time");
    }
}

/// Two jobs whose requests take very different times, behind a source that records which job
/// each request was asked for: job 0 writes 128 KiB to flash, job 1 reads 4 KiB that was never
/// written (free with `ftl.unwritten_reads = "free"`), one outstanding each. Each asks again only
/// when its own request completes, so the fast job issues many times as many requests; a stream
/// shared in turn would give them equal shares.
#[test]
fn a_fast_job_is_not_held_back_by_a_slow_one() {
    struct TwoJobs {
        asked: Arc<Mutex<Vec<u32>>>,
        left: u64,
        cursors: [u64; 2],
    }
    impl RecordSource for TwoJobs {
        fn next_record(&mut self) -> ssdlab_core::Result<Option<TraceRecord>> {
            panic!("a closed loop of independent jobs asks by job")
        }
        fn jobs(&self) -> Option<u32> {
            Some(2)
        }
        fn next_record_of(&mut self, job: u32) -> ssdlab_core::Result<Option<TraceRecord>> {
            if self.left == 0 {
                return Ok(None);
            }
            self.left -= 1;
            self.asked.lock().unwrap().push(job);
            let (op, size_bytes) = if job == 0 { (IoOp::Write, 128 << 10) } else { (IoOp::Read, 4 << 10) };
            let offset_bytes = (job as u64) * (32 << 20) + self.cursors[job as usize];
            self.cursors[job as usize] += size_bytes;
            Ok(Some(TraceRecord { time_ns: 0, op, offset_bytes, size_bytes, device: 0 }))
        }
    }
    let toml = "[ftl]\nunwritten_reads = \"free\"\n[workload]\nnumjobs = 2\noffset_increment = 0\n";
    let cfg = config("tiny", toml, &[]);
    let asked = Arc::new(Mutex::new(Vec::new()));
    let source = TwoJobs { asked: asked.clone(), left: 2000, cursors: [0, 0] };
    let report = Simulation::with_source(cfg, Box::new(source)).unwrap().run().unwrap();
    assert_eq!(report.workload.requests, 2000);
    let asked = asked.lock().unwrap();
    assert_eq!(asked[..2], [0, 1], "start-up: one slot per job");
    let fast = asked.iter().filter(|&&j| j == 1).count();
    assert!(fast > 4 * (asked.len() - fast), "job 1 asked {fast} of {} times", asked.len());
}
