//! Layer: device. The `fcfs` transaction scheduler (`transaction_scheduler.policy = "fcfs"`, the
//! default): every operation is booked when the FTL issues it, at the earliest time from its
//! ready time on when its unit and channel are idle (`Resources`), so background GC copies
//! issued before a host read are served before it. This is what the RLGC and Lazy-RTGC papers'
//! simulators do. It holds nothing, so it keeps no state.

use super::{Erase, PageCopy, PageRead, Program, TransactionScheduler};
use crate::device::{Resources, Source};
use crate::units::SimTime;

/// Booking when issued.
#[derive(Debug, Clone, Copy)]
pub struct Fcfs;

impl TransactionScheduler for Fcfs {
    fn read(&mut self, res: &mut Resources, op: PageRead, ready: SimTime, source: Source) -> SimTime {
        res.book_read(op.ppn, op.mode, op.page_type, ready, source, None)
    }

    fn program(&mut self, res: &mut Resources, op: Program, ready: SimTime, source: Source) -> SimTime {
        res.book_program(op.block, op.pages, op.t_prog_ns, ready, source).1
    }

    fn erase(&mut self, res: &mut Resources, op: Erase, ready: SimTime, source: Source) -> SimTime {
        res.book_erase(op.block, op.mode, ready, source).1
    }

    /// The read, then the program once the read's data is out.
    fn copy(&mut self, res: &mut Resources, op: PageCopy, ready: SimTime, source: Source) -> SimTime {
        let read_done = res.book_read(op.old, op.old_mode, op.old_page_type, ready, source, None);
        let t_prog_ns = res.program_ns(op.new, op.new_mode);
        res.book_program(res.geometry.block_of(op.new), 1, t_prog_ns, read_done, source).1
    }
}
