//! The FTL's allocation under pressure: emergency reclaim, a device without spare, random
//! overwrites at every fill level; FTLs built directly over tiny geometries.

use super::*;
use crate::config::UnwrittenReads;
use crate::error::Error;
use crate::ftl::blocks::test_support::geometry;
use crate::ftl::blocks::{GcScope, RegionSpec, StreamId, StreamSpec};
use crate::ftl::gc::victim::GreedyVictim;
use crate::ftl::gc::GcAction;
use crate::ftl::gc::{GcObservation, VictimPolicy};
use crate::ftl::host::BufferSettings;
use crate::ftl::mapping::page::PageMapping;
use crate::ftl::placement::Placement;
use crate::ftl::region::NATIVE;
use crate::ftl::store::{Placer, Streams};
use crate::nand::{BlockMode, Geometry};
use crate::registry;
use crate::units::BlockId;

/// Never asks for GC: only the FTL's own emergency reclaim frees space.
#[derive(Clone)]
struct NoGc;

impl GcScheduler for NoGc {
    fn before_serve(&mut self, _obs: &GcObservation) -> GcAction {
        GcAction::Nothing
    }
    fn after_serve(&mut self, _obs: &GcObservation, _response_ns: u64) -> GcAction {
        GcAction::Nothing
    }
}

/// Where host pages go in these tests: dynamic placement with region-wide GC, or static
/// (CWDP) placement, which needs GC within planes.
#[derive(Debug, Clone, Copy)]
enum Allocation {
    Dynamic,
    Static,
}

/// An FTL over `g` with `logical_pages` of logical space, in verify mode, built directly:
/// config validation would refuse a device whose logical space leaves GC too little room,
/// which is what some of these tests need.
fn ftl(g: Geometry, logical_pages: u32, victim: Box<dyn VictimPolicy>, allocation: Allocation) -> (Ftl, Device) {
    let device = crate::device::test_device(&g, 0);
    let (placement, scope): (Box<dyn Placement>, GcScope) = match allocation {
        Allocation::Dynamic => (Box::new(placement::dynamic::DynamicPlacement::new(&g)), GcScope::Region),
        Allocation::Static => (Box::new(placement::static_cwdp::StaticPlacement::new(&g)), GcScope::Plane),
    };
    let region = RegionSpec {
        name: "native".into(),
        mode: BlockMode::Native,
        gc_scope: scope,
        gc_reserve: GC_RESERVE_BLOCKS,
        lines: false,
    };
    let stream_specs =
        ["host", "gc", "map", "migration"].iter().map(|n| StreamSpec { name: n.to_string(), region: NATIVE }).collect();
    let streams =
        Streams { host: vec![StreamId(0)], gc: vec![StreamId(1)], map: StreamId(2), migration: vec![StreamId(3)] };
    let ftl = Ftl {
        store: Store {
            blocks: BlockManager::with_layout(g.clone(), vec![region], stream_specs),
            mapping: Box::new(PageMapping::new(logical_pages)),
            placer: Placer::new(placement, 0..0, None, streams, vec![1]),
            verify: Some(Verifier::new(logical_pages, g.pages())),
            stats: FtlStats::for_geometry(&g),
            region_stats: vec![region::RegionStats::default()],
        },
        host: HostPath::new(None, BufferSettings::default(), UnwrittenReads::Free, logical_pages),
        reclaimer: Reclaimer::new((victim, "test victim"), Box::new(NoGc), scope, blocks::DomainId(0), (1, 2), false),
        regions: RegionManager::new(Box::new(region::none::NoRegions), logical_pages as u64, 0.0),
        // Names only (these tests read no report): the policies above are built by hand.
        policies: crate::ftl::Policies::resolve(&crate::catalog::load(Some("tiny"), &[], &[]).unwrap()).unwrap(),
        last_arrival: None,
        busy_until: 0,
    };
    (ftl, device)
}

