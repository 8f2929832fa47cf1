//! Layer: rl. A dense Q-table: one `f64` per (state, action), plus how much of it was used.
//!
//! Row-major `n_states x n_actions`, all zeros at start (RLGC Sec. 4.2 and the FSP paper's
//! Algorithm 1 line 1 both start from an all-zero table). `argmax` breaks ties towards the lowest
//! action index so runs are repeatable. The utilisation figure is the one RLGC reports in Sec. 6.2
//! ("the average utilization is 79%"): the paper does not define it, so we report both the
//! fraction of entries ever written and the fraction of states ever visited.
//!
//! Files are JSON: `{"format": "ssdlab-qtable", "format_version": 1, "n_states", "n_actions",
//! "values": [[row 0], [row 1], ...], "metadata": {string: string}}`. Loading a bad file returns
//! `Error::Io` or `Error::Config` naming the file, never panics. Write/visit flags are not saved:
//! utilisation always describes the current run.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{ConfigProblem, Error, Result};

/// The file format tag and the version this code writes and reads.
pub const QTABLE_FORMAT: &str = "ssdlab-qtable";
pub const QTABLE_FORMAT_VERSION: u32 = 1;

/// Largest table we agree to allocate (2^28 entries = 2 GiB of `f64`). Bigger state spaces
/// belong in the Q-table cache (`rl::qtc`).
pub const MAX_ENTRIES: usize = 1 << 28;

/// A dense `n_states x n_actions` table of Q values.
#[derive(Debug, Clone, PartialEq)]
pub struct QTable {
    n_states: usize,
    n_actions: usize,
    values: Vec<f64>,
    written: Vec<bool>,
    visited: Vec<bool>,
}

/// How much of a Q-table the run has touched.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct QTableUtilisation {
    pub entries_written: usize,
    pub entries_total: usize,
    /// `entries_written / entries_total`.
    pub entry_fraction: f64,
    pub states_visited: usize,
    pub states_total: usize,
    /// `states_visited / states_total`.
    pub state_fraction: f64,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct QTableFile {
    format: String,
    format_version: u32,
    n_states: usize,
    n_actions: usize,
    values: Vec<Vec<f64>>,
    #[serde(default)]
    metadata: BTreeMap<String, String>,
}

impl QTable {
    /// An all-zero table. Fails when a dimension is zero or the table would be unreasonably large.
    pub fn new(n_states: usize, n_actions: usize) -> Result<Self> {
        Self::filled(n_states, n_actions, 0.0)
    }

    /// A table with every entry set to `initial` (not counted as written).
    pub fn filled(n_states: usize, n_actions: usize, initial: f64) -> Result<Self> {
        if n_states == 0 {
            return Err(Error::config("n_states", "a Q-table needs at least one state"));
        }
        if n_actions == 0 {
            return Err(Error::config("n_actions", "a Q-table needs at least one action"));
        }
        if !initial.is_finite() {
            return Err(Error::config("initial_q", format!("must be finite, got {initial}")));
        }
        let entries = n_states.checked_mul(n_actions).filter(|&n| n <= MAX_ENTRIES).ok_or_else(|| {
            Error::config(
                "n_states",
                format!(
                    "{n_states} states x {n_actions} actions exceeds {MAX_ENTRIES} entries; \
                         use the Q-table cache for large state spaces"
                ),
            )
        })?;
        Ok(QTable {
            n_states,
            n_actions,
            values: vec![initial; entries],
            written: vec![false; entries],
            visited: vec![false; n_states],
        })
    }

    pub fn n_states(&self) -> usize {
        self.n_states
    }

    pub fn n_actions(&self) -> usize {
        self.n_actions
    }

    #[inline]
    fn index(&self, state: usize, action: usize) -> usize {
        debug_assert!(state < self.n_states, "state {state} out of range {}", self.n_states);
        debug_assert!(action < self.n_actions, "action {action} out of range {}", self.n_actions);
        state * self.n_actions + action
    }

