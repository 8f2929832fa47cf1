//! Layer: ftl. The block manager's unit tests: write points, pools, seal order, census, lines,
//! the valid-count index.

use super::test_support::{empty_and_erase, geometry, sealed_block, write};
use super::*;

const P0: PlaneId = PlaneId(0);
const P1: PlaneId = PlaneId(1);

#[test]
fn write_points_are_per_stream_and_plane() {
    // 2 planes x 4 blocks x 3 pages: plane 0 holds blocks 0-3, plane 1 blocks 4-7.
    let mut bm = BlockManager::new(geometry(2, 4, 3), 1);
    let g = bm.geometry().clone();
    let at = |b: u32, p: u32| Some(g.ppn(BlockId(b), p));
    assert_eq!(bm.allocate(HOST, P0, 0), at(0, 0));
    assert_eq!(bm.allocate(HOST, P0, 0), at(0, 1));
    // GC opens its own block on the same plane: relocated data does not mix with host data.
    assert_eq!(bm.allocate(GC, P0, 0), at(1, 0));
    assert_eq!(bm.allocate(HOST, P1, 0), at(4, 0));
    assert_eq!(bm.allocate(HOST, P0, 0), at(0, 2));
    assert_eq!(bm.state(BlockId(0)), BlockState::Sealed, "its last page written");
    assert_eq!(bm.allocate(HOST, P0, 0), at(2, 0), "next free block of plane 0");
    assert_eq!(bm.allocate(GC, P0, 0), at(1, 1), "GC continues in its own block");
    for (b, state) in [(1, BlockState::Open), (2, BlockState::Open), (3, BlockState::Free), (4, BlockState::Open)] {
        assert_eq!(bm.state(BlockId(b)), state, "block {b}");
    }
    assert_eq!(bm.written(BlockId(1)), 2);
    assert_eq!(bm.free_blocks(), 4, "blocks 3, 5, 6, 7");
}

#[test]
fn host_writes_leave_each_plane_its_gc_reserve() {
    let mut bm = BlockManager::new(geometry(2, 4, 3), 1);
    assert_eq!((bm.free_blocks(), bm.host_free_blocks()), (8, 6), "one block per plane is GC's");
    // The host fills blocks 0, 1, 2 of plane 0: plane 0 is down to its reserve.
    write(&mut bm, HOST, P0, 0..6, 0);
    assert_eq!((bm.free_blocks(), bm.host_free_blocks()), (6, 4));
    assert!(bm.has_room(HOST, P0, 1), "block 2 is still open");
    write(&mut bm, HOST, P0, 6..9, 0);
    assert_eq!((bm.free_blocks_in(P0), bm.free_blocks(), bm.host_free_blocks()), (1, 5, 3));
    assert!(!bm.has_room(HOST, P0, 1), "only the reserve is left on plane 0");
    assert!(bm.has_room(HOST, P1, 1));
    // GC may take the reserve; that does not change what the host may open.
    assert!(bm.has_room(GC, P0, 0));
    write(&mut bm, GC, P0, 9..10, 0);
    assert_eq!((bm.free_blocks_in(P0), bm.free_blocks(), bm.host_free_blocks()), (0, 4, 3));
    assert_eq!((bm.state(BlockId(3)), bm.written(BlockId(3))), (BlockState::Open, 1));
    assert!(bm.has_room(GC, P0, 0), "GC's open block 3 has pages left");
    assert!(!bm.has_room(HOST, P0, 1), "but the host does not share it");
    // Erasing refills the reserve first; only a block beyond it is the host's again.
    empty_and_erase(&mut bm, BlockId(0));
    assert_eq!((bm.free_blocks(), bm.host_free_blocks()), (5, 3));
    empty_and_erase(&mut bm, BlockId(1));
    assert_eq!((bm.free_blocks(), bm.host_free_blocks()), (6, 4));
    assert!(bm.has_room(HOST, P0, 1));
}

#[test]
fn free_pool_hands_out_the_least_recently_erased_block_first() {
    // One plane of 5 blocks x 2 pages; blocks 0-2 used, then erased in the order 2, 0, 1.
    let mut bm = BlockManager::new(geometry(1, 5, 2), 1);
    write(&mut bm, HOST, P0, 0..6, 0);
    for b in [2, 0, 1] {
        empty_and_erase(&mut bm, BlockId(b));
    }
    // Blocks 3 and 4 (never used) were in the pool before any of them.
    let opened: Vec<u32> = (0..5).map(|i| write(&mut bm, HOST, P0, [10 + 2 * i, 11 + 2 * i], 0)[0].0).collect();
    assert_eq!(opened, [3, 4, 2, 0, 1]);
    assert_eq!(bm.erase_count(BlockId(0)), 1);
    assert_eq!(bm.erase_count(BlockId(3)), 0);
}

