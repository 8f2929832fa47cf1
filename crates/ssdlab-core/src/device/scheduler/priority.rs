//! Layer: device. The `priority` transaction scheduler (`transaction_scheduler.policy = "priority"`, as
//! MQSim's priority scheduler serves host transactions before GC ones).
//!
//! Work no request waits for (GC steps decided after a request, idle-time GC and buffer
//! flushes: the FTL marks it with `Device::set_background`) waits in a FIFO queue per array
//! unit. Everything else (host reads and writes, translation-page traffic, GC a request waits
//! for) is booked when issued, so it goes before queued work and waits only for the operation
//! in progress, or with `suspend_ns` suspends a background program or erase.
//!
//! - **Dispatch is exact in simulated time.** `advance_to(now)` books, per unit in FIFO
//!   order, every queued operation its unit and channel could start before `now`: nothing
//!   issued at or after `now` could have taken that slot. Units are served in the order their
//!   queues filled (deterministic); two units' background work compete for their channel in
//!   that order.
//! - **Dependencies.** A queued operation touches only blocks of its own unit (a copy to
//!   another unit is booked at once), so FIFO order per unit keeps every dependency among
//!   queued work: a copy's read before the erase of its block, an erase before a program into
//!   the freed block. A copy is queued as one operation: its program is booked right after its
//!   read, when it is dispatched (the page goes through the controller's buffer; MQSim queues
//!   the write separately, so a host read can slip between the two there). An erase starts
//!   after every copy out of its block has been programmed.
//! - **Promotion.** An operation booked when issued on a block with queued work first books
//!   that unit's queue up to the last queued operation on the block (a read of a page whose
//!   copy is queued, a write into a block whose erase is queued), as MQSim serves GC that a
//!   user request depends on. This books the unit's earlier queued work too: queues are FIFO.
//! - **Starvation.** Queued work runs in its unit's idle time, which a host load that keeps
//!   the unit busy never leaves. After `max_wait_ns` past its ready time an operation is
//!   booked at once behind what its unit holds (MQSim instead turns GC urgent when free pages
//!   run out; here the FTL already counts a queued erase's block as free, so the bound is in
//!   time).
//! - **Suspension** (`suspend_ns`): a foreground read that arrives while its unit runs a
//!   background program or erase, with nothing booked after it, starts `suspend_ns` later;
//!   the suspended operation resumes after the read's array time plus `resume_ns`, needing
//!   the time it had left, at most `max_suspensions` times. Only background operations are
//!   suspended: a request already holds the end time of a foreground one.
//!
//! Host reads do not overtake host writes: both are booked when issued, because the engine
//! returns a request's completion when it issues it.

use std::collections::VecDeque;

use super::{Erase, PageCopy, PageRead, Program, TransactionScheduler};
use crate::config::SchedulerConfig;
use crate::device::{Resources, Source};
use crate::units::{BlockId, SimTime};

/// A queued background operation.
#[derive(Debug, Clone, Copy)]
enum Op {
    /// A page copy within one unit.
    Copy(PageCopy),
    Program(Program),
    Erase(Erase),
}

#[derive(Debug, Clone, Copy)]
struct Pending {
    op: Op,
    ready: SimTime,
    source: Source,
    /// Issue order (from 1).
    seq: u64,
}

/// The background program or erase a unit runs last (a read may suspend it).
#[derive(Debug, Clone, Copy)]
struct Running {
    start: SimTime,
    end: SimTime,
    block: BlockId,
    /// For a copy's program, the block the page came from (its erase follows the program).
    from: Option<BlockId>,
    source: Source,
    suspensions: u32,
}

#[derive(Debug, Clone, Copy)]
struct Suspend {
    suspend_ns: u64,
    resume_ns: u64,
    max_suspensions: u32,
}