/// Serve a one-page request (a whole page) at 1 ms per request.
fn serve(ftl: &mut Ftl, device: &mut Device, seq: u64, op: IoOp, lpn: u32) -> Result<SimTime> {
    let request =
        PageRequest { seq, op, lpns: &[Lpn(lpn)], partial_head: false, partial_tail: false, size_bytes: 4096 };
    ftl.serve(&request, seq * 1_000_000, device)
}

const VICTIMS: [&str; 3] = ["greedy", "fifo", "cost_benefit"];

fn victim(id: &str) -> Box<dyn VictimPolicy> {
    let cfg = crate::load_config(Some("tiny"), &[], &[]).unwrap();
    (registry::find(gc::victim::REGISTRY, "gc.victim", id).unwrap().build)(&cfg).unwrap()
}

#[test]
fn emergency_reclaim_takes_victims_until_the_host_has_room() {
    // One plane of 8 blocks x 4 pages; 16 logical pages; block 7 is the plane's GC reserve.
    let (mut ftl, mut dev) = ftl(geometry(1, 8, 4), 16, Box::new(GreedyVictim), Allocation::Dynamic);
    // Fill (blocks 0-3), then overwrite so that blocks 0-5 hold 2 valid pages each and
    // block 6 holds 4: the host has used all 7 blocks it may use.
    let writes = (0..16).chain([0, 1, 4, 5, 8, 9, 12, 13, 0, 4, 8, 12]);
    for (seq, lpn) in writes.enumerate() {
        serve(&mut ftl, &mut dev, seq as u64 + 1, IoOp::Write, lpn).unwrap();
    }
    let valid: Vec<u32> = (0..8).map(|b| ftl.store.blocks.valid(BlockId(b))).collect();
    assert_eq!(valid, [2, 2, 2, 2, 2, 2, 4, 0]);
    assert_eq!((ftl.store.blocks.free_blocks(), ftl.store.blocks.host_free_blocks()), (1, 0));
    assert_eq!(ftl.reclaimer.stats.emergency_reclaims, 0);

    // The next write finds no room. Greedy's first victim is block 5 (the last block to
    // reach 2 valid pages): GC opens the reserve (block 7) for its 2 pages and erases it,
    // which only refills the reserve; the second victim, block 4, fills block 7 and its
    // erase gives the host a block. The write lands in block 5, erased first.
    serve(&mut ftl, &mut dev, 29, IoOp::Write, 2).unwrap();
    let g = ftl.store.blocks.geometry().clone();
    let gc = &ftl.reclaimer.stats;
    assert_eq!((gc.emergency_reclaims, gc.victims_reclaimed, gc.pages_copied), (1, 2, 4));
    let moved: Vec<Option<u32>> =
        (0..4).map(|p| ftl.store.blocks.data_owner(g.ppn(BlockId(7), p)).map(|l| l.0)).collect();
    assert_eq!(moved, [Some(9), Some(13), Some(1), Some(5)]);
    assert_eq!(ftl.store.mapping.peek(Lpn(2)), Some(g.ppn(BlockId(5), 0)));
    assert_eq!(ftl.store.blocks.state(BlockId(4)), blocks::BlockState::Free);
    assert_eq!((ftl.store.blocks.erase_count(BlockId(4)), ftl.store.blocks.erase_count(BlockId(5))), (1, 1));
    assert_eq!((ftl.store.stats.gc_reads, ftl.store.stats.gc_programs, dev.counters().erases), (4, 4, 2));
    ftl.final_verify().unwrap();
}

/// Run `f` on its own thread and give it 10 s (it needs milliseconds): a reclaim loop that
/// never ends fails the test instead of hanging the suite.
fn without_hanging<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(f()));
    match rx.recv_timeout(std::time::Duration::from_secs(10)) {
        Ok(v) => v,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("still running after 10 s: a hang"),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => panic!("panicked (see above)"),
    }
}