    #[inline]
    pub fn get(&self, state: usize, action: usize) -> f64 {
        self.values[self.index(state, action)]
    }

    /// Write one entry; marks the entry written and the state visited.
    #[inline]
    pub fn set(&mut self, state: usize, action: usize, value: f64) {
        debug_assert!(value.is_finite(), "non-finite Q value {value} at ({state}, {action})");
        let i = self.index(state, action);
        self.values[i] = value;
        self.written[i] = true;
        self.visited[state] = true;
    }

    /// Record that a decision was taken in `state` (for the utilisation figure).
    #[inline]
    pub fn mark_visited(&mut self, state: usize) {
        self.visited[state] = true;
    }

    /// Whether a decision was taken, or a value written, in `state` this run.
    pub fn is_visited(&self, state: usize) -> bool {
        self.visited.get(state).copied().unwrap_or(false)
    }

    /// The Q values of one state, indexed by action.
    #[inline]
    pub fn row(&self, state: usize) -> &[f64] {
        let start = self.index(state, 0);
        &self.values[start..start + self.n_actions]
    }

    /// The action with the largest Q value; ties go to the lowest action index.
    #[inline]
    pub fn argmax(&self, state: usize) -> usize {
        argmax(self.row(state))
    }

    /// The largest Q value of a state.
    #[inline]
    pub fn max(&self, state: usize) -> f64 {
        let row = self.row(state);
        row[argmax(row)]
    }

    /// All values, row-major.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// Overwrite every value with another table's (same shape), keeping this table's flags.
    /// Used by the across-episode table's renewal.
    pub fn copy_values_from(&mut self, other: &QTable) {
        debug_assert_eq!((self.n_states, self.n_actions), (other.n_states, other.n_actions));
        self.values.copy_from_slice(&other.values);
    }

    pub fn utilisation(&self) -> QTableUtilisation {
        let entries_written = self.written.iter().filter(|&&w| w).count();
        let states_visited = self.visited.iter().filter(|&&v| v).count();
        QTableUtilisation {
            entries_written,
            entries_total: self.values.len(),
            entry_fraction: entries_written as f64 / self.values.len() as f64,
            states_visited,
            states_total: self.n_states,
            state_fraction: states_visited as f64 / self.n_states as f64,
        }
    }

    /// Serialise to the JSON file format (see the module header).
    pub fn to_json(&self, metadata: &BTreeMap<String, String>) -> Result<String> {
        if let Some(i) = self.values.iter().position(|v| !v.is_finite()) {
            return Err(Error::invariant(format!(
                "Q value at state {}, action {} is not finite: {}",
                i / self.n_actions,
                i % self.n_actions,
                self.values[i]
            )));
        }
        let file = QTableFile {
            format: QTABLE_FORMAT.to_string(),
            format_version: QTABLE_FORMAT_VERSION,
            n_states: self.n_states,
            n_actions: self.n_actions,
            values: self.values.chunks(self.n_actions).map(<[f64]>::to_vec).collect(),
            metadata: metadata.clone(),
        };
        serde_json::to_string(&file).map_err(|e| Error::invariant(format!("serialising a Q-table: {e}")))
    }