/// The scheduler's state.
#[derive(Debug, Clone)]
pub struct Priority {
    /// Set by the FTL around background work.
    background: bool,
    suspend: Option<Suspend>,
    max_wait_ns: u64,
    queues: Vec<VecDeque<Pending>>,
    /// Units whose queue is not empty, in the order they filled.
    active: Vec<usize>,
    queued: usize,
    seq: u64,
    /// Per block: the issue number of the last queued operation touching it (0: none, or
    /// dispatched already when its unit's queue head is past it).
    last_seq: Vec<u64>,
    /// Per block: when the last booked copy out of it ends programming (its erase waits).
    copies_out_end: Vec<SimTime>,
    /// Per unit: when its queued work would end if nothing came first (the estimate returned
    /// for queued operations).
    estimate_free: Vec<SimTime>,
    running: Vec<Option<Running>>,
}

impl TransactionScheduler for Priority {
    fn read(&mut self, res: &mut Resources, op: PageRead, ready: SimTime, source: Source) -> SimTime {
        let block = res.geometry.block_of(op.ppn);
        self.promote(res, block);
        let start = if self.background { None } else { self.suspend_for_read(res, block, op, ready) };
        res.book_read(op.ppn, op.mode, op.page_type, ready, source, start)
    }

    fn program(&mut self, res: &mut Resources, op: Program, ready: SimTime, source: Source) -> SimTime {
        if self.background {
            return self.defer(res, Op::Program(op), ready, source);
        }
        self.promote(res, op.block);
        res.book_program(op.block, op.pages, op.t_prog_ns, ready, source).1
    }

    fn erase(&mut self, res: &mut Resources, op: Erase, ready: SimTime, source: Source) -> SimTime {
        if self.background {
            // Its real dependency, the copies out of its block, is checked when it is
            // dispatched; `ready` is the FTL's estimate of their end.
            let now = res.now;
            return self.defer(res, Op::Erase(op), now, source);
        }
        self.promote(res, op.block);
        let after_copies = std::mem::take(&mut self.copies_out_end[op.block.index()]);
        res.book_erase(op.block, op.mode, ready.max(after_copies), source).1
    }

    fn copy(&mut self, res: &mut Resources, op: PageCopy, ready: SimTime, source: Source) -> SimTime {
        let (old_block, new_block) = (res.geometry.block_of(op.old), res.geometry.block_of(op.new));
        if self.background && res.locate(old_block).0 == res.locate(new_block).0 {
            return self.defer(res, Op::Copy(op), ready, source);
        }
        // Foreground, or across units: booked now, after what is queued on either block.
        self.promote(res, old_block);
        self.promote(res, new_block);
        self.book_copy(res, op, ready, source).1
    }

    fn set_background(&mut self, background: bool) {
        self.background = background;
    }

    fn advance_to(&mut self, res: &mut Resources, now: SimTime) {
        if self.queued > 0 {
            self.dispatch(res, now);
        }
    }

    fn drain(&mut self, res: &mut Resources) {
        self.dispatch(res, SimTime::MAX);
    }

    /// Back to idle (timing turned on after warm-up, when nothing is queued).
    fn reset(&mut self) {
        self.queues.iter_mut().for_each(VecDeque::clear);
        self.active.clear();
        self.queued = 0;
        self.last_seq.fill(0);
        self.copies_out_end.fill(0);
        self.estimate_free.fill(0);
        self.running.fill(None);
    }

    fn queued(&self) -> usize {
        self.queued
    }
}

impl Priority {
    pub(super) fn new(cfg: &SchedulerConfig, units: usize, blocks: usize) -> Priority {
        Priority {
            background: false,
            suspend: cfg.suspend_ns.map(|suspend_ns| Suspend {
                suspend_ns,
                resume_ns: cfg.resume_ns,
                max_suspensions: cfg.max_suspensions,
            }),
            max_wait_ns: cfg.max_wait_ns,
            queues: vec![VecDeque::new(); units],
            active: Vec::new(),
            queued: 0,
            seq: 0,
            last_seq: vec![0; blocks],
            copies_out_end: vec![0; blocks],
            estimate_free: vec![0; units],
            running: vec![None; units],
        }
    }

