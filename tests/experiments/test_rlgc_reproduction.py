"""The RLGC reproduction: its documented set-up (the paper's Sec. 6.1: empty start, every request
measured, the stochastic policy) and the CI-sized `--quick` run end to end, with every mapping
verified for every scheduler (the full reproduction is marked `reproduce`, deselected by
default)."""

from __future__ import annotations

import math
import tomllib
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

import ssdlab
from ssdlab import config
from ssdlab.experiments import rlgc
from ssdlab.experiments.common import Runner
from ssdlab.experiments.pipeline import reproduce


@pytest.fixture
def loads(traces):
    return rlgc.workloads({traces / "msr" / "rsrch_1.txt.gz": ()}, ("bursts_20_80_hotcold",))


def test_plans_write_the_drive_the_stated_number_of_times(loads):
    settings = rlgc.Settings()
    probes = rlgc.probe(loads, rlgc.PRESETS, settings, runner=Runner(processes=1))
    # One pass on the empty drive erases nothing (no GC) and is measured in page programs.
    assert (probes["probe_erases"] == 0).all() and (probes["host_programs"] > 0).all()
    for preset, pages_per_block in (("kang-3d-128gb", 384), ("kang-3d-512gb", 768)):
        rows = {r["workload"]: r for r in probes[probes["preset"] == preset].to_dict("records")}
        for w in loads:
            p = rlgc.plan(preset, w, settings, rows[w.name])
            assert p["physical_pages"] == 2 * rlgc.BLOCKS_PER_PLANE * pages_per_block
            assert p["start"] == "empty"
            # Enough passes (or writes) for three drives, unless the request cap stopped it.
            assert p["drive_writes"] >= settings.drive_writes or p["requests"] > rlgc.MAX_REQUESTS * 0.99
            assert p["footprint_share"] == round(p["write_footprint_pages"] / p["physical_pages"], 4)
            # The paper's thresholds and the preset's action range, stated with the plan.
            assert (p["T_GC"], p["T_GC_A"], p["T_IGC"], p["aggressive_max_copies"]) == (10, 100, 3, 2)
            assert p["max_copies"] == 5
            assert p["intensive_copies"] == (5 if pages_per_block == 384 else 7)
        synthetic = rlgc.plan(preset, loads[1], settings, rows[loads[1].name])
        assert synthetic["write_footprint_pages"] == synthetic["addressable_pages"]
        assert 0.5 < synthetic["footprint_share"] < 0.6


def test_jobs_start_empty_and_give_each_baseline_its_own_settings(loads):
    settings = rlgc.Settings(seeds=2)
    probes = rlgc.probe(loads, rlgc.PRESETS, settings, runner=Runner(processes=1))
    jobs, plans = rlgc.build_jobs(loads, rlgc.PRESETS, rlgc.SCHEDULERS, settings, probes)
    # Page and LazyRTGC run once on the trace (`SEED_FREE`), every scheduler twice elsewhere.
    seed_free = sum(w.trace is not None for w in loads) * len(rlgc.PRESETS) * len(rlgc.SEED_FREE)
    assert len(plans) == 4 and len(jobs) == 4 * len(rlgc.SCHEDULERS) * 2 - seed_free
    once = [j for j in jobs if j.setup.trace is not None and j.labels["scheduler"] in rlgc.SEED_FREE]
    assert len(once) == seed_free and {j.labels["seed"] for j in once} == {0}
    for job in jobs:
        assert not any(o.startswith("warmup.") for o in job.setup.overrides), "the paper starts empty"
        assert "gc.rlgc.policy=stochastic" in job.setup.overrides  # footnote 2
        # Every job is a valid configuration: T_GC^A = 100 fits below the reachable free blocks.
        resolved = config.resolve(job.setup.preset, trace=job.setup.trace, overrides=job.setup.overrides)
        if job.labels["scheduler"] == "Page":
            blocks = 2 * rlgc.BLOCKS_PER_PLANE
            assert f"trigger_free_blocks = {math.ceil(0.05 * blocks)}" in resolved
        if job.labels["scheduler"] == "LazyRTGC":
            assert 'background = "idle"' in resolved


