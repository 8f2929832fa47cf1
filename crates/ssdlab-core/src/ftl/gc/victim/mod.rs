//! Layer: ftl. Victim selection policies, one file each; `REGISTRY` is the only place that
//! names them (`gc.victim`).

mod cost_benefit;
mod fifo;
mod greedy;
mod group;

pub use cost_benefit::CostBenefitVictim;
pub use fifo::FifoVictim;
pub use greedy::GreedyVictim;
pub use group::GroupVictim;

use crate::config::ValidatedConfig;
use crate::error::Result;
use crate::ftl::gc::VictimPolicy;
use crate::registry::Entry;

/// A victim policy from the run's config (its own table, if it has settings: `[gc.<id>]`).
pub type BuildVictim = fn(&ValidatedConfig) -> Result<Box<dyn VictimPolicy>>;

/// What a victim policy can collect (`Entry::caps`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Collects {
    /// Blocks only (`VictimPolicy::select`).
    Blocks,
    /// Blocks, or lines in a line-mode region (`select_lines` too).
    BlocksOrLines,
    /// A group's sealed lines together (LearnedFTL's group GC, with group placement).
    Groups,
}

/// What the engine asks of a victim policy without naming it (`Entry::caps`).
#[derive(Debug, Clone, Copy)]
pub struct VictimCaps {
    pub collects: Collects,
}