    fn pop(&mut self, unit: usize) -> Pending {
        self.queued -= 1;
        self.queues[unit].pop_front().expect("a queued operation")
    }

    /// Book a copy's read, then its program once the data is out: the program's (start, end).
    fn book_copy(&mut self, res: &mut Resources, op: PageCopy, ready: SimTime, source: Source) -> (SimTime, SimTime) {
        let read_done = res.book_read(op.old, op.old_mode, op.old_page_type, ready, source, None);
        let block = res.geometry.block_of(op.new);
        let t_prog = res.program_ns(op.new, op.new_mode);
        let (start, end) = res.book_program(block, 1, t_prog, read_done, source);
        let from = res.geometry.block_of(op.old);
        let out = &mut self.copies_out_end[from.index()];
        *out = (*out).max(end);
        (start, end)
    }

    /// Queue a background operation; returns its estimated end.
    fn defer(&mut self, res: &mut Resources, op: Op, ready: SimTime, source: Source) -> SimTime {
        let t = &res.timing;
        let (block, duration_ns) = match op {
            Op::Copy(c) => {
                let read_ns = t.command_ns + t.read(c.old_mode, c.old_page_type) + t.page_transfer_ns;
                let prog_ns = t.command_ns + t.page_transfer_ns + res.program_ns(c.new, c.new_mode);
                (res.geometry.block_of(c.old), read_ns + prog_ns)
            }
            Op::Program(p) => (p.block, t.command_ns + t.page_transfer_ns * p.pages as u64 + p.t_prog_ns),
            Op::Erase(e) => (e.block, t.command_ns + t.erase(e.mode)),
        };
        let unit = res.locate(block).0;
        let free = res.unit_free_at[unit];
        res.counters.by_source.0[source as usize].queued += 1;
        self.seq += 1;
        let seq = self.seq;
        self.last_seq[block.index()] = seq;
        if let Op::Copy(c) = op {
            self.last_seq[res.geometry.block_of(c.new).index()] = seq;
        }
        if self.queues[unit].is_empty() {
            self.active.push(unit);
        }
        self.queues[unit].push_back(Pending { op, ready, source, seq });
        self.queued += 1;
        let est = &mut self.estimate_free[unit];
        *est = ready.max(free).max(*est) + duration_ns;
        *est
    }

    /// Book queued operations, per unit in FIFO order: those their unit could start before
    /// `limit`, and those that have waited `max_wait_ns` by then.
    fn dispatch(&mut self, res: &mut Resources, limit: SimTime) {
        let max_wait_ns = self.max_wait_ns;
        let mut i = 0;
        while let Some(&unit) = self.active.get(i) {
            while let Some(&p) = self.queues[unit].front() {
                let aged = p.ready.saturating_add(max_wait_ns) <= limit;
                if !aged && self.pending_start(res, &p) >= limit {
                    break;
                }
                let p = self.pop(unit);
                self.commit(res, p);
            }
            i += 1;
        }
        let queues = &self.queues;
        self.active.retain(|&u| !queues[u].is_empty());
    }

    /// Book the queued work of `block`'s unit up to the last queued operation on `block`, so
    /// an operation booked now on it follows that work.
    #[inline]
    fn promote(&mut self, res: &mut Resources, block: BlockId) {
        let last = self.last_seq[block.index()];
        if last == 0 {
            return;
        }
        let unit = res.locate(block).0;
        while self.queues[unit].front().is_some_and(|p| p.seq <= last) {
            let p = self.pop(unit);
            self.commit(res, p);
        }
        self.last_seq[block.index()] = 0;
        if self.queues[unit].is_empty() {
            self.active.retain(|&u| u != unit);
        }
    }

