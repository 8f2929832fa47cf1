//! The vector env's workers: threads that stay awake between steps. A decision costs a few
//! microseconds of simulation, and a thread pool that puts its threads to sleep between steps
//! (rayon's, measured in docs/lab.md) spends more on the two wake-ups of every step than it
//! saves. These workers wait for the next step by spinning, then yielding, then sleeping in
//! short naps once the agent has been away for a while (a long training update), so a step
//! starts on every core at once without waking anyone. The calling thread works too: it takes
//! the first share of the environments.
//!
//! Each participant steps its own share first, in order, so an environment stays on one core
//! (and in its caches) step after step; one that is done early takes the environments left of
//! the others' shares, from their ends: the simulation between two decisions varies by orders
//! of magnitude, and without this a step waited for the slower share. (Claiming every
//! environment from one counter balanced as well but moved environments between the cores'
//! caches at every step, and measured slower: docs/lab.md.) An environment is claimed once per
//! step (`claimed`) and is in its own Mutex, so no two threads ever wait for the same lock.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Spin this long before yielding, and yield this long before napping.
const SPIN: Duration = Duration::from_micros(50);
const YIELD: Duration = Duration::from_millis(2);
const NAP: Duration = Duration::from_micros(100);

/// The job of a step, for one environment: what `step` does with environment `i`'s slot.
pub type Job<S, I, O> = fn(&mut Option<S>, I) -> O;

struct Shared<S, I, O> {
    slots: Vec<Mutex<Option<S>>>,
    inputs: Vec<Mutex<Option<I>>>,
    outputs: Vec<Mutex<Option<O>>>,
    job: Job<S, I, O>,
    /// The step each environment was last claimed in.
    claimed: Vec<AtomicU64>,
    /// Steps posted, and per worker the last step it finished.
    posted: AtomicU64,
    finished: Vec<AtomicU64>,
    stop: AtomicBool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl<S, I, O> Shared<S, I, O> {
    /// Participant `k` of `parts` in `step`: its own share in order, then what is left of the
    /// others' shares, each from its end (the owner works up from its start: where they meet,
    /// the rest is taken).
    fn work(&self, k: usize, parts: usize, step: u64) {
        let n = self.slots.len();
        for i in share(n, parts, k) {
            if !self.run(i, step) {
                break;
            }
        }
        for other in (1..parts).map(|d| (k + d) % parts) {
            for i in share(n, parts, other).rev() {
                if !self.run(i, step) {
                    break;
                }
            }
        }
    }

    /// Claim environment `i` for `step` and run its job; false if another participant had it.
    fn run(&self, i: usize, step: u64) -> bool {
        if self.claimed[i].swap(step, Ordering::AcqRel) == step {
            return false;
        }
        if let Some(input) = lock(&self.inputs[i]).take() {
            let output = (self.job)(&mut lock(&self.slots[i]), input);
            *lock(&self.outputs[i]) = Some(output);
        }
        true
    }
}

/// Wait until `ready()` holds (or `stop` is set): spin, then yield, then nap.
fn wait(ready: impl Fn() -> bool, stop: &AtomicBool) -> bool {
    let start = Instant::now();
    loop {
        if ready() {
            return true;
        }
        if stop.load(Ordering::Acquire) {
            return false;
        }
        let waited = start.elapsed();
        if waited < SPIN {
            std::hint::spin_loop();
        } else if waited < YIELD {
            std::thread::yield_now();
        } else {
            std::thread::sleep(NAP);
        }
    }
}

/// N slots stepped by the calling thread and `threads` workers.
pub struct Workers<S, I, O> {
    shared: Arc<Shared<S, I, O>>,
    handles: Vec<JoinHandle<()>>,
}

impl<S: Send + 'static, I: Send + 'static, O: Send + 'static> Workers<S, I, O> {
    pub fn new(n: usize, threads: usize, job: Job<S, I, O>) -> Self {
        let shared = Arc::new(Shared {
            slots: (0..n).map(|_| Mutex::new(None)).collect(),
            inputs: (0..n).map(|_| Mutex::new(None)).collect(),
            outputs: (0..n).map(|_| Mutex::new(None)).collect(),
            job,
            claimed: (0..n).map(|_| AtomicU64::new(0)).collect(),
            posted: AtomicU64::new(0),
            finished: (0..threads).map(|_| AtomicU64::new(0)).collect(),
            stop: AtomicBool::new(false),
        });
        let handles = (0..threads)
            .map(|w| {
                let shared = Arc::clone(&shared);
                std::thread::Builder::new()
                    .name(format!("ssdlab-vec-{w}"))
                    .spawn(move || {
                        let mut seen = 0;
                        while wait(|| shared.posted.load(Ordering::Acquire) != seen, &shared.stop) {
                            seen = shared.posted.load(Ordering::Acquire);
                            shared.work(w + 1, threads + 1, seen);
                            shared.finished[w].store(seen, Ordering::Release);
                        }
                    })
                    .expect("spawning a vector-env worker")
            })
            .collect();
        Workers { shared, handles }
    }