#[test]
fn a_device_without_spare_ends_full_not_hung() {
    // 2 planes x 4 blocks x 4 pages = 32 pages, all of them logical: the host may use 3
    // blocks per plane (24 pages); the 25th distinct page cannot be written. Reclaiming a
    // full block gains nothing, so without the DeviceFull check GC would loop forever.
    for kind in VICTIMS {
        for allocation in [Allocation::Dynamic, Allocation::Static] {
            without_hanging(move || {
                let (mut ftl, mut dev) = ftl(geometry(2, 4, 4), 32, victim(kind), allocation);
                let id = ftl.victim_id();
                for lpn in 0..24 {
                    serve(&mut ftl, &mut dev, lpn as u64 + 1, IoOp::Write, lpn).unwrap();
                }
                let err = serve(&mut ftl, &mut dev, 25, IoOp::Write, 24).unwrap_err();
                assert!(matches!(err, Error::DeviceFull { .. }), "{id}: {err}");
                assert!(err.to_string().contains("every sealed block holds only valid pages"), "{id}: {err}");
                assert_eq!(ftl.reclaimer.stats.emergency_reclaims, 1, "{id}");
                // Nothing was lost on the way: every written page still reads back.
                ftl.final_verify().unwrap();
                for lpn in 0..24 {
                    serve(&mut ftl, &mut dev, 100 + lpn as u64, IoOp::Read, lpn).unwrap();
                }
                assert_eq!((ftl.verify_reads_checked(), ftl.store.stats.unmapped_read_pages), (Some(24), 0), "{id}");
            });
        }
    }
}

#[test]
fn warm_up_fill_of_a_device_without_spare_ends_full() {
    // The warm-up's fill is where an oversized logical space would overflow first.
    let err = without_hanging(|| {
        let (mut ftl, mut dev) = ftl(geometry(2, 4, 4), 32, Box::new(GreedyVictim), Allocation::Dynamic);
        for lpn in 0..24 {
            ftl.warm_write(Lpn(lpn), &mut dev).unwrap();
        }
        let err = ftl.warm_write(Lpn(24), &mut dev).unwrap_err();
        ftl.final_verify().unwrap();
        err
    });
    assert!(matches!(err, Error::DeviceFull { .. }), "{err}");
}

#[test]
fn random_overwrites_at_every_fill_level_keep_up_or_end_full_with_data_intact() {
    use rand::{Rng, SeedableRng};
    // 2 planes x 4 blocks x 4 pages, logical space from 1 page to all the host may write
    // (24 pages): one fill, then random overwrites, 3000 writes in all. Whatever the
    // outcome, nothing may panic, hang or break an invariant, and every page written must
    // read back. Up to 8 logical pages GC must keep up: that is what config validation's
    // budget of 3 working blocks per plane (GC reserve, host and GC write points) leaves on
    // 4-block planes. (All three policies in fact keep up to 16 pages here.)
    for kind in VICTIMS {
        for logical in 1..=24u32 {
            without_hanging(move || {
                let (mut ftl, mut dev) = ftl(geometry(2, 4, 4), logical, victim(kind), Allocation::Dynamic);
                let id = ftl.victim_id();
                let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(logical as u64);
                let mut written = 0u32;
                for seq in 1..=3000u64 {
                    let lpn = if seq <= logical as u64 { seq as u32 - 1 } else { rng.gen_range(0..logical) };
                    match serve(&mut ftl, &mut dev, seq, IoOp::Write, lpn) {
                        Ok(_) => written = written.max(lpn + 1),
                        Err(Error::DeviceFull { .. }) if logical > 8 => break,
                        Err(e) => panic!("{id}, {logical} logical pages, write {seq}: {e}"),
                    }
                }
                ftl.final_verify().unwrap();
                for lpn in 0..written {
                    serve(&mut ftl, &mut dev, 10_000 + lpn as u64, IoOp::Read, lpn).unwrap();
                }
                assert_eq!(ftl.store.stats.unmapped_read_pages, 0, "{id}, {logical} logical pages");
            });
        }
    }
}