#[test]
fn sealed_blocks_queue_in_seal_order_and_a_resealed_block_goes_last() {
    // 2 planes x 4 blocks x 2 pages.
    let mut bm = BlockManager::new(geometry(2, 4, 2), 1);
    let b0 = sealed_block(&mut bm, P0, 2, 10);
    let b4 = sealed_block(&mut bm, P1, 2, 20);
    let b1 = sealed_block(&mut bm, P0, 2, 30);
    assert_eq!((b0.0, b4.0, b1.0), (0, 4, 1));
    assert_eq!((bm.sealed_at(b0), bm.sealed_at(b4), bm.sealed_at(b1)), (10, 20, 30));
    assert_eq!(bm.sealed_blocks(DomainId(0)).map(|b| b.0).collect::<Vec<_>>(), [0, 1, 4], "block order");
    // Block 0 is emptied, erased and (after blocks 2 and 3, earlier in the pool) sealed
    // again, while its first entry is still at the head of the seal queue.
    empty_and_erase(&mut bm, b0);
    let b2 = sealed_block(&mut bm, P0, 2, 40);
    let b3 = sealed_block(&mut bm, P0, 2, 50);
    let again = sealed_block(&mut bm, P0, 2, 60);
    assert_eq!((b2.0, b3.0, again.0), (2, 3, 0));
    let mut order = Vec::new();
    while let Some(b) = bm.oldest_sealed(DomainId(0)) {
        order.push(b.0);
        bm.mark_victim(b);
    }
    assert_eq!(order, [4, 1, 2, 3, 0], "block 0's stale first entry is skipped");
    assert_eq!(bm.sealed_blocks(DomainId(0)).count(), 0, "victims are no longer candidates");
}

#[test]
fn page_census_counts_free_valid_and_invalid_pages() {
    // 2 planes x 4 blocks x 3 pages = 24 pages.
    let mut bm = BlockManager::new(geometry(2, 4, 3), 1);
    assert_eq!(bm.page_census(), (24, 0, 0));
    let blocks = write(&mut bm, HOST, P0, 0..5, 0);
    write(&mut bm, GC, P1, 5..6, 0);
    assert_eq!(blocks, [BlockId(0), BlockId(1)]);
    let g = bm.geometry().clone();
    bm.invalidate(g.ppn(BlockId(0), 1));
    bm.invalidate(g.ppn(BlockId(1), 0));
    // Written 6 (4 valid, 2 invalid); the rest of blocks 1 and 4 and the untouched blocks free.
    assert_eq!(bm.page_census(), (18, 4, 2));
    assert_eq!((bm.valid(BlockId(0)), bm.recount_valid(BlockId(0))), (2, 2));
    assert_eq!((bm.valid(BlockId(1)), bm.recount_valid(BlockId(1))), (1, 1));
    empty_and_erase(&mut bm, BlockId(0));
    assert_eq!(bm.page_census(), (21, 2, 1));
    assert_eq!(bm.next_valid_page(BlockId(1), 0), Some((g.ppn(BlockId(1), 1), Owner::Data(Lpn(4)))));
    assert_eq!(bm.next_valid_page(BlockId(1), 2), None);
}

/// 2 planes x 4 blocks x 2 pages in line mode (GC reserve: one line); streams host and gc.
fn line_manager() -> BlockManager {
    let region = RegionSpec {
        name: "native".into(),
        mode: BlockMode::Native,
        gc_scope: GcScope::Region,
        gc_reserve: 1,
        lines: true,
    };
    let streams = ["host", "gc"].map(|n| StreamSpec { name: n.into(), region: RegionId(0) }).to_vec();
    BlockManager::with_layout(geometry(2, 4, 2), vec![region], streams)
}

#[test]
fn a_line_region_opens_the_same_block_on_every_plane_and_seals_it_whole() {
    let mut bm = line_manager();
    let g = bm.geometry().clone();
    assert_eq!((bm.free_lines(RegionId(0)), bm.line_cursor(HOST)), (4, 0));
    // Row by row: page 0 on plane 0 then plane 1, then page 1. The first allocation takes
    // line 0 (blocks 0 and 4) as a whole.
    assert_eq!(bm.allocate(HOST, P0, 0), Some(g.ppn(BlockId(0), 0)));
    assert_eq!((bm.state(BlockId(4)), bm.free_lines(RegionId(0)), bm.free_blocks()), (BlockState::Open, 3, 6));
    assert_eq!(bm.allocate(HOST, P1, 0), Some(g.ppn(BlockId(4), 0)));
    assert_eq!(bm.allocate(HOST, P0, 0), Some(g.ppn(BlockId(0), 1)));
    assert_eq!(bm.line_cursor(HOST), 3);
    // Block 0 is full but line 0 is not: plane 0 has no room for the stream until the line
    // is used up, and block 0 is not yet a GC candidate.
    assert!(!bm.has_room(HOST, P0, 1));
    assert!(bm.has_room(HOST, P1, 1));
    assert_eq!((bm.state(BlockId(0)), bm.min_valid_sealed(DomainId(0))), (BlockState::Open, None));
    // GC's stream takes its own line (1, the next free one).
    assert_eq!(bm.allocate(GC, P0, 5), Some(g.ppn(BlockId(1), 0)));
    assert_eq!(bm.free_lines(RegionId(0)), 2);
    assert_eq!(bm.allocate(HOST, P1, 7), Some(g.ppn(BlockId(4), 1)));
    for b in [0, 4] {
        assert_eq!((bm.state(BlockId(b)), bm.sealed_at(BlockId(b))), (BlockState::Sealed, 7), "block {b}");
    }
    assert_eq!((bm.sealed_lines(HOST), bm.line_cursor(HOST), bm.line_room(HOST)), (&[0u32][..], 0, 0));
    assert_eq!((bm.line_room(GC), bm.line_cursor(GC)), (3, 1));
    // Free lines 2 and 3: one beyond the host's reserve of one line.
    assert!(bm.has_room(HOST, P0, 1));
    assert_eq!(bm.allocate(HOST, P0, 8), Some(g.ppn(BlockId(2), 0)));
    assert_eq!(bm.free_lines(RegionId(0)), 1);
    assert_eq!(bm.host_free_blocks(), 0, "each plane is down to its reserved block");
}

