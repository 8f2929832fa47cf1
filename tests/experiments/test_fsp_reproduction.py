"""The FSP reproduction (Li et al., TCAD 2024): its documented set-up (the five schedulers of
Sec. IV-A as eviction policies, the 2/8/32 MiB caches, every trace packed and replayed once on a
half-filled drive), the averages of the summary table, and the CI-sized `--quick` run end to end
with every mapping verified. The tests check mechanisms, not tuned numbers."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

import ssdlab
from ssdlab import config
from ssdlab.cli import main
from ssdlab.experiments import fsp
from ssdlab.experiments.common import Runner
from ssdlab.experiments.pipeline import reproduce

FIGURES = [
    "read_mean_us",
    "io_mean_us",
    "read_p99_us",
    "lsb_reads",
    "clsb_reads",
    "cmsb_reads",
    "msb_reads",
    "lsb_ratio",
    "read_hit_ratio",
    "write_hit_ratio",
    "erases",
    "programs",
    "waf",
    "rewrite_pages",
    "episodes",
    "decisions",
    "substitutions",
]
PLOTS = ("fig9_fig10_latency.png", "fig11_lsb_reads.png", "fig12_rewards.png", "fig13_hit_ratio.png")


def test_every_job_is_a_valid_configuration_with_the_papers_setup(traces):
    paths = [traces / rel for rel in fsp.DEFAULT_TRACES]
    jobs = fsp.jobs(paths, fsp.Settings(seeds=2))
    assert len(jobs) == len(paths) * len(fsp.CACHE_MIB) * len(fsp.POLICIES) * 2
    evictions = {
        "Baseline": "lru",
        "Baseline-RW": "lru",
        "Frequency": "frequency",
        "Frequency-count": "frequency_count",
        "Distance": "distance",
    }
    for job in jobs:
        resolved = config.resolve(job.setup.preset, trace=job.setup.trace, overrides=job.setup.overrides)
        assert 'fold = "compact"' in resolved
        assert f"cache.capacity={job.labels['cache_mib']}MiB" in job.setup.overrides
        assert f'eviction = "{evictions.get(job.labels["policy"], "rl_fsp")}"' in resolved
        assert ("insert_reads = true" in resolved) == (job.labels["policy"] == "Baseline-RW")
        assert ('room_order = "lru"' in resolved) == (job.labels["policy"] == "Baseline-RW")
        assert ("write_back_reads = true" in resolved) == (job.labels["policy"] == "Baseline-RW")
        assert ("random_control = true" in resolved) == (job.labels["policy"] == "RL-control")
        # Half the space filled before the trace (fsp.DRIVE), every request of the trace.
        assert set(fsp.DRIVE) <= set(job.setup.overrides)
        assert "fill = true" in resolved
        assert not any(o.startswith("workload.count=") for o in job.setup.overrides)
        if "tencent" in job.setup.trace:
            assert "workload.trace.on_out_of_order=clamp" in job.setup.overrides


def test_paper_workloads_are_cut_to_the_request_cap_never_lengthened():
    jobs = fsp.workload_jobs(fsp.Settings())
    counts = {}
    for job in jobs:
        cut = [o for o in job.setup.overrides if o.startswith("workload.count=")]
        counts[job.setup.workload] = cut[0] if cut else None
    for name, cut in counts.items():
        own = fsp.spec_requests(name)
        assert own is not None, name
        if own > fsp.PAPER_REQUESTS:
            assert cut == f"workload.count={fsp.PAPER_REQUESTS}", name
        else:
            assert cut is None, f"{name}: a count would replace its {own} requests"
    # Table II: ali121 is cut, ali735 (963,179 requests) is not.
    assert counts["fsp-ali121"] and counts["fsp-ali735"] is None
    assert not any(
        o.startswith("workload.count=")
        for j in fsp.workload_jobs(fsp.Settings(paper_requests=None))
        for o in j.setup.overrides
    )


def test_quick_cuts_the_traces_and_keeps_every_scheduler_and_cache_size(traces):
    jobs = fsp.jobs([traces / rel for rel in fsp.QUICK_TRACES], fsp.QUICK)
    assert {j.labels["policy"] for j in jobs} == set(fsp.POLICIES)
    assert {j.labels["cache_mib"] for j in jobs} >= {2, 8}
    assert all(f"workload.count={fsp.QUICK.trace_requests}" in j.setup.overrides for j in jobs)


def test_trace_labels_are_short_unless_two_collide():
    a, b, c = Path("x/hm_0.sample1000.csv"), Path("y/hm_0.csv"), Path("z/tpcc_small.txt")
    assert fsp.trace_labels([a, c]) == {a: "hm_0", c: "tpcc_small"}
    assert fsp.trace_labels([a, b, c]) == {a: "hm_0.sample1000.csv", b: "hm_0.csv", c: "tpcc_small"}


def test_summary_averages_per_run_ratios_and_leaves_out_a_baseline_of_zero():
    rows = []
    for trace, base in (("t1", 100.0), ("t2", 200.0)):
        for policy, scale in (("Baseline", 1.0), ("Frequency", 0.9), ("Distance", 1.0), ("RL", 0.5)):
            rows.append(
                {
                    "trace": trace,
                    "cache_mib": 2,
                    "policy": policy,
                    "seed": 0,
                    "read_mean_us": base * scale,
                    "io_mean_us": base,
                    "lsb_reads": 10 * (3 if policy == "RL" else 1),
                    "lsb_ratio": 0.25,
                    "erases": 0,
                    "programs": 100,
                }
            )
    table = fsp.summary(pd.DataFrame(rows))
    assert set(fsp.PAPER) <= set(table.index)
    assert table.loc["RL read latency vs Baseline (%)", "ours"] == pytest.approx(-50.0)
    assert table.loc["RL read latency vs Frequency (%)", "ours"] == pytest.approx(100 * (0.5 / 0.9 - 1))
    assert table.loc["RL LSB reads / Baseline (x)", "ours"] == pytest.approx(3.0)
    assert table.loc["RL LSB read ratio at 2 MB (%)", "ours"] == pytest.approx(25.0)
    # Erases of 0 (GC never runs on the half-free drive) give no ratio, not 0 % or infinity.
    assert math.isnan(table.loc["RL erases vs Baseline (%)", "ours"])
    assert table.loc["RL flash programs vs Baseline (%)", "ours"] == pytest.approx(0.0)
    assert table.loc["RL read latency vs Baseline (%)", "paper"] == -40.4


@pytest.fixture(scope="module")
def quick(traces, tmp_path_factory):
    out = tmp_path_factory.mktemp("fsp-quick")
    tables = reproduce("fsp", None, out, shared_traces=traces, quick=True, verify=True)
    return out, tables


def test_quick_reproduction_has_one_verified_row_per_run_with_every_figure(quick):
    out, _ = quick
    runs = pd.read_csv(out / "runs.csv")
    assert {"preset", "trace", "cache_mib", "policy", "seed", *FIGURES} <= set(runs.columns)
    keys = ["trace", "cache_mib", "policy", "seed"]
    assert not runs.duplicated(keys).any()
    assert len(runs) == len(fsp.QUICK_TRACES) * len(fsp.QUICK.cache_mib) * len(fsp.POLICIES) * fsp.QUICK.seeds
    assert set(runs["policy"]) == set(fsp.POLICIES) and set(runs["preset"]) == {fsp.PRESET}
    assert runs["verified"].all(), runs.loc[~runs["verified"].astype(bool), keys]


def test_quick_reproduction_shows_the_mechanisms_the_paper_relies_on(quick):
    out, _ = quick
    runs = pd.read_csv(out / "runs.csv")
    # Every host page read is a cache hit or a flash read of one of the four page types.
    by_type = runs[["lsb_reads", "clsb_reads", "cmsb_reads", "msb_reads"]].sum(axis=1)
    assert (by_type == runs["host_read_pages"] - runs["read_hits"]).all()
    assert runs["lsb_ratio"].between(0, 1).all()
    assert runs["lsb_ratio"].to_numpy() == pytest.approx((runs["lsb_reads"] / by_type).to_numpy())
    # Baseline-RW keeps read data in the cache too, so it hits more reads (Fig. 13).
    hits = runs.pivot_table(index=["trace", "cache_mib", "seed"], columns="policy", values="read_hit_ratio")
    assert (hits["Baseline-RW"] > hits["Baseline"]).all()
    # Every host write reaches the flash as full-sequence programs of four pages.
    assert (runs["programs"] > 0).all()
    # Only RL and its control learn, in episodes of 1000 decisions; the Frequencies and RL
    # substitute page types.
    agents = runs["policy"].isin(["RL", "RL-control"])
    rl = runs[agents]
    assert (rl["episodes"] > 0).all() and (rl["decisions"] >= 1000 * rl["episodes"]).all()
    assert runs.loc[~agents, "episodes"].isna().all()
    typed = ["Frequency", "Frequency-count", "RL"]
    assert runs.loc[runs["policy"].isin(typed), "substitutions"].notna().all()


def test_quick_reproduction_writes_one_reward_per_rl_episode(quick):
    out, _ = quick
    runs = pd.read_csv(out / "runs.csv")
    rewards = pd.read_csv(out / "rewards.csv")
    assert list(rewards.columns) == ["trace", "cache_mib", "seed", "episode", "mean_reward"]
    assert len(rewards) > 0
    per_run = rewards.groupby(["trace", "cache_mib", "seed"]).size()
    rl = runs[runs["policy"] == "RL"].set_index(["trace", "cache_mib", "seed"])["episodes"]
    assert per_run.sort_index().tolist() == rl.sort_index().astype(int).tolist()


def test_quick_reproduction_writes_its_tables_and_plots(quick):
    out, tables = quick
    text = (out / "tables.md").read_text()
    for cache in fsp.QUICK.cache_mib:
        for figure in ("Fig. 9", "Fig. 10", "Fig. 11", "Fig. 13", "Fig. 14"):
            assert f"### {figure} ({cache} MiB cache)" in text
    summary = tables["Summary: mean change against the other scheduler"]
    assert summary["paper"].dropna().to_dict() == fsp.PAPER
    # Every scheduler is 1.0 times itself: Baseline's column of Fig. 9 is all ones.
    fig9 = tables[f"Fig. 9 ({fsp.QUICK.cache_mib[0]} MiB cache): mean read latency normalised to Baseline"]
    assert (fig9["Baseline"] == 1.0).all() and "mean" in fig9.index
    for name in PLOTS:
        assert (out / name).stat().st_size > 0


def test_quick_reproduction_sets_rl_beside_its_random_control(quick):
    out, tables = quick
    runs = pd.read_csv(out / "runs.csv")
    agents = runs[runs["policy"].isin(["RL", "RL-control"])]
    assert (agents["rl_control"].astype(bool) == (agents["policy"] == "RL-control")).all()
    # A reward is a page type's (+-1 at most) plus, for a page read, a latency band's (+-1 at most).
    assert agents["rl_mean_reward"].between(-2, 2).all() and (agents["rl_q_spread_mean"] > 0).all()
    others = runs[~runs["policy"].isin(["RL", "RL-control"])]
    assert others[["rl_control", "rl_mean_reward", "rl_q_spread_mean"]].isna().all().all()
    control = tables["Learned vs random control: RL against RL-control"]
    assert len(control) == len(fsp.QUICK_TRACES) * len(fsp.QUICK.cache_mib) + 1
    ratio = control["read latency RL / RL-control"]
    assert ((ratio > 0) & ratio.map(math.isfinite)).all()
    assert control[["LSB read share RL", "LSB read share RL-control"]].stack().between(0, 1).all()
    # The LSB share per scheduler: every scheduler, the paper's Frequency and the counting one.
    share = tables["LSB read share (LSB reads / flash reads) per scheduler, mean over traces"]
    assert list(share.index) == list(fsp.POLICIES) and {"Frequency", "Frequency-count"} <= set(share.index)
    assert share.stack().between(0, 1).all()
    for trace in fsp.trace_labels([Path(t) for t in fsp.QUICK_TRACES]).values():
        assert (out / f"learning_curves_{trace}.png").stat().st_size > 0


def test_a_missing_trace_fails_before_anything_runs(tmp_path, capsys):
    missing = tmp_path / "no_such_trace.csv"
    with pytest.raises(ssdlab.ConfigError) as info:
        reproduce("fsp", [missing], tmp_path / "never")
    assert str(missing) in info.value.message
    with pytest.raises(SystemExit) as exit_info:
        main(["reproduce", "fsp", "--trace", str(missing), "--out", str(tmp_path / "never")])
    assert exit_info.value.code == 2
    assert str(missing) in capsys.readouterr().err.replace("\n", "")
    assert not (tmp_path / "never").exists()


def test_quick_results_are_those_before_the_move_onto_the_sweep_engine(quick, golden_runs):
    out, _ = quick
    golden_runs(out / "runs.csv", "fsp_quick_runs", ignore=("trace_path",))


def test_a_rerun_resumes_every_finished_run_and_writes_the_same_results(quick, traces, rerun_runs_nothing):
    out, _ = quick
    rerun_runs_nothing(
        out,
        lambda runner: reproduce(
            "fsp", None, out, shared_traces=traces, quick=True, verify=True, runner=runner
        ),
    )


def test_the_quick_grid_on_ray_gives_the_results_of_local_processes(traces, tmp_path, golden_runs):
    """`reproduce fsp --backend ray`: the same rows as the local processes (the golden), on a Ray
    instance the engine starts with two CPUs."""
    out = tmp_path / "ray"
    runner = Runner(backend="ray", processes=2)
    reproduce("fsp", None, out, shared_traces=traces, quick=True, verify=True, runner=runner)
    golden_runs(out / "runs.csv", "fsp_quick_runs", ignore=("trace_path",))


def test_quick_reproduction_runs_table_ii_workloads_first_with_the_placement_bound(quick):
    """The first grid: Table II's workloads from the paper's statistics, one verified row per run
    in paper_runs.csv; their summary is the first table and verdicts.csv; the placement table
    cannot beat all-LSB reads (-33 % of the mean read time) and Baseline is its own zero."""
    out, tables = quick
    paper = pd.read_csv(out / "paper_runs.csv")
    names = [w.removeprefix("fsp-") for w in fsp.QUICK_WORKLOADS]
    assert sorted(set(paper["trace"])) == sorted(names)
    assert len(paper) == len(names) * len(fsp.QUICK.cache_mib) * len(fsp.POLICIES) * fsp.QUICK.seeds
    assert paper["verified"].all() and (paper["requests"] == fsp.QUICK.trace_requests).all()
    assert set(paper["trace_path"]) == set(fsp.QUICK_WORKLOADS)
    first = next(iter(tables))
    assert first == f"{fsp.PAPER_PART}: {fsp.SUMMARY}"
    verdicts = pd.read_csv(out / "verdicts.csv")
    assert set(verdicts["headline"]) <= set(tables[first].index)
    assert verdicts["verdict"].isin(["reproduced", "partly", "not", "not measured"]).all()
    placement = tables[f"{fsp.PAPER_PART}: what placement alone allows"]
    assert list(placement.index) == list(fsp.POLICIES)
    assert placement.loc["Baseline", "placement alone vs Baseline (%)"] == 0
    all_lsb = 100 * (fsp.READ_US[0] / (sum(fsp.READ_US) / 4) - 1)
    assert all_lsb == pytest.approx(-33.33, abs=0.01)
    assert (placement["placement alone vs Baseline (%)"] >= all_lsb).all()
    assert placement["LSB share of flash reads (%)"].between(0, 100).all()