    /// Parse the JSON file format. `origin` names the source in error messages.
    pub fn from_json(text: &str, origin: Option<&Path>) -> Result<(QTable, BTreeMap<String, String>)> {
        let bad = |key: &str, reason: String| Error::Config {
            path: origin.map(Path::to_path_buf),
            problems: vec![ConfigProblem { key: key.to_string(), reason }],
        };
        let file: QTableFile =
            serde_json::from_str(text).map_err(|e| bad("qtable", format!("not a Q-table file: {e}")))?;
        if file.format != QTABLE_FORMAT {
            return Err(bad("format", format!("expected \"{QTABLE_FORMAT}\", got \"{}\"", file.format)));
        }
        if file.format_version != QTABLE_FORMAT_VERSION {
            return Err(bad(
                "format_version",
                format!(
                    "this build reads version {QTABLE_FORMAT_VERSION}, the file is version {}",
                    file.format_version
                ),
            ));
        }
        // Check the rows before allocating, so a bogus header cannot make us allocate gigabytes.
        if file.values.len() != file.n_states {
            return Err(bad("values", format!("{} rows for {} states", file.values.len(), file.n_states)));
        }
        let mut table = QTable::new(file.n_states, file.n_actions).map_err(|e| match e {
            Error::Config { problems, .. } => Error::Config { path: origin.map(Path::to_path_buf), problems },
            other => other,
        })?;
        for (state, row) in file.values.iter().enumerate() {
            if row.len() != file.n_actions {
                return Err(bad(
                    &format!("values[{state}]"),
                    format!("{} values for {} actions", row.len(), file.n_actions),
                ));
            }
            if let Some(a) = row.iter().position(|v| !v.is_finite()) {
                return Err(bad(&format!("values[{state}][{a}]"), "must be finite".to_string()));
            }
            let start = state * file.n_actions;
            table.values[start..start + file.n_actions].copy_from_slice(row);
        }
        Ok((table, file.metadata))
    }

    /// Write the table and free-form metadata to `path` (see the module header for the format).
    pub fn save(&self, path: &Path, metadata: &BTreeMap<String, String>) -> Result<()> {
        let text = self.to_json(metadata)?;
        let io = |e| Error::io(PathBuf::from(path), e);
        let mut file = std::io::BufWriter::new(std::fs::File::create(path).map_err(io)?);
        file.write_all(text.as_bytes()).map_err(io)?;
        file.write_all(b"\n").map_err(io)?;
        file.flush().map_err(io)
    }

    /// Read a table saved by `save`, with its metadata.
    pub fn load(path: &Path) -> Result<(QTable, BTreeMap<String, String>)> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        QTable::from_json(&text, Some(path))
    }
}