#[test]
fn a_collected_line_is_free_again_once_every_block_of_it_is_erased() {
    let mut bm = line_manager();
    // Fill line 0 (lpns 0-3), then take it whole as a victim.
    for (k, plane) in [P0, P1, P0, P1].into_iter().enumerate() {
        let ppn = bm.allocate(HOST, plane, 0).unwrap();
        bm.set_owner(ppn, Owner::Data(Lpn(k as u32)));
    }
    assert_eq!(bm.line_census(0), (4, 4));
    bm.invalidate(bm.geometry().ppn(BlockId(4), 0));
    assert_eq!(bm.line_census(0), (3, 4));
    bm.take_sealed_line(HOST, 0);
    assert!(bm.sealed_lines(HOST).is_empty());
    assert_eq!(bm.state(BlockId(0)), BlockState::Victim);
    for b in [BlockId(0), BlockId(4)] {
        for page in 0..2 {
            let ppn = bm.geometry().ppn(b, page);
            if bm.owner(ppn).is_some() {
                bm.invalidate(ppn);
            }
        }
    }
    bm.erase(BlockId(0));
    assert_eq!(bm.free_lines(RegionId(0)), 3, "half a line is not a free line");
    bm.erase(BlockId(4));
    assert_eq!(bm.free_lines(RegionId(0)), 4);
    // Lines are handed out least recently freed first: 1, 2, 3, then 0.
    let opened: Vec<u32> = (0..4)
        .map(|_| {
            let ppn = bm.allocate(GC, P0, 0).unwrap();
            let b = bm.geometry().block_of(ppn);
            for plane in [P0, P1] {
                while bm.has_room(GC, plane, 0) && bm.line_cursor(GC) > 0 {
                    bm.allocate(GC, plane, 0).unwrap();
                }
            }
            b.0
        })
        .collect();
    assert_eq!(opened, [1, 2, 3, 0]);
}

#[test]
fn moving_a_free_block_out_of_a_line_region_breaks_its_line() {
    let slc =
        RegionSpec { name: "slc".into(), mode: BlockMode::Slc, gc_scope: GcScope::Region, gc_reserve: 0, lines: false };
    let mut bm = line_manager();
    let streams = vec![StreamSpec { name: "host".into(), region: RegionId(0) }];
    let mut regions = vec![bm.region_spec(RegionId(0)).clone(), slc];
    regions[0].gc_reserve = 0;
    bm = BlockManager::with_layout(bm.geometry().clone(), regions, streams);
    assert_eq!(bm.free_lines(RegionId(0)), 4);
    // The most recently erased block of plane 1 (its last, block 7 = line 3) leaves.
    assert_eq!(bm.move_free_block(RegionId(0), RegionId(1), P1), Some(BlockId(7)));
    assert_eq!(bm.free_lines(RegionId(0)), 3);
    assert_eq!(bm.move_free_block(RegionId(1), RegionId(0), P1), Some(BlockId(7)));
    assert_eq!(bm.free_lines(RegionId(0)), 4, "whole again");
}

#[test]
fn greedy_index_follows_invalidations_and_ties_go_to_the_latest_arrival() {
    let mut bm = BlockManager::new(geometry(1, 6, 4), 1);
    let b0 = sealed_block(&mut bm, P0, 3, 0);
    let b1 = sealed_block(&mut bm, P0, 2, 0);
    let b2 = sealed_block(&mut bm, P0, 4, 0);
    assert_eq!(bm.min_valid_sealed(DomainId(0)), Some(b1));
    // Block 0 reaches 2 valid pages after block 1 did: among equals the latest arrival wins.
    bm.invalidate(bm.geometry().ppn(b0, 0));
    assert_eq!(bm.min_valid_sealed(DomainId(0)), Some(b0));
    // Open blocks are never candidates, however empty.
    write(&mut bm, HOST, P0, [100], 0);
    bm.invalidate(bm.geometry().ppn(BlockId(3), 0));
    assert_eq!(bm.min_valid_sealed(DomainId(0)), Some(b0));
    bm.mark_victim(b0);
    assert_eq!(bm.min_valid_sealed(DomainId(0)), Some(b1));
    bm.mark_victim(b1);
    assert_eq!(bm.min_valid_sealed(DomainId(0)), Some(b2));
}