    /// Where a queued operation would start if booked now.
    fn pending_start(&self, res: &Resources, p: &Pending) -> SimTime {
        let t = &res.timing;
        match p.op {
            Op::Copy(c) => {
                let unit_ns = t.command_ns + t.read(c.old_mode, c.old_page_type);
                res.fit_unit(res.geometry.block_of(c.old), false, p.ready, unit_ns, t.command_ns)
            }
            Op::Program(op) => {
                let data_in = t.command_ns + t.page_transfer_ns * op.pages as u64;
                res.fit_unit(op.block, false, p.ready, data_in + op.t_prog_ns, data_in)
            }
            Op::Erase(op) => {
                let ready = p.ready.max(self.copies_out_end[op.block.index()]);
                res.fit_unit(op.block, true, ready, t.command_ns + t.erase(op.mode), t.command_ns)
            }
        }
    }

    fn commit(&mut self, res: &mut Resources, p: Pending) {
        match p.op {
            Op::Copy(c) => {
                let (start, end) = self.book_copy(res, c, p.ready, p.source);
                let (block, from) = (res.geometry.block_of(c.new), res.geometry.block_of(c.old));
                self.note_running(res, block, start, end, Some(from), p.source);
            }
            Op::Program(op) => {
                let (start, end) = res.book_program(op.block, op.pages, op.t_prog_ns, p.ready, p.source);
                self.note_running(res, op.block, start, end, None, p.source);
            }
            Op::Erase(op) => {
                let after_copies = std::mem::take(&mut self.copies_out_end[op.block.index()]);
                let (start, end) = res.book_erase(op.block, op.mode, p.ready.max(after_copies), p.source);
                self.note_running(res, op.block, start, end, None, p.source);
            }
        }
    }

    fn note_running(
        &mut self,
        res: &Resources,
        block: BlockId,
        start: SimTime,
        end: SimTime,
        from: Option<BlockId>,
        source: Source,
    ) {
        if self.suspend.is_some() {
            let unit = res.locate(block).0;
            self.running[unit] = Some(Running { start, end, block, from, source, suspensions: 0 });
        }
    }