def test_controls_and_qtc_variants_change_only_what_their_names_say(loads):
    settings = rlgc.Settings(seeds=1)
    probes = rlgc.probe(loads[:1], rlgc.PRESETS[:1], settings, runner=Runner(processes=1))
    grid = rlgc.schedulers(include_predictors=False)
    assert set(grid) == {*rlgc.SCHEDULERS, "Base-2", "QTC-u1", "Base-control", "Aggr-control", "QTC-control"}
    jobs, _ = rlgc.build_jobs(loads[:1], rlgc.PRESETS[:1], grid, settings, probes)
    gc = {
        j.labels["scheduler"]: tomllib.loads(
            config.resolve(j.setup.preset, trace=j.setup.trace, overrides=j.setup.overrides)
        )["gc"]
        for j in jobs
    }
    for name in rlgc.LEARNED:
        control = gc[f"{name}-control"]
        assert control["rlgc"]["random_control"] and not gc[name]["rlgc"]["random_control"]
        assert control["scheduler"] == gc[name]["scheduler"]
    # The slides' action set (0..=2, QTC's own) for the RLGC that QTC is compared with.
    assert (gc["Base"]["rlgc"]["max_copies"], gc["Base-2"]["rlgc"]["max_copies"]) == (5, 2)
    assert gc["QTC"]["rlgc_qtc"]["max_copies"] == 2
    assert (gc["QTC"]["rlgc_qtc"]["unseen_copies"], gc["QTC-u1"]["rlgc_qtc"]["unseen_copies"]) == (0, 1)


@pytest.fixture(scope="module")
def quick(traces, tmp_path_factory):
    out = tmp_path_factory.mktemp("rlgc-quick")
    tables = reproduce(
        "rlgc", None, out, shared_traces=traces, quick=True, include_predictors=True, verify=True
    )
    return out, tables


def test_quick_reproduction_verifies_every_scheduler(quick):
    out, _ = quick
    runs = pd.read_csv(out / "runs.csv")
    schedulers = set(rlgc.schedulers(include_predictors=True))
    assert set(runs["scheduler"]) == schedulers
    assert len(runs) == len(schedulers) * 2 * 2 * rlgc.QUICK.seeds
    assert runs["verified"].all(), runs.loc[
        ~runs["verified"].astype(bool), ["preset", "workload", "scheduler"]
    ]
    assert (runs.loc[runs["scheduler"] != "Page", "emergency_reclaims"] == 0).all()


def test_quick_reproduction_flags_the_agents_still_exploring_beside_their_figures(quick):
    """Every learned run says how much it explored; the runs still exploring when they ended are
    counted per scheduler in a table of tables.md, beside the figures (issue #45)."""
    from ssdlab.experiments.common import EXPLORATION_TITLE

    out, tables = quick
    runs = pd.read_csv(out / "runs.csv")
    learned = runs[runs["rl_control"].notna() & (runs["rl_control"].astype(str) != "True")]
    assert len(learned) and learned["rl_exploration_share"].between(0, 1).all()
    choices = (
        learned["rl_explorations"]
        + learned["rl_exploitations"]
        + learned["rl_unseen_state_decisions"].fillna(0)
    )
    assert (learned["rl_exploration_share"] == learned["rl_explorations"] / choices).all()
    controls = runs[runs["rl_control"].astype(str) == "True"]
    assert (controls["rl_exploration_share"] == 1.0).all() and not controls["rl_exploring"].any()
    assert runs.loc[runs["rl_control"].isna(), "rl_exploring"].isna().all(), "no agent, no flag"
    table = tables[f"Real traces: {EXPLORATION_TITLE}"]
    for (preset, scheduler), row in table.iterrows():
        mine = learned[(learned["preset"] == preset) & (learned["scheduler"] == scheduler)]
        flagged = int(mine["rl_exploring"].sum())
        assert row["still exploring"] == (f"{flagged} of {len(mine)} †" if flagged else "0")
    # The quick runs are short: a few hundred GC decisions, most of them at epsilon 0.8.
    assert learned["rl_exploring"].any()
    assert EXPLORATION_TITLE in (out / "tables.md").read_text()


