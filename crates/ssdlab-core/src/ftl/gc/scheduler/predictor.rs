//! Layer: ftl. Interval-prediction GC: the "simple prediction method" the RLGC paper compares
//! against (Kang et al., ACM TECS 2017, Sec. 6.2, Tables 11-12: "GC methods based on two typical
//! methods of predicting the inter-request interval with moving average and exponential
//! smoothing"). Scheduler id `predictor`, settings in `[gc.predictor]`.
//!
//! The paper gives only the predictors and their parameters (moving-average window 10 or 100,
//! smoothing factor 0.1 or 0.3). Our reading: the RL agent of RLGC's framework (`framework.rs`:
//! triggering, intensive GC) is replaced by a predictor of the next inter-request interval, and
//! the copies after a request are as many copies as fit in the predicted interval:
//! `copies = min(max_copies, floor(predicted_ns / (tR + tPROG)))` (slowest page types; see
//! `partial::copy_ns`). Every arrival's interval feeds the predictor (reads too), the first
//! (unknown) one excepted; before any interval is known the prediction is 0.
//!
//! * `moving_average`: mean of the last `window` intervals (default 10, the better of Table 12).
//! * `exponential_smoothing`: `s <- smoothing x interval + (1 - smoothing) x s`, starting from the
//!   first interval (default smoothing 0.3).
//!
//! Defaults: `max_copies` as RLGC's (floor(tBERS / (tR + tPROG))), aggressive triggering on
//! (Tables 11-12 compare the predictors with RLGC's aggressive variant, so only the agent
//! differs). The report gives the prediction error: mean absolute error, and the mean absolute
//! error of the log2 ratio (intervals span five decades).
//!
//! Deviations from the paper: the whole policy is our reconstruction from one paragraph.

use std::collections::VecDeque;

use rand_pcg::Pcg64Mcg;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::config::GcConfig;
use crate::error::{ConfigProblem, Result};
use crate::ftl::gc::scheduler::framework::{Decider, Decision, Driver, History, Trigger};
use crate::ftl::gc::scheduler::partial::Checks;
use crate::ftl::gc::scheduler::rlgc_settings::{self as rlgc, RlgcSettings};
use crate::registry::{PolicySettings, PolicyTables, Settings};

/// How the predictor scheduler predicts the next inter-request interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PredictorKind {
    /// Mean of the last `window` intervals.
    #[default]
    MovingAverage,
    /// s <- smoothing x interval + (1 - smoothing) x s.
    ExponentialSmoothing,
}

/// `[gc.predictor]`: interval-prediction GC (the RLGC paper's Tables 11-12 comparison). Copies
/// after a request = how many copies (tR + tPROG each) fit in the predicted next interval,
/// capped by `max_copies`. Triggering and intensive mode as `[gc.rlgc]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct PredictorSettings {
    /// How the next interval is predicted (Tables 11-12 compare both).
    pub method: PredictorKind,
    /// Moving-average window (Tables 11-12: 10 or 100).
    pub window: usize,
    /// Exponential-smoothing factor (Tables 11-12: 0.1 or 0.3).
    pub smoothing: f64,
    /// Largest step. Unset: as `gc.rlgc.max_copies`.
    pub max_copies: Option<u32>,
    /// Use the aggressive variant's triggering (Tables 11-12 compare against "Aggr").
    pub aggressive: bool,
}

impl Default for PredictorSettings {
    fn default() -> Self {
        PredictorSettings {
            method: PredictorKind::default(),
            window: 10,
            smoothing: 0.3,
            max_copies: None,
            aggressive: true,
        }
    }
}

impl PolicySettings for PredictorSettings {
    fn problems_at(&self, table: &str) -> Vec<ConfigProblem> {
        let mut c = Checks::new(table);
        c.check(self.window >= 1, "window", || "must be at least 1".into());
        let smoothing = self.smoothing;
        c.check(smoothing > 0.0 && smoothing <= 1.0, "smoothing", || format!("must be in (0, 1], got {smoothing}"));
        c.copies("max_copies", self.max_copies);
        c.problems
    }
}