    /// A foreground read `op` of `block` ready at `ready`: if its unit then runs a background
    /// program or erase with nothing booked after it, suspend that operation and return the
    /// read's command start; None if the read cannot suspend (it is then booked as usual).
    fn suspend_for_read(
        &mut self,
        res: &mut Resources,
        block: BlockId,
        op: PageRead,
        ready: SimTime,
    ) -> Option<SimTime> {
        let sus = self.suspend?;
        let (unit, channel) = res.locate(block);
        let r = self.running[unit]?;
        let ready = res.ordered(block, ready, false);
        let suspendable =
            r.start <= ready && ready < r.end && r.end == res.unit_free_at[unit] && r.suspensions < sus.max_suspensions;
        if !suspendable {
            return None;
        }
        let cmd = res.timing.command_ns;
        let read_unit_ns = cmd + res.timing.read(op.mode, op.page_type);
        let start = res.channels[channel].book(ready + sus.suspend_ns, cmd);
        // The suspended operation needs the array time it had left, after the read and the
        // resume cost.
        let end = start + read_unit_ns + sus.resume_ns + (r.end - ready);
        res.unit_free_at[unit] = end;
        res.note_order(r.block, end, true);
        #[cfg(test)]
        if let Some(b) = res.booked.iter_mut().rev().find(|b| b.0 == r.block && b.2 == r.start) {
            b.3 = end;
        }
        let by = &mut res.counters.by_source.0[r.source as usize];
        by.suspensions += 1;
        by.busy_ns += sus.resume_ns;
        res.unit_busy_ns[unit] += sus.resume_ns;
        if let Some(f) = r.from {
            let out = &mut self.copies_out_end[f.index()];
            *out = (*out).max(end);
        }
        self.running[unit] = Some(Running { end, suspensions: r.suspensions + 1, ..r });
        Some(start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::Device;
    use crate::nand::{ArrayUnit, BlockMode};
    use crate::units::Ppn;
    use proptest::prelude::*;

    const CMD: u64 = 1_000;
    const XFER: u64 = 10_000; // 4 KiB at 409.6 MB/s
    const T_R: [u64; 4] = [90_000, 120_000, 150_000, 180_000];
    const T_PROG: u64 = 1_300_000;
    const T_BERS: u64 = 10_000_000;

    /// The device tests' device (`device::tests::device`); with chip units, blocks 0-7 share
    /// chip 0.
    fn device(policy: &str, suspend_ns: Option<u64>) -> Device {
        device_with(policy, suspend_ns, ArrayUnit::Chip)
    }

    fn device_with(policy: &str, suspend_ns: Option<u64>, array_unit: ArrayUnit) -> Device {
        device_waiting(policy, suspend_ns, array_unit, 10_000_000)
    }

    /// `device_with`, background work booked after at most `max_wait_ns`.
    fn device_waiting(policy: &str, suspend_ns: Option<u64>, array_unit: ArrayUnit, max_wait_ns: u64) -> Device {
        // Blocks 0-7 (all the tests use) are chip 0's two planes.
        let mut d = crate::device::tests::device(array_unit);
        let cfg =
            SchedulerConfig { policy: policy.into(), suspend_ns, resume_ns: 5_000, max_suspensions: 1, max_wait_ns };
        d.set_scheduler(&cfg, &Default::default()).unwrap();
        d
    }

    /// Three background GC copies issued at 0 on the chip: block 0 pages 0-2 to block 1.
    fn three_copies(d: &mut Device) {
        d.set_background(true);
        for page in 0..3 {
            d.copy(Ppn(page), BlockMode::Native, Ppn(8 + page), BlockMode::Native, 0, Source::Gc);
        }
        d.set_background(false);
    }

    /// The host read of the scenario: block 2 page 3 (tR 180 us), arriving at `at`.
    fn host_read(d: &mut Device, at: SimTime) -> SimTime {
        d.advance_to(at);
        d.read(Ppn(2 * 8 + 3), BlockMode::Native, at, Source::Host) - at
    }

    /// The first copy: read [0, 91 us) + data out to 101 us, program data-in [101, 112 us),
    /// array to 1,412 us. A read arriving at 200 us finds that program in progress.
    const FIRST_PROGRAM_END: u64 = CMD + T_R[0] + XFER + CMD + XFER + T_PROG;
    const ARRIVAL: u64 = 200_000;
    const READ: u64 = CMD + T_R[3] + XFER;

    #[test]
    fn priority_read_waits_only_for_the_operation_in_progress() {
        assert_eq!(FIRST_PROGRAM_END, 1_412_000);
        let mut d = device("priority", None);
        three_copies(&mut d);
        assert_eq!(d.queued_operations(), 3);
        let latency = host_read(&mut d, ARRIVAL);
        assert_eq!(latency, FIRST_PROGRAM_END - ARRIVAL + READ);
        // The two copies left follow the read.
        assert_eq!(d.queued_operations(), 2);
        d.drain();
        assert_eq!(d.queued_operations(), 0);
        assert_eq!(d.counters().by_source.get(Source::Gc).reads, 3);
    }

    #[test]
    fn fcfs_read_waits_for_all_three_copies() {
        let mut d = device("fcfs", None);
        three_copies(&mut d);
        assert_eq!(d.queued_operations(), 0, "fcfs books background work when issued");
        // Copy k: read (tR of page type k) + data out, then program; back to back on the chip.
        let copies_end: u64 = (0..3).map(|k| CMD + T_R[k] + XFER + CMD + XFER + T_PROG).sum();
        assert_eq!(host_read(&mut d, ARRIVAL), copies_end - ARRIVAL + READ);
    }

    #[test]
    fn suspend_lets_a_read_in_after_suspend_ns() {
        let mut d = device("priority", Some(20_000));
        three_copies(&mut d);
        assert_eq!(host_read(&mut d, ARRIVAL), 20_000 + READ);
        let gc = *d.counters().by_source.get(Source::Gc);
        assert_eq!(gc.suspensions, 1);
        // The program resumes after the read's array time and the resume cost, with the time
        // it still needed: the next copy's read starts after that.
        let resumed_end = ARRIVAL + 20_000 + CMD + T_R[3] + 5_000 + (FIRST_PROGRAM_END - ARRIVAL);
        d.drain();
        let second_read =
            d.res.booked.iter().filter(|b| b.1 == 0 && b.0 == BlockId(0)).nth(1).expect("second copy read");
        assert!(second_read.2 >= resumed_end, "{} < {resumed_end}", second_read.2);
        // One suspension per operation: a second read waits for the resumed program.
        let mut d = device("priority", Some(20_000));
        three_copies(&mut d);
        host_read(&mut d, ARRIVAL);
        let second = host_read(&mut d, ARRIVAL + 1_000);
        assert!(second > resumed_end - ARRIVAL - 1_000, "waited {second}");
    }

    #[test]
    fn a_read_waits_at_most_suspend_ns_behind_an_erase() {
        let mut d = device("priority", Some(20_000));
        d.set_background(true);
        d.erase(BlockId(3), BlockMode::Native, 0, Source::Gc);
        d.set_background(false);
        assert_eq!(host_read(&mut d, 1_000_000), 20_000 + READ);
        let mut d = device("priority", None);
        d.set_background(true);
        d.erase(BlockId(3), BlockMode::Native, 0, Source::Gc);
        d.set_background(false);
        assert_eq!(host_read(&mut d, 1_000_000), CMD + T_BERS - 1_000_000 + READ);
    }

    #[test]
    fn a_read_of_a_queued_copy_target_promotes_the_copy() {
        let mut d = device("priority", None);
        three_copies(&mut d);
        // Page 9 (block 1) is where copy 1 goes: the read waits for that program.
        d.advance_to(0);
        let done = d.read(Ppn(9), BlockMode::Native, 0, Source::Host);
        let program = d.res.booked.iter().filter(|b| b.1 == 1 && b.0 == BlockId(1)).nth(1).expect("copy 1's program");
        assert!(done > program.3, "read done {done} before the copy's program ended {}", program.3);
    }

    #[test]
    fn background_work_waits_at_most_max_wait_ns_under_a_saturating_host_load() {
        for (max_wait_ns, queued_after) in [(10_000_000, 0), (u64::MAX, 3)] {
            let mut d = device_waiting("priority", None, ArrayUnit::Chip, max_wait_ns);
            three_copies(&mut d);
            // Reads of block 2 every 100 us (each holds the chip 181 us): the chip never idles.
            let mut at = 0;
            while at <= 10_100_000 {
                host_read(&mut d, at);
                at += 100_000;
            }
            assert_eq!(d.queued_operations(), queued_after, "max_wait_ns {max_wait_ns}");
            if queued_after == 0 {
                // Booked behind the reads issued by then, not before them.
                let copy_read = d.res.booked.iter().find(|b| b.0 == BlockId(0)).expect("copy booked");
                assert!(copy_read.2 > 10_000_000, "copy started at {}", copy_read.2);
            }
        }
    }

    /// A random mix: background copies out of a victim then its erase, background programs,
    /// foreground reads and programs, and time advancing.
    #[derive(Debug, Clone)]
    enum Step {
        Advance(u64),
        GcVictim { victim: u32, copies: u32 },
        HostRead { block: u32, page: u32 },
        HostProgram { block: u32 },
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            (0u64..3_000_000).prop_map(Step::Advance),
            (0u32..8, 0u32..4).prop_map(|(victim, copies)| Step::GcVictim { victim, copies }),
            (0u32..8, 0u32..8).prop_map(|(block, page)| Step::HostRead { block, page }),
            (0u32..8).prop_map(|block| Step::HostProgram { block }),
        ]
    }

    proptest! {
        /// Under `priority` (with and without suspension): every queued operation is eventually
        /// booked, a copy's program starts after its read's data is out, an erase starts after
        /// every copy out of its block was programmed and after every earlier booking on its
        /// block ended, and a foreground operation on a block with queued work starts after it.
        #[test]
        fn priority_respects_dependencies(
            steps in proptest::collection::vec(step(), 1..60),
            suspend in proptest::bool::ANY,
            plane_unit in proptest::bool::ANY,
        ) {
            let unit = if plane_unit { ArrayUnit::Plane } else { ArrayUnit::Chip };
            let mut d = device_with("priority", suspend.then_some(20_000), unit);
            let mut now = 0;
            let mut next_free = [0u32; 8];
            let mut erases = 0u64;
            // Per block, the kinds of its operations in issue order (0 read, 1 program, 2 erase).
            let mut issued: Vec<Vec<u8>> = vec![Vec::new(); 8];
            for s in steps {
                match s {
                    Step::Advance(dt) => {
                        now += dt;
                        d.advance_to(now);
                    }
                    Step::GcVictim { victim, copies: n } => {
                        let target = (victim + 4) % 8;
                        d.set_background(true);
                        for k in 0..n {
                            if next_free[target as usize] >= 8 {
                                break;
                            }
                            let new = Ppn(target * 8 + next_free[target as usize]);
                            next_free[target as usize] += 1;
                            d.copy(Ppn(victim * 8 + k), BlockMode::Native, new, BlockMode::Native, now, Source::Gc);
                            issued[victim as usize].push(0);
                            issued[target as usize].push(1);
                        }
                        d.erase(BlockId(victim), BlockMode::Native, now, Source::Gc);
                        issued[victim as usize].push(2);
                        erases += 1;
                        next_free[victim as usize] = 0;
                        d.set_background(false);
                    }
                    Step::HostRead { block, page } => {
                        d.read(Ppn(block * 8 + page), BlockMode::Native, now, Source::Host);
                        issued[block as usize].push(0);
                    }
                    Step::HostProgram { block } => {
                        if next_free[block as usize] < 8 {
                            let ppn = Ppn(block * 8 + next_free[block as usize]);
                            next_free[block as usize] += 1;
                            d.program(ppn, BlockMode::Native, now, Source::Host);
                            issued[block as usize].push(1);
                        }
                    }
                }
            }
            d.drain();
            prop_assert_eq!(d.queued_operations(), 0);
            let log = d.res.booked.clone();
            prop_assert_eq!(log.iter().filter(|b| b.1 == 2).count() as u64, erases);
            prop_assert_eq!(log.iter().filter(|b| b.1 == 0).count() as u64, d.counters().reads);
            // Per block, in booking order: a program or read starts after every earlier program
            // or erase of the block ended; an erase after every earlier booking ended.
            for (i, &(block, kind, start, _)) in log.iter().enumerate() {
                for &(b2, k2, _, end2) in &log[..i] {
                    if b2 != block {
                        continue;
                    }
                    let must_follow = kind == 2 || k2 != 0;
                    prop_assert!(!must_follow || start >= end2, "booking {i} on {block:?} (kind {kind}) at {start} before an earlier kind {k2} ended at {end2}");
                }
            }
            // Erases keep their place in issue order on their block: between two erases of a
            // block, in time, exactly the reads and programs issued between them.
            let epochs = |kinds: &mut dyn Iterator<Item = u8>| {
                let mut per_epoch = vec![[0u32; 2]];
                for k in kinds {
                    match k {
                        2 => per_epoch.push([0, 0]),
                        k => per_epoch.last_mut().expect("one epoch at least")[k as usize] += 1,
                    }
                }
                per_epoch
            };
            for b in 0..8u32 {
                let mut booked: Vec<_> = log.iter().filter(|e| e.0 == BlockId(b)).map(|e| (e.2, e.1)).collect();
                booked.sort();
                prop_assert_eq!(
                    epochs(&mut booked.iter().map(|e| e.1)),
                    epochs(&mut issued[b as usize].iter().copied()),
                    "block {} out of issue order: {:?}", b, booked
                );
            }
        }
    }
}