def test_quick_reproduction_states_its_set_up_and_starts_from_an_empty_drive(quick):
    out, _ = quick
    setup = pd.read_csv(out / "setup.csv")
    assert set(setup["workload"]) == {"wdev_3.csv", "bursts_20_80_hotcold"}
    assert (setup["start"] == "empty").all() and (setup["probe_erases"] == 0).all()
    assert (setup["drive_writes"] >= rlgc.QUICK.drive_writes).all()
    # Both workloads are within the paper's 7.5 ms at 99.99 % before any GC.
    assert setup["sustainable"].all()
    runs = pd.read_csv(out / "runs.csv")
    # An empty start: a run erases no more blocks than it filled (drive writes x WAF drives),
    # and Base RLGC, which reclaims only at T_GC = 10 free blocks, erases one drive fewer: the
    # first drive fills free blocks.
    for r in setup.itertuples():
        mine = runs[(runs["preset"] == r.preset) & (runs["workload"] == r.workload)]
        blocks = r.physical_pages / (384 if r.preset == "kang-3d-128gb" else 768)
        filled = r.drive_writes * mine["waf"] * blocks
        assert (mine["erases"] <= filled).all(), (r.workload, mine["erases"], filled)
        base = mine[mine["scheduler"] == "Base"]
        lazy_bound = (r.drive_writes * base["waf"] - 1) * blocks
        assert ((base["erases"] - lazy_bound).abs() < 0.05 * blocks).all(), (
            r.workload,
            base["erases"],
            lazy_bound,
        )


def test_quick_reproduction_tables_follow_the_papers_shape(quick):
    _, tables = quick
    for preset in rlgc.PRESETS:
        p9999 = tables[f"Real traces: {preset} p99.99 (normalised to LazyRTGC)"]
        assert {"average (sustainable)", "average (all)"} <= set(p9999.index)
        assert (p9999["LazyRTGC"] == 1.0).all()
        # The paper's one claim no scheduler change can fake: blocking page-level GC has the
        # longest tail where GC has valid pages to copy.
        assert p9999.loc["bursts_20_80_hotcold", "Page"] > 2.0
        assert f"Real traces: {preset} p99.99 std dev over seeds, % of mean" in tables
    spread = tables["Real traces: p99.99 ratio to LazyRTGC over seeds (sustainable workloads)"]
    assert ("Base", "std") in spread.index


def test_quick_reproduction_records_each_agents_learning(quick):
    out, _ = quick
    runs = pd.read_csv(out / "runs.csv")
    learners = [*rlgc.LEARNED, *rlgc.QTC_VARIANTS, *rlgc.CONTROLS]
    agents = runs[runs["scheduler"].isin(learners)]
    others = runs[~runs["scheduler"].isin(learners)]
    assert others[[f"rl_{c}" for c in rlgc.LEARNING]].isna().all().all()
    controls = agents["scheduler"].str.endswith("-control")
    assert (agents["rl_control"].astype(bool) == controls).all()
    # A control's every action is drawn at random; a learned agent exploits where GC has work.
    assert (agents.loc[controls, "rl_exploitations"] == 0).all()
    assert (agents.loc[controls, "rl_explorations"] > 0).all()
    bursts = agents[~controls & (agents["workload"] == "bursts_20_80_hotcold")]
    assert (bursts["rl_exploitations"] > 0).all()
    # The rewards are 1, 0.5, 0 and -0.5 (`gc.rlgc.rewards`).
    assert agents["rl_mean_reward"].dropna().between(-0.5, 1).all()
    assert (bursts["rl_q_spread_mean"] > 0).all()
    # Only QTC meets states its cache does not hold.
    qtc = agents["scheduler"].str.startswith("QTC")
    assert agents.loc[qtc, "rl_unseen_state_decisions"].notna().all()
    assert agents.loc[~qtc, "rl_unseen_state_decisions"].isna().all()
    assert (bursts.loc[bursts["scheduler"] == "QTC", "rl_unseen_state_decisions"] > 0).all()


