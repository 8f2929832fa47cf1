"""examples/dqn_gc.py on a tiny budget (what CI can afford): it trains, evaluates every agent, and
its table is complete, finite, reproducible, and has the built-in agent replayed through the
environment give exactly the run the tabular RLGC agent gives alone."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pandas as pd

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "dqn_gc.py"
AGENTS = ["greedy", "lazy_rtgc", "rlgc", "builtin replay", "random", "dqn (numpy)"]
#: Two short episodes on the bundled trace, two evaluation seeds: about a second per run.
TINY = ["--episodes", "2", "--requests", "3000", "--eval-seeds", "2", "--seed", "4"]


def load_example():
    spec = importlib.util.spec_from_file_location("dqn_gc", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_example_compares_every_agent_and_the_replay_is_rlgc(tmp_path, capsys):
    example = load_example()
    out = tmp_path / "table.md"
    table = example.main([*TINY, "--out", str(out)])
    assert table["agent"].tolist() == AGENTS
    figures = table.set_index("agent")[list(example.FIGURES)]
    assert all(math.isfinite(v) and v > 0 for v in figures.to_numpy().ravel()), figures
    assert figures.loc["builtin replay"].tolist() == figures.loc["rlgc"].tolist()
    # GC hurts: blocking greedy has the worst tail on this drive.
    assert figures["write_p99_99_us"].idxmax() == "greedy"
    printed = capsys.readouterr().out
    assert "episode 2/2" in printed and "means over evaluation seeds [4, 5]" in printed
    assert out.read_text().splitlines()[0].startswith("| agent")

    # Deterministic given the arguments; the CSV holds the same figures.
    again = example.main([*TINY, "--out", str(tmp_path / "table.csv")])
    pd.testing.assert_frame_equal(table, again)
    pd.testing.assert_frame_equal(table, pd.read_csv(tmp_path / "table.csv"))


def test_the_hand_written_backward_pass_is_the_gradient():
    """MLP.backward against central differences of a loss sum(q * w)."""
    example = load_example()
    rng = np.random.default_rng(0)
    net = example.MLP(4, 8, 3, rng)
    x, w = rng.random((5, 4)), rng.normal(size=(5, 3))
    _, h = net.forward(x)
    grads = net.backward(x, h, w)
    for name, param in net.p.items():
        numeric = np.zeros_like(param)
        for index in np.ndindex(param.shape):
            old = param[index]
            param[index] = old + 1e-6
            up = (net.forward(x)[0] * w).sum()
            param[index] = old - 1e-6
            down = (net.forward(x)[0] * w).sum()
            param[index] = old
            numeric[index] = (up - down) / 2e-6
        np.testing.assert_allclose(grads[name], numeric, rtol=1e-5, atol=1e-7, err_msg=name)