    pub fn threads(&self) -> usize {
        self.handles.len()
    }

    pub fn len(&self) -> usize {
        self.shared.slots.len()
    }

    /// One step: environment i's job gets `inputs[i]` (None: not run); the outputs in order.
    pub fn step(&self, inputs: Vec<Option<I>>) -> Vec<Option<O>> {
        let s = &self.shared;
        for (slot, input) in s.inputs.iter().zip(inputs) {
            *lock(slot) = input;
        }
        let step = s.posted.fetch_add(1, Ordering::AcqRel) + 1;
        s.work(0, self.handles.len() + 1, step);
        for done in &s.finished {
            wait(|| done.load(Ordering::Acquire) == step, &s.stop);
        }
        s.outputs.iter().map(|o| lock(o).take()).collect()
    }

    /// Environment `i`'s slot.
    pub fn slot(&self, i: usize) -> MutexGuard<'_, Option<S>> {
        lock(&self.shared.slots[i])
    }
}

/// The environments participant `k` of `parts` steps: contiguous shares, the first ones a
/// slot larger when `n` does not divide.
fn share(n: usize, parts: usize, k: usize) -> Range<usize> {
    let (base, extra) = (n / parts, n % parts);
    let start = k * base + k.min(extra);
    start..start + base + usize::from(k < extra)
}

impl<S, I, O> Drop for Workers<S, I, O> {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_cover_every_slot_once() {
        for n in 0..20 {
            for parts in 1..5 {
                let covered: Vec<usize> = (0..parts).flat_map(|k| share(n, parts, k)).collect();
                assert_eq!(covered, (0..n).collect::<Vec<_>>(), "n {n}, parts {parts}");
            }
        }
    }

    #[test]
    fn every_slot_runs_its_job_each_step_in_order() {
        let workers: Workers<u64, u64, u64> = Workers::new(7, 2, |slot, x| {
            let total = slot.get_or_insert(0);
            *total += x;
            *total
        });
        for step in 1..=100u64 {
            let inputs = (0..7).map(|i| (i != 3).then_some(i as u64 + step)).collect();
            let out = workers.step(inputs);
            assert_eq!(out[3], None);
            assert_eq!(out[6], Some((1..=step).map(|s| 6 + s).sum()));
        }
    }

    #[test]
    fn a_participant_done_early_takes_what_is_left_of_another_share() {
        // Slot 0 (the calling thread's share: 0..3 of 6) takes 5 ms, the others nothing: the
        // worker, done with 3..6, takes slots 2 and 1 from the end of the caller's share (in
        // most steps: a busy machine may not run the worker in time for every one).
        let workers: Workers<(u64, u64), usize, ()> = Workers::new(6, 1, |slot, i| {
            if i == 0 {
                std::thread::sleep(Duration::from_millis(5));
            }
            let (runs, elsewhere) = slot.get_or_insert((0, 0));
            *runs += 1;
            *elsewhere += u64::from(std::thread::current().name().is_some_and(|n| n.starts_with("ssdlab-vec")));
        });
        let steps = 20;
        for _ in 0..steps {
            let out = workers.step((0..6).map(Some).collect());
            assert!(out.iter().all(Option::is_some));
        }
        let state: Vec<(u64, u64)> = (0..6).map(|i| workers.slot(i).expect("ran")).collect();
        assert!(state.iter().all(|&(runs, _)| runs == steps), "each slot once per step: {state:?}");
        assert!(state[2].1 >= steps / 4, "the worker took slot 2 of the caller's share: {state:?}");
    }
}