/// Index of the largest value; ties go to the lowest index. `row` must be non-empty.
#[inline]
pub fn argmax(row: &[f64]) -> usize {
    debug_assert!(!row.is_empty());
    let mut best = 0;
    for (a, &q) in row.iter().enumerate().skip(1) {
        if q > row[best] {
            best = a;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_path(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ssdlab-rl-qtable-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    #[test]
    fn starts_at_zero_and_rejects_bad_shapes() {
        let q = QTable::new(68, 3).unwrap();
        assert!(q.values().iter().all(|&v| v == 0.0));
        assert!(matches!(QTable::new(0, 3), Err(Error::Config { .. })));
        assert!(matches!(QTable::new(3, 0), Err(Error::Config { .. })));
        assert!(matches!(QTable::new(usize::MAX, 2), Err(Error::Config { .. })));
        assert!(matches!(QTable::new(MAX_ENTRIES, 2), Err(Error::Config { .. })));
    }

    #[test]
    fn get_set_row_argmax_max() {
        let mut q = QTable::new(4, 3).unwrap();
        q.set(2, 1, 0.5);
        q.set(2, 2, -1.0);
        assert_eq!(q.get(2, 1), 0.5);
        assert_eq!(q.row(2), &[0.0, 0.5, -1.0]);
        assert_eq!(q.argmax(2), 1);
        assert_eq!(q.max(2), 0.5);
        // Ties go to the lowest index.
        assert_eq!(q.argmax(0), 0);
        q.set(3, 1, 0.7);
        q.set(3, 2, 0.7);
        assert_eq!(q.argmax(3), 1);
        assert_eq!(argmax(&[-2.0, -1.0, -1.0]), 1);
    }

    #[test]
    fn utilisation_counts_written_entries_and_visited_states() {
        let mut q = QTable::new(4, 2).unwrap();
        q.set(0, 0, 1.0);
        q.set(0, 0, 2.0);
        q.set(1, 1, 0.0); // writing zero still counts
        q.mark_visited(3);
        let u = q.utilisation();
        assert_eq!((u.entries_written, u.entries_total), (2, 8));
        assert_eq!(u.entry_fraction, 0.25);
        assert_eq!((u.states_visited, u.states_total), (3, 4));
        assert_eq!(u.state_fraction, 0.75);
    }

    #[test]
    fn save_load_round_trip_is_exact() {
        let mut q = QTable::new(3, 2).unwrap();
        q.set(0, 1, 0.1 + 0.2);
        q.set(1, 0, -1.0 / 3.0);
        q.set(2, 1, 1e-300);
        q.set(2, 0, std::f64::consts::PI * 1e5);
        let mut meta = BTreeMap::new();
        meta.insert("policy".to_string(), "rlgc".to_string());
        meta.insert("seed".to_string(), "7".to_string());
        let path = temp_path("round_trip.json");
        q.save(&path, &meta).unwrap();
        let (loaded, loaded_meta) = QTable::load(&path).unwrap();
        assert_eq!(loaded.values(), q.values());
        assert_eq!(loaded_meta, meta);
        assert_eq!(loaded.utilisation().entries_written, 0, "flags are per run");
    }

    #[test]
    fn json_round_trip_is_bit_exact_for_arbitrary_values() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(17);
        let mut q = QTable::new(2500, 4).unwrap();
        for s in 0..2500 {
            for a in 0..4 {
                let v = loop {
                    let v = f64::from_bits(rng.gen());
                    if v.is_finite() {
                        break v;
                    }
                };
                q.set(s, a, v);
            }
        }
        let (back, _) = QTable::from_json(&q.to_json(&BTreeMap::new()).unwrap(), None).unwrap();
        let bits = |t: &QTable| t.values().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&back), bits(&q));
    }

    #[test]
    fn bad_files_are_errors_not_panics() {
        let missing = temp_path("does_not_exist.json");
        assert!(matches!(QTable::load(&missing), Err(Error::Io { .. })));

        let cases = [
            ("garbage", "not json"),
            // A file cut short (a crashed save): refused whole, never half-loaded.
            (
                "truncated",
                r#"{"format":"ssdlab-qtable","format_version":1,"n_states":2,"n_actions":1,"values":[[0.5],[0."#,
            ),
            ("wrong_format", r#"{"format":"x","format_version":1,"n_states":1,"n_actions":1,"values":[[0]]}"#),
            ("version", r#"{"format":"ssdlab-qtable","format_version":9,"n_states":1,"n_actions":1,"values":[[0]]}"#),
            ("zero_states", r#"{"format":"ssdlab-qtable","format_version":1,"n_states":0,"n_actions":1,"values":[]}"#),
            ("rows", r#"{"format":"ssdlab-qtable","format_version":1,"n_states":2,"n_actions":1,"values":[[0]]}"#),
            ("cols", r#"{"format":"ssdlab-qtable","format_version":1,"n_states":1,"n_actions":2,"values":[[0]]}"#),
            ("null", r#"{"format":"ssdlab-qtable","format_version":1,"n_states":1,"n_actions":1,"values":[[null]]}"#),
            ("huge", r#"{"format":"ssdlab-qtable","format_version":1,"n_states":1e400,"n_actions":1,"values":[]}"#),
            (
                "unknown_key",
                r#"{"format":"ssdlab-qtable","format_version":1,"n_states":1,"n_actions":1,"values":[[0]],"x":1}"#,
            ),
        ];
        for (name, text) in cases {
            let path = temp_path(&format!("{name}.json"));
            std::fs::write(&path, text).unwrap();
            match QTable::load(&path) {
                Err(Error::Config { path: Some(p), .. }) => assert_eq!(p, path, "{name}"),
                other => panic!("{name}: expected a config error naming the file, got {other:?}"),
            }
        }
    }
}