def test_quick_reproduction_compares_learned_with_control_and_qtc_like_for_like(quick):
    out, tables = quick
    control = tables[
        "Real traces: learned vs random control: p99.99 learned / control (mean of per-seed ratios)"
    ]
    assert list(control.columns) == list(rlgc.LEARNED)
    for preset in rlgc.PRESETS:
        rows = control.loc[preset]
        assert {"wdev_3.csv", "bursts_20_80_hotcold", "average (sustainable)", "average (all)"} == set(
            rows.index
        )
        assert (rows > 0).all().all() and rows.map(math.isfinite).all().all()
    qtc = tables[next(t for t in tables if t.startswith("Real traces: QTC vs RLGC p99.99"))]
    assert list(qtc.columns) == ["QTC / Base-2", "QTC-u1 / Base-2", "QTC / Base", "paper"]
    figures = qtc.drop(columns="paper")
    assert (figures > 0).all().all() and figures.map(math.isfinite).all().all()
    averages = qtc.index.get_level_values("workload").str.startswith("average")
    assert (qtc.loc[averages, "paper"] == 0.88).all() and qtc.loc[~averages, "paper"].isna().all()
    for preset in rlgc.PRESETS:
        assert (out / f"learning_curves_{preset}.png").stat().st_size > 0


@pytest.mark.reproduce
def test_full_reproduction(traces, tmp_path):
    tables = reproduce("rlgc", None, tmp_path, seeds=1, shared_traces=traces, presets=("kang-3d-128gb",))
    assert f"{rlgc.PAPER_PART}: kang-3d-128gb p99.99 (normalised to LazyRTGC)" in tables
    assert "Real traces: kang-3d-128gb p99.99 (normalised to LazyRTGC)" in tables


def test_quick_results_are_those_before_the_move_onto_the_sweep_engine(quick, golden_runs):
    out, _ = quick
    golden_runs(out / "runs.csv", "rlgc_quick_runs", digests=("gc_report",))


def test_a_rerun_resumes_every_finished_run_and_writes_the_same_results(quick, traces, rerun_runs_nothing):
    out, _ = quick
    rerun_runs_nothing(
        out,
        lambda runner: reproduce(
            "rlgc",
            None,
            out,
            shared_traces=traces,
            quick=True,
            include_predictors=True,
            verify=True,
            runner=runner,
        ),
    )


def test_quick_paper_part_runs_table_1s_workloads_with_every_control(quick):
    out, tables = quick
    runs = pd.read_csv(out / "paper_runs.csv")
    grid = rlgc.paper_schedulers()
    assert set(runs["scheduler"]) == set(grid)
    assert len(runs) == len(grid) * len(rlgc.PRESETS) * rlgc.QUICK.paper_seeds
    assert runs["verified"].all()
    assert set(runs["workload"]) == {"home1"}
    # Each learned scheduler has a control with the same action set; QTC-u1 shares QTC's.
    for name, control in rlgc.PAPER_LEARNED.items():
        assert name in grid and control in grid
    setup = pd.read_csv(out / "paper_setup.csv")
    assert (setup["start"] == "empty").all() and (
        setup["drive_writes"] >= rlgc.QUICK.paper_drive_writes
    ).all()
    # The spec's 1.25 GiB write footprint in each part's pages, packed into the addressable
    # space (which the quick drive's 256 blocks per plane make smaller than it on 128 Gb).
    for r in setup.itertuples():
        pages = 1280 * (128 if r.preset == "kang-3d-128gb" else 64)
        assert r.write_footprint_pages == min(pages, r.addressable_pages)
    control = tables[f"{rlgc.PAPER_PART}: learned vs random control"]
    assert list(control.columns) == list(rlgc.PAPER_LEARNED)
    # Rows of measured figures only: "average (sustainable)" is empty where no workload is.
    figures = control.dropna(how="all")
    assert (figures > 0).all().all() and figures.map(math.isfinite).all().all()
    assert {"home1", "average (all)"} <= set(figures.index.get_level_values("workload"))
    verdicts = pd.read_csv(out / "verdicts.csv")
    assert set(rlgc.PAPER_AVG) <= set(verdicts["headline"])
    assert verdicts["verdict"].isin(["reproduced", "partly", "not"]).all()
    checks = verdicts[verdicts["headline"].str.contains("control|Aggr < Base")]
    assert len(checks) == len(rlgc.PAPER_LEARNED) + len(rlgc.PRESETS)


