//! The vector env's workers: threads that stay awake between steps. A decision costs a few
//! microseconds of simulation, and a thread pool that puts its threads to sleep between steps
//! (rayon's, measured in docs/lab.md) spends more on the two wake-ups of every step than it
//! saves. These workers wait for the next step by spinning, then yielding, then sleeping in
//! short naps once the agent has been away for a while (a long training update), so a step
//! starts on every core at once without waking anyone. The calling thread works too: it takes
//! the first share of the environments.
//!
//! Environment i is in its own Mutex; the calling thread and each worker lock only their own
//! share's, so no two threads ever wait for the same lock.

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
    /// Steps posted, and per worker the last step it finished.
    posted: AtomicU64,
    finished: Vec<AtomicU64>,
    stop: AtomicBool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl<S, I, O> Shared<S, I, O> {
    /// Run the job on environments `range`.
    fn work(&self, range: std::ops::Range<usize>) {
        for i in range {
            let Some(input) = lock(&self.inputs[i]).take() else { continue };
            let output = (self.job)(&mut lock(&self.slots[i]), input);
            *lock(&self.outputs[i]) = Some(output);
        }
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
                        let range = share(shared.slots.len(), threads + 1, w + 1);
                        while wait(|| shared.posted.load(Ordering::Acquire) != seen, &shared.stop) {
                            seen = shared.posted.load(Ordering::Acquire);
                            shared.work(range.clone());
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
        s.work(share(s.slots.len(), self.handles.len() + 1, 0));
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
fn share(n: usize, parts: usize, k: usize) -> std::ops::Range<usize> {
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
}