/// Where the settings are written (`[gc.predictor]`).
pub const SETTINGS: Settings = Settings::of::<PredictorSettings>("gc.predictor");

/// T_GC^A if the run's `[gc.predictor]` asks for the aggressive triggering
/// (`SchedulerCaps::aggressive`).
pub fn aggressive_trigger(tables: &PolicyTables) -> Option<u32> {
    let aggressive = SETTINGS.values::<PredictorSettings>(tables).aggressive;
    aggressive.then(|| rlgc::aggressive_trigger(tables)).flatten()
}

/// Next-interval predictor.
#[derive(Debug, Clone)]
pub struct IntervalPredictor {
    method: PredictorKind,
    window: usize,
    smoothing: f64,
    recent: VecDeque<u64>,
    sum: u128,
    smoothed: Option<f64>,
    predictions: u64,
    abs_error_sum: f64,
    log2_error_sum: f64,
}

impl IntervalPredictor {
    pub fn new(method: PredictorKind, window: usize, smoothing: f64) -> Self {
        IntervalPredictor {
            method,
            window: window.max(1),
            smoothing,
            recent: VecDeque::with_capacity(window.max(1)),
            sum: 0,
            smoothed: None,
            predictions: 0,
            abs_error_sum: 0.0,
            log2_error_sum: 0.0,
        }
    }

    /// The current prediction of the next interval, in ns (0 before any interval is known).
    pub fn predict(&self) -> f64 {
        match self.method {
            PredictorKind::MovingAverage if !self.recent.is_empty() => self.sum as f64 / self.recent.len() as f64,
            PredictorKind::ExponentialSmoothing => self.smoothed.unwrap_or(0.0),
            _ => 0.0,
        }
    }

    fn known(&self) -> bool {
        !self.recent.is_empty() || self.smoothed.is_some()
    }

    /// A new interval: score the standing prediction, then update.
    pub fn observe(&mut self, interval_ns: u64) {
        let x = interval_ns as f64;
        if self.known() {
            let p = self.predict();
            self.predictions += 1;
            self.abs_error_sum += (x - p).abs();
            self.log2_error_sum += ((x.max(1.0)) / p.max(1.0)).log2().abs();
        }
        match self.method {
            PredictorKind::MovingAverage => {
                if self.recent.len() == self.window {
                    let old = self.recent.pop_front().unwrap_or(0);
                    self.sum -= old as u128;
                }
                self.recent.push_back(interval_ns);
                self.sum += interval_ns as u128;
            }
            PredictorKind::ExponentialSmoothing => {
                let a = self.smoothing;
                self.smoothed = Some(match self.smoothed {
                    Some(s) => a * x + (1.0 - a) * s,
                    None => x,
                });
            }
        }
    }

    fn report(&self) -> serde_json::Value {
        let n = self.predictions;
        json!({
            "method": self.method,
            "window": self.window,
            "smoothing": self.smoothing,
            "predictions_scored": n,
            "mean_abs_error_ns": (n > 0).then(|| self.abs_error_sum / n as f64),
            "mean_abs_log2_error": (n > 0).then(|| self.log2_error_sum / n as f64),
            "current_prediction_ns": self.predict(),
        })
    }
}

/// Copies that fit in the predicted interval.
#[derive(Clone)]
pub struct PredictorDecider {
    predictor: IntervalPredictor,
    copy_ns: u64,
    max_copies: u32,
}

impl PredictorDecider {
    pub fn new(p: &PredictorSettings, copy_ns: u64, max_copies: u32) -> Self {
        PredictorDecider {
            predictor: IntervalPredictor::new(p.method, p.window, p.smoothing),
            copy_ns: copy_ns.max(1),
            max_copies,
        }
    }

    pub fn predictor(&self) -> &IntervalPredictor {
        &self.predictor
    }
}

