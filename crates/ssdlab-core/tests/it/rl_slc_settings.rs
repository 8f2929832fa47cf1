//! RL-SLC's settings are checked when the run is built, every problem at once under its own key
//! (issue 47: the messages doubled the key name, `slc.rl.epsilon.epsilon`, and stopped at the
//! first problem), and the Q-table it will save is checked then too, not after the run.

use ssdlab_core::config::Layer;
use ssdlab_core::Simulation;

fn build(overrides: &[&str]) -> ssdlab_core::Result<Simulation> {
    let mut all = vec!["slc.policy=\"rl\"".to_string(), "workload.count=100".to_string()];
    all.extend(overrides.iter().map(|s| s.to_string()));
    let cfg = ssdlab_core::load_config(Some("tiny"), &[Layer::inline("[workload]\nrw = \"randwrite\"\n")], &all)?;
    Simulation::new(cfg)
}

#[test]
fn every_bad_setting_is_named_once_under_its_own_key() {
    let message = build(&["slc.rl.epsilon=2", "slc.rl.alpha=0", "slc.rl.step_slc_blocks=0"]).err().unwrap().to_string();
    assert!(message.contains("slc.rl.epsilon: must be in [0, 1], got 2"), "{message}");
    assert!(message.contains("slc.rl.alpha: must be in (0, 1], got 0"), "{message}");
    assert!(message.contains("slc.rl.step_slc_blocks: must be at least 1"), "{message}");
    assert!(!message.contains("epsilon.epsilon") && !message.contains("alpha.alpha"), "{message}");
}

#[test]
fn the_qtable_path_is_checked_before_the_run() {
    let root = std::env::temp_dir().join(format!("ssdlab-qtable-{}", std::process::id()));
    std::fs::create_dir_all(&root).unwrap();
    let blocker = root.join("a_file");
    std::fs::write(&blocker, b"").unwrap();
    let bad = format!("slc.rl.save_qtable=\"{}\"", blocker.join("q.json").display());
    let message = build(&[&bad]).err().unwrap().to_string();
    assert!(message.contains("slc.rl.save_qtable: cannot create the directory"), "{message}");
    // A missing directory is created at build time, and the table saved into it at the end.
    let path = root.join("new/dir/q.json");
    let good = format!("slc.rl.save_qtable=\"{}\"", path.display());
    let mut sim = build(&[&good]).unwrap();
    assert!(path.parent().unwrap().is_dir() && !path.exists());
    sim.run().unwrap();
    assert!(path.is_file());
    std::fs::remove_dir_all(&root).unwrap();
}