def test_quick_paper_results_are_stable(quick, golden_runs):
    out, _ = quick
    golden_runs(out / "paper_runs.csv", "rlgc_quick_paper_runs", digests=("gc_report",))


def test_base_2s_control_is_qtc_control():
    """The paper part runs no Base-2-control: QTC-control stands for it (`PAPER_LEARNED`). That
    holds only while both run the drive identically; here, on the quick paper run's drive and
    workload, with GC under way, for two seeds."""
    assert rlgc.PAPER_LEARNED["Base-2"] == "QTC-control" and "Base-2-control" not in rlgc.paper_schedulers()
    base = (
        "device.blocks_per_plane=256",
        "device.utilization=0.6",
        "gc.rlgc.policy=stochastic",
        "workload.fold=compact",
        "workload.count=200000",
        "gc.rlgc.random_control=true",
    )
    for seed in (0, 1):
        reports = [
            ssdlab.run("kang-3d-128gb", "rlgc-home1", overrides=(*base, *sched, f"seed={seed}"))
            for sched in (rlgc.QTC_VARIANTS["Base-2"], rlgc.SCHEDULERS["QTC"])
        ]
        base_2, qtc = (r.raw for r in reports)
        assert base_2["gc"]["victims_reclaimed"] > 100 and base_2["gc"]["partial_steps"] > 100
        for key in ("latency", "wear", "waf", "gc", "time_series"):
            assert base_2[key] == qtc[key], key
        assert reports[0].histograms["write"] == reports[1].histograms["write"]


def test_a_coarse_histogram_keeps_every_count_and_rounds_values_up_to_three_digits():
    pairs = [(999, 1), (1_000, 2), (1_004, 3), (1_005, 4), (123_456_789, 5)]
    coarse = rlgc._coarse(pairs)
    assert coarse == [(999, 1), (1_000, 2), (1_010, 7), (124_000_000, 5)]
    assert sum(c for _, c in coarse) == sum(c for _, c in pairs)


def test_seed_free_runs_are_the_same_for_every_seed(traces):
    """Page and LazyRTGC run once per trace and stand for every seed (`rlgc.SEED_FREE`). That
    holds only while neither draws a random number and a trace's requests take none: here both
    run one trace with GC under way for two seeds, and report the same drive."""
    loads = rlgc.workloads({traces / "msr" / "wdev_3.csv": ()}, ())
    settings = rlgc.QUICK
    probes = rlgc.probe(loads, rlgc.PRESETS[:1], settings, runner=Runner(processes=1))
    jobs, _ = rlgc.build_jobs(loads, rlgc.PRESETS[:1], rlgc.SCHEDULERS, settings, probes)
    for job in (j for j in jobs if j.labels["scheduler"] in rlgc.SEED_FREE):
        assert job.setup.overrides[-1] == "seed=0"
        reports = [
            replace(
                job, setup=replace(job.setup, overrides=(*job.setup.overrides[:-1], f"seed={seed}"))
            ).run()
            for seed in (0, 1)
        ]
        first, second = (r.raw for r in reports)
        assert first["gc"]["victims_reclaimed"] > 100, job.labels
        for key in ("latency", "wear", "waf", "gc", "time_series", "policies"):
            assert first[key] == second[key], (job.labels, key)
        assert reports[0].histograms["write"] == reports[1].histograms["write"]


def test_a_seed_free_row_stands_for_every_seed_in_order():
    loads = [rlgc.Workload("t", Path("t.csv"), ()), rlgc.Workload("s", None, ())]
    rows = [
        {"workload": w, "scheduler": s, "seed": 0, "p": i, "free_blocks": [1]}
        for i, (w, s) in enumerate((("t", "Page"), ("t", "Base"), ("s", "Page")))
    ]
    out = rlgc._fan_out(rows, loads, seeds=3)
    assert [(r["workload"], r["scheduler"], r["seed"]) for r in out] == [
        ("t", "Page", 0),
        ("t", "Page", 1),
        ("t", "Page", 2),
        ("t", "Base", 0),
        ("s", "Page", 0),
    ]
    assert [r["p"] for r in out[:3]] == [0, 0, 0]
    assert out[0]["free_blocks"] == [1] and out[1]["free_blocks"] is None