impl Decider for PredictorDecider {
    fn on_arrival(&mut self, history: &History) {
        if history.interval_ns != u64::MAX {
            self.predictor.observe(history.interval_ns);
        }
    }

    fn decide(&mut self, _history: &History, _rng: &mut Pcg64Mcg) -> Decision {
        let fit = (self.predictor.predict() / self.copy_ns as f64).floor();
        let copies = if fit >= self.max_copies as f64 { self.max_copies } else { fit.max(0.0) as u32 };
        Decision { state: 0, copies }
    }

    fn learn(&mut self, _prev: Decision, _r: f64, _cur: Decision) {}

    fn max_copies(&self) -> u32 {
        self.max_copies
    }

    fn report(&self) -> serde_json::Value {
        json!({
            "kind": "interval_predictor",
            "copy_ns": self.copy_ns,
            "prediction": self.predictor.report(),
        })
    }
}

pub type PredictorScheduler = Driver<PredictorDecider>;

/// `copy_ns` is the device's tR + tPROG; `[gc.rlgc]` gives the triggering, the default cap and
/// intensive GC.
pub fn build(
    gc: &GcConfig,
    r: &RlgcSettings,
    p: &PredictorSettings,
    copy_ns: u64,
    rng: Pcg64Mcg,
) -> Result<PredictorScheduler> {
    let max_copies = p.max_copies.unwrap_or(r.max_copies);
    let decider = PredictorDecider::new(p, copy_ns, max_copies);
    Driver::new(decider, r, Trigger::new(gc, r, p.aggressive), rng)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftl::gc::scheduler::test_support::obs;
    use crate::ftl::gc::{GcAction, GcScheduler};
    use crate::workload::IoOp;
    use rand::SeedableRng;

    #[test]
    fn moving_average_and_smoothing() {
        let mut m = IntervalPredictor::new(PredictorKind::MovingAverage, 3, 0.0);
        assert_eq!(m.predict(), 0.0);
        for x in [100, 200, 300, 400] {
            m.observe(x);
        }
        assert_eq!(m.predict(), 300.0, "mean of the last 3");
        // Scored predictions: 100 (for 200), 150 (for 300), 200 (for 400): errors 100, 150, 200.
        assert_eq!(m.predictions, 3);
        assert!((m.abs_error_sum - 450.0).abs() < 1e-9);

        let mut e = IntervalPredictor::new(PredictorKind::ExponentialSmoothing, 1, 0.3);
        e.observe(1000);
        assert_eq!(e.predict(), 1000.0);
        e.observe(2000);
        assert!((e.predict() - 1300.0).abs() < 1e-9);
        e.observe(0);
        assert!((e.predict() - 910.0).abs() < 1e-9);
    }

    #[test]
    fn copies_fit_the_predicted_interval() {
        let gc = GcConfig { trigger_free_blocks: 10, ..GcConfig::default() };
        let p = PredictorSettings { window: 2, aggressive: false, max_copies: Some(6), ..Default::default() };
        let mut s = build(&gc, &RlgcSettings::default(), &p, 649_000, Pcg64Mcg::seed_from_u64(0)).unwrap();
        let mut step = |seq, interval_ns| {
            let mut o = obs(seq, IoOp::Write, 5, 3);
            o.interval_ns = interval_ns;
            s.before_serve(&o);
            match s.after_serve(&o, 1000) {
                GcAction::Partial { copies, .. } => copies,
                a => panic!("{a:?}"),
            }
        };
        assert_eq!(step(1, u64::MAX), 0, "nothing known yet");
        assert_eq!(step(2, 1_000_000), 1, "1 ms fits one 649 us copy");
        assert_eq!(step(3, 3_000_000), 3, "mean 2 ms: 3 copies");
        assert_eq!(step(4, 80_000_000), 6, "capped at the max action");
        let r = s.report();
        assert_eq!(r["action_histogram"], json!([1, 1, 0, 1, 0, 0, 1]));
        assert_eq!(r["agent"]["prediction"]["predictions_scored"], 2);
    }
}
