//! Fidelity against the analytic model: uniform random page overwrites at steady state with
//! FIFO cleaning give the mean-field write amplification 1/(1-u), where the victim's valid
//! fraction u solves u = exp(-(1-u) T/U) (T physical, U logical pages). Greedy cleaning must
//! do better than FIFO.

use crate::common::{config, run};

/// Solve u = exp(-(1-u) / r), r = U/T, by fixed-point iteration from below 1.
fn mean_field_waf(r: f64) -> f64 {
    // f(u) = exp(-(1-u)/r) - u has roots at u* < 1 and at 1; bisection on [0, 1 - 1e-9).
    let f = |u: f64| (-(1.0 - u) / r).exp() - u;
    let (mut lo, mut hi) = (0.0f64, 1.0 - 1e-6);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    1.0 / (1.0 - lo)
}

/// A device with many blocks (so the free-block reserve is a small part of T) and U/T = r.
fn waf_run(r: f64, victim: &str) -> (f64, f64) {
    // 2 planes x 768 blocks x 96 pages = 147456 physical pages; OP = 1 - r, utilization 1.
    // Few planes and a low GC threshold keep the pages outside the log (free and open blocks)
    // under 1% of T, as the model assumes.
    let toml = format!(
        "[device]\nchannels = 1\nchips_per_channel = 1\nplanes_per_die = 2\nblocks_per_plane = 768\n\
         pages_per_block = 96\noverprovisioning = {op}\n\
         [gc]\nvictim = \"{victim}\"\ntrigger_free_blocks = 3\n\
         [warmup]\nfill = true\nrandom_writes = 4.0\n\
         [workload]\nrw = \"randwrite\"\nbs = \"4k\"\ncount = 600000\n",
        op = 1.0 - r
    );
    let cfg = config("tiny", &toml, &[]);
    let t = cfg.geometry().pages() as f64;
    let u = cfg.used_logical_pages() as f64;
    let ppb = cfg.device.pages_per_block;
    let report = run(cfg);
    eprintln!("{victim}: mean victim valid fraction {:.3}", report.gc.mean_victim_valid_fraction(ppb));
    (report.waf, u / t)
}

#[test]
fn fifo_matches_mean_field_and_greedy_beats_it() {
    for (r, expected) in [(0.8, 2.69), (0.9, 5.18)] {
        let (fifo, ratio) = waf_run(r, "fifo");
        let model = mean_field_waf(ratio);
        assert!((model - expected).abs() / expected < 0.01, "model {model} vs paper value {expected}");
        let err = (fifo - model).abs() / model;
        assert!(err < 0.05, "U/T={ratio:.3}: FIFO WAF {fifo:.3} vs mean-field {model:.3} ({:.1}% off)", err * 100.0);
        let (greedy, _) = waf_run(r, "greedy");
        assert!(greedy < fifo, "greedy {greedy:.3} should beat FIFO {fifo:.3} at U/T={ratio:.3}");
        eprintln!("U/T={ratio:.3}: model {model:.3}, FIFO {fifo:.3}, greedy {greedy:.3}");
    }
}