/// `gc.victim`: every victim policy, one line each.
pub const REGISTRY: &[Entry<BuildVictim, VictimCaps>] = &[
    Entry {
        id: "greedy",
        summary: "fewest valid pages",
        build: |_| Ok(Box::new(GreedyVictim)),
        caps: VictimCaps { collects: Collects::BlocksOrLines },
        settings: None,
    },
    Entry {
        id: "fifo",
        summary: "oldest sealed block",
        build: |_| Ok(Box::new(FifoVictim)),
        caps: VictimCaps { collects: Collects::Blocks },
        settings: None,
    },
    Entry {
        id: "cost_benefit",
        summary: "max (1 - u) x age / 2u (Kawaguchi et al.)",
        build: |_| Ok(Box::new(CostBenefitVictim)),
        caps: VictimCaps { collects: Collects::Blocks },
        settings: None,
    },
    Entry {
        id: "group",
        summary: "LearnedFTL's group GC: the group (stream) whose sealed lines hold the most invalid pages",
        build: |c| Ok(Box::new(GroupVictim::new(&group::SETTINGS.decode(&c.policy_tables)?))),
        caps: VictimCaps { collects: Collects::Groups },
        settings: Some(group::SETTINGS),
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftl::blocks::test_support::{geometry, sealed_block, write};
    use crate::ftl::blocks::{BlockManager, DomainId, HOST};
    use crate::ftl::gc::VictimView;
    use crate::units::{BlockId, PlaneId, SimTime};

    const P0: PlaneId = PlaneId(0);

    /// One plane of 4-page blocks; block i is sealed at `blocks[i].1` holding `blocks[i].0`
    /// valid pages. A last block is left open (written, then invalidated: empty but never a
    /// candidate).
    fn device(blocks: &[(u32, SimTime)]) -> BlockManager {
        let mut bm = BlockManager::new(geometry(1, blocks.len() as u32 + 2, 4), 1);
        for (i, &(valid, sealed_at)) in blocks.iter().enumerate() {
            assert_eq!(sealed_block(&mut bm, P0, valid, sealed_at), BlockId(i as u32));
        }
        let open = write(&mut bm, HOST, P0, [1000], 0)[0];
        bm.invalidate(bm.geometry().ppn(open, 0));
        bm
    }

    fn select(policy: &mut dyn VictimPolicy, bm: &mut BlockManager, now: SimTime, min_invalid: f64) -> Option<u32> {
        policy.select(&mut VictimView { blocks: bm, domain: DomainId(0), now }, min_invalid).map(|b| b.0)
    }

    #[test]
    fn greedy_takes_the_fewest_valid_pages() {
        let mut bm = device(&[(3, 0), (1, 10), (2, 20), (4, 30)]);
        assert_eq!(select(&mut GreedyVictim, &mut bm, 100, 0.0), Some(1));
        // Block 1 is 3/4 invalid: it passes a filter of 0.75, not one of 0.8 (and then no
        // other block can, so there is no victim).
        assert_eq!(select(&mut GreedyVictim, &mut bm, 100, 0.75), Some(1));
        assert_eq!(select(&mut GreedyVictim, &mut bm, 100, 0.8), None);
        bm.mark_victim(BlockId(1));
        assert_eq!(select(&mut GreedyVictim, &mut bm, 100, 0.0), Some(2));
    }

    #[test]
    fn greedy_ties_go_to_the_block_that_reached_the_count_last() {
        // Blocks 1 and 2 both hold one valid page; block 2 got there last.
        let mut bm = device(&[(2, 0), (1, 10), (1, 20)]);
        assert_eq!(select(&mut GreedyVictim, &mut bm, 100, 0.0), Some(2));
        // Block 0 drops to one valid page now: the latest arrival again.
        bm.invalidate(bm.geometry().ppn(BlockId(0), 1));
        assert_eq!(select(&mut GreedyVictim, &mut bm, 100, 0.0), Some(0));
    }

    #[test]
    fn fifo_takes_the_oldest_sealed_block_whatever_it_holds() {
        let mut bm = device(&[(4, 10), (0, 20), (2, 30)]);
        assert_eq!(select(&mut FifoVictim, &mut bm, 100, 0.0), Some(0), "full but oldest");
        // The filter applies to FIFO's one candidate: it does not search further.
        assert_eq!(select(&mut FifoVictim, &mut bm, 100, 0.5), None);
        bm.mark_victim(BlockId(0));
        assert_eq!(select(&mut FifoVictim, &mut bm, 100, 0.5), Some(1));
        bm.mark_victim(BlockId(1));
        assert_eq!(select(&mut FifoVictim, &mut bm, 100, 0.5), Some(2), "exactly half invalid passes 0.5");
        bm.mark_victim(BlockId(2));
        assert_eq!(select(&mut FifoVictim, &mut bm, 100, 0.0), None, "the open block is no candidate");
    }

    #[test]
    fn fifo_ties_in_seal_time_go_by_seal_order() {
        let mut bm = device(&[(3, 50), (1, 50)]);
        assert_eq!(select(&mut FifoVictim, &mut bm, 100, 0.0), Some(0));
    }

    #[test]
    fn cost_benefit_weighs_free_space_by_age() {
        // Now = 100. Scores (1 - u) * (age + 1) / (2u), u = valid fraction:
        //   block 0: u = 1/2, sealed at 0  -> 0.5 * 101 / 1.0 = 50.5
        //   block 1: u = 1/4, sealed at 90 -> 0.75 * 11 / 0.5 = 16.5
        //   block 2: u = 1,   sealed at 0  -> 0
        let mut bm = device(&[(2, 0), (1, 90), (4, 0)]);
        assert_eq!(select(&mut GreedyVictim, &mut bm, 100, 0.0), Some(1), "greedy would take the emptier block");
        assert_eq!(select(&mut CostBenefitVictim, &mut bm, 100, 0.0), Some(0), "cost-benefit takes the older one");
        // At now = 90 block 1 is brand new: 0.75 * 1 / 0.5 = 1.5 against block 0's 45.5.
        assert_eq!(select(&mut CostBenefitVictim, &mut bm, 90, 0.0), Some(0));
        // Ages swapped: block 0 sealed at 80 (0.5 * 21 / 1 = 10.5), block 1 at 60
        // (0.75 * 41 / 0.5 = 61.5): the emptier block is now also the better one.
        let mut bm = device(&[(2, 80), (1, 60)]);
        assert_eq!(select(&mut CostBenefitVictim, &mut bm, 100, 0.0), Some(1));
        // The filter drops blocks with too little invalid space before scoring.
        let mut bm = device(&[(2, 0), (1, 90), (4, 0)]);
        assert_eq!(select(&mut CostBenefitVictim, &mut bm, 100, 0.6), Some(1));
        assert_eq!(select(&mut CostBenefitVictim, &mut bm, 100, 0.8), None);
    }

    #[test]
    fn cost_benefit_takes_an_empty_block_outright_and_breaks_ties_by_block_order() {
        // An empty block (u = 0) wins however young; two of them: the lower block number.
        let mut bm = device(&[(1, 0), (0, 99), (0, 99)]);
        assert_eq!(select(&mut CostBenefitVictim, &mut bm, 100, 0.0), Some(1));
        // Equal scores: the first in block order.
        let mut bm = device(&[(4, 0), (2, 50), (2, 50)]);
        assert_eq!(select(&mut CostBenefitVictim, &mut bm, 100, 0.0), Some(1));
        bm.mark_victim(BlockId(1));
        assert_eq!(select(&mut CostBenefitVictim, &mut bm, 100, 0.0), Some(2));
    }

    #[test]
    fn no_sealed_block_no_victim() {
        let mut bm = device(&[]);
        for (i, policy) in [&mut GreedyVictim as &mut dyn VictimPolicy, &mut FifoVictim, &mut CostBenefitVictim]
            .into_iter()
            .enumerate()
        {
            assert_eq!(select(policy, &mut bm, 100, 0.0), None, "policy {i}");
        }
    }
}
