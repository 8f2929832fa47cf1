"""Layer: Python, experiments. One job: Fig. 8's runs: the training traces in the paper's order,
one stage of RL runs per trace, each starting from the Q-table the stage before saved, and the
pre-trained runs on the test traces."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ssdlab.config import toml_string
from ssdlab.experiments.common import Job
from ssdlab.experiments.slc.grid import _run_overrides
from ssdlab.experiments.slc.settings import POLICIES, PRESET, TRAINING_ORDER, Settings, Trace
from ssdlab.setup import Setup


def training_traces(traces: list[Trace]) -> list[Trace]:
    """Fig. 8's training traces in the paper's order (PC, Phone, YCSB-A, LinkBench)."""
    train = [t for t in traces if t.role == "train"]
    return sorted(train, key=lambda t: TRAINING_ORDER.index(t.paper))


def qtable_path(out: Path, seed: int, stage: int) -> Path:
    return out / "qtables" / f"seed{seed}_stage{stage}.json"


def pretrained_path(out: Path, seed: int) -> Path:
    """The trained table in the output directory (seed 0: qtable_pretrained.json)."""
    return out / ("qtable_pretrained.json" if seed == 0 else f"qtable_pretrained_seed{seed}.json")


def training_jobs(
    train: list[Trace], settings: Settings, plans: dict[str, dict[str, Any]], out: Path, stage: int
) -> list[Job]:
    """Stage `stage` of Fig. 8's training, one run per seed: RL on the stage's trace, starting
    from the table the stage before saved."""
    t = train[stage]
    out_jobs = []
    for seed in range(settings.seeds):
        keys = [*POLICIES["RL"], f"slc.rl.save_qtable={toml_string(str(qtable_path(out, seed, stage)))}"]
        if stage > 0:
            keys.append(f"slc.rl.load_qtable={toml_string(str(qtable_path(out, seed, stage - 1)))}")
        labels = {"experiment": "fig8-train", "trace": t.label, "policy": "RL", "seed": seed, "stage": stage}
        base = _run_overrides(t, settings, plans[t.label]["repeat"], seed)
        out_jobs.append(Job(labels, Setup(PRESET, trace=str(t.path), overrides=(*base, *keys))))
    return out_jobs


def pretrained_jobs(
    test: list[Trace], settings: Settings, plans: dict[str, dict[str, Any]], out: Path
) -> list[Job]:
    """Fig. 8's pre-trained runs: RL on each test trace starting from the trained table."""
    out_jobs = []
    for seed in range(settings.seeds):
        for t in test:
            keys = (*POLICIES["RL"], f"slc.rl.load_qtable={toml_string(str(pretrained_path(out, seed)))}")
            labels = {
                "experiment": "fig8-test",
                "trace": t.label,
                "policy": "RL (pre-trained)",
                "seed": seed,
                "stage": None,
            }
            base = _run_overrides(t, settings, plans[t.label]["repeat"], seed)
            out_jobs.append(Job(labels, Setup(PRESET, trace=str(t.path), overrides=(*base, *keys))))
    return out_jobs
