"""The LearnedFTL reproduction: its documented set-up (Sec. 4.2: 64 jobs, a timed random-write
warm-up before reads and traces, writes from the empty drive, each FTL with its own allocation)
and the CI-sized `--quick` run end to end, every mapping verified."""

from __future__ import annotations

import pandas as pd
import pytest

from ssdlab import config
from ssdlab.experiments import learnedftl
from ssdlab.experiments.pipeline import reproduce


def test_every_job_is_a_valid_configuration_with_the_papers_setup():
    settings = learnedftl.QUICK
    jobs = learnedftl.fio_jobs(settings) + learnedftl.cmt_jobs(settings)
    assert len(jobs) == len(learnedftl.PATTERNS) * len(learnedftl.FTLS) + len(learnedftl.CMT_SHARES)
    for job in jobs:
        resolved = config.resolve(job.setup.preset, overrides=job.setup.overrides)
        assert "numjobs = 64" in resolved
        warm = any(o.startswith("warmup.timed_random_writes_ns=") for o in job.setup.overrides)
        # Reads after the warm-up, writes from the empty drive (Sec. 4.2).
        assert warm == job.labels["workload"].endswith("read")
        if job.labels["ftl"] == "LearnedFTL":
            assert 'placement = "group"' in resolved and 'victim = "group"' in resolved
        elif job.labels["figure"] == "fig14":
            assert 'placement = "line"' in resolved


def test_fig3c_sizes_tpftls_cache_as_a_share_of_the_table():
    settings = learnedftl.QUICK
    table_bytes = learnedftl.logical_pages(settings) * 8
    sizes = []
    for job in learnedftl.cmt_jobs(settings):
        assert "ftl.equal_dram=false" in job.setup.overrides
        (cmt,) = [o for o in job.setup.overrides if o.startswith("ftl.tpftl.cmt_bytes=")]
        sizes.append(int(cmt.split("=")[1]) / table_bytes)
    assert sizes == pytest.approx(list(learnedftl.CMT_SHARES), rel=1e-3)


def test_sequential_jobs_share_their_offsets_as_fio_runs_them_and_the_split_is_a_stress_case():
    """seqread and seqwrite: fio's 64 jobs from the same offset over the whole space, each with
    its own cursor (offset_increment 0, no size); seqwrite_split, the stress case: each job on its
    own 64th (offset_increment = size), the 64 of them (nearly) the whole space. The core refuses
    a region beyond the space, so resolving each config checks that they fit."""
    settings = learnedftl.QUICK

    def job(pattern: str):
        (found,) = [
            j
            for j in learnedftl.fio_jobs(settings)
            if (j.labels["workload"], j.labels["ftl"]) == (pattern, "DFTL")
        ]
        keys = dict(o.split("=", 1) for o in found.setup.overrides if o.startswith("workload."))
        config.resolve(found.setup.preset, overrides=list(found.setup.overrides))
        return keys

    for pattern in ("seqread", "seqwrite"):
        keys = job(pattern)
        assert keys["workload.offset_increment"] == "0" and "workload.size" not in keys
        assert keys["workload.numjobs"] == "64"
    split = job("seqwrite_split")
    inc, size = int(split["workload.offset_increment"]), int(split["workload.size"])
    assert inc == size and size % 4096 == 0
    assert 64 * (size + 4096) > 0.99 * learnedftl.logical_pages(settings) * 4096


def test_the_artifact_accounting_sets_what_the_authors_code_does():
    """Issue #33's second accounting: the artifact's FTLs (no ideal) on the paper's four patterns,
    every CMT 8,192 entries' worth on the paper's drive (counted in entries: 8-byte entries, no
    node bytes, no equal-DRAM top-up), DFTL and TPFTL with GC in free lines (foreground at 12,
    background between requests at 64), LearnedFTL's translation programs in no time."""
    settings = learnedftl.Settings()
    jobs = learnedftl.fio_jobs(settings, accounting="artifact")
    assert {j.labels["ftl"] for j in jobs} == {"DFTL", "TPFTL", "LearnedFTL"}
    assert {j.labels["workload"] for j in jobs} == set(learnedftl.ARTIFACT_PATTERNS)
    assert {j.labels["accounting"] for j in jobs} == {"artifact"}
    for job in jobs:
        resolved = config.resolve(job.setup.preset, overrides=job.setup.overrides)
        assert "equal_dram = false" in resolved and "node_bytes = 0" in resolved
        assert resolved.count("cmt_bytes = 65536") == 3  # 8,192 x 8 bytes, each FTL's
        if job.labels["ftl"] == "LearnedFTL":
            assert 'translation_program_time = "none"' in resolved
            assert "trigger_free_blocks = 192" in resolved  # the preset's 3 lines, its own code's
        else:
            # 64 blocks per line: "below 12 x 64 + 1" is "at most 12 free lines".
            assert "trigger_free_blocks = 769" in resolved
            assert 'background = "between_requests"' in resolved
            assert "background_free_blocks = 4097" in resolved
    with pytest.raises(ValueError, match="accounting"):
        learnedftl.fio_jobs(settings, accounting="femu")


def test_the_stress_case_runs_its_first_drive_write_apart():
    """`seqwrite_split` per pass: a run of exactly the addressed pages (one drive write) per FTL,
    whose full-length twin is Fig. 14's row, and LearnedFTL with the guard, first and full."""
    settings = learnedftl.QUICK
    jobs = learnedftl.stress_jobs(settings)
    pages = learnedftl._used_pages(settings)
    spans = {(j.labels["ftl"], j.labels["guard"], j.labels["span"]) for j in jobs}
    assert spans == {(f, 0.0, "first") for f in learnedftl.FTLS} | {
        ("LearnedFTL", learnedftl.STRESS_GUARD, "first"),
        ("LearnedFTL", learnedftl.STRESS_GUARD, "all"),
    }
    for job in jobs:
        keys = dict(o.split("=", 1) for o in job.setup.overrides)
        config.resolve(job.setup.preset, overrides=list(job.setup.overrides))
        if job.labels["span"] == "first":
            assert keys["workload.count"] == str(pages) and "workload.duration_ns" not in keys
        else:
            assert "workload.count" not in keys and "workload.duration_ns" in keys
        assert ("gc.group.min_invalid_fraction" in keys) == bool(job.labels["guard"])


@pytest.fixture(scope="module")
def quick(traces, tmp_path_factory):
    out = tmp_path_factory.mktemp("learnedftl-quick")
    tables = reproduce("learnedftl", None, out, shared_traces=traces, quick=True, verify=True)
    return out, tables


def test_quick_reproduction_verifies_every_ftl_and_writes_its_outputs(quick):
    out, tables = quick
    runs = pd.read_csv(out / "runs.csv")
    assert runs["verified"].all()
    assert set(runs["figure"]) == {"fig14", "fig3c", "fig20", "stress"}
    assert {"preset", "trace", "ftl", "seed", "iops", "model_hit_ratio", "waf"} <= set(runs.columns)
    for name in ("tables.md", "fig14_fig15.png", "fig20.png"):
        assert (out / name).stat().st_size > 0
    assert "Fig. 14(a): throughput (KIOPS)" in tables


def test_quick_reproduction_shows_the_mechanisms_the_paper_relies_on(quick):
    out, _ = quick
    runs = pd.read_csv(out / "runs.csv")
    runs = runs[runs["accounting"] == "paper"].set_index(["figure", "workload", "ftl"]).sort_index()
    randread = runs.loc[("fig14", "randread")]
    # The warm-up's group GC trained the models (its figures are reset before the reads), so
    # they serve a share of random reads that the CMTs of DFTL and TPFTL (a few % of the table)
    # cannot.
    assert randread.loc["LearnedFTL", "model_hit_ratio"] > 0.1
    assert randread.loc["TPFTL", "read_cmt_hit_ratio"] < 0.2
    # No double read is cheaper than one: the ideal FTL bounds them all.
    for ftl in ("DFTL", "TPFTL", "LearnedFTL"):
        assert randread.loc[ftl, "iops"] < randread.loc["ideal", "iops"]
    assert randread.loc["LearnedFTL", "iops"] > randread.loc["TPFTL", "iops"]
    # A bigger CMT hits more often (Fig. 3c).
    cmt = runs.loc["fig3c"].sort_values("cmt_share")
    assert cmt["read_cmt_hit_ratio"].is_monotonic_increasing
    # Group GC collects whole lines; the baselines' GC runs on lines too (FEMU's allocation).
    writes = runs.loc[("fig14", "randwrite")]
    assert (writes["erased_blocks"] > 0).all()
    assert writes.loc["LearnedFTL", "line_collections"] > 0
    assert writes.loc["LearnedFTL", "trainings"] > 0


def test_quick_results_are_those_before_the_move_onto_the_sweep_engine(quick, golden_runs):
    """The paper's rows as before issue #33 part 3 (the golden's first 26 rows), then the artifact
    accounting's and the stress case's."""
    out, _ = quick
    golden_runs(out / "runs.csv", "learnedftl_quick_runs", ignore=("trace",))


def test_a_rerun_resumes_every_finished_run_and_writes_the_same_results(quick, traces, rerun_runs_nothing):
    out, _ = quick
    rerun_runs_nothing(
        out,
        lambda runner: reproduce(
            "learnedftl", None, out, shared_traces=traces, quick=True, verify=True, runner=runner
        ),
    )


def test_quick_reproduction_splits_waf_into_gc_and_translation_pages(quick):
    """WAF = 1 (the host's pages) + GC's + the translation pages' (issue #33's split), per run;
    the page mapping writes no translation pages, the demand-based ones do."""
    out, tables = quick
    runs = pd.read_csv(out / "runs.csv")
    writes = runs[runs["waf"] > 0]
    assert {"ideal", "DFTL", "TPFTL", "LearnedFTL"} <= set(writes["ftl"])
    assert (writes["waf"] - 1 - writes["waf_gc"] - writes["waf_mapping"]).abs().max() < 1e-9
    assert (writes.loc[writes["ftl"] == "ideal", "waf_mapping"] == 0).all()
    assert (writes.loc[writes["ftl"].isin(["DFTL", "TPFTL"]), "waf_mapping"] > 0).all()
    assert "Fig. 14(c): WAF from GC / from translation pages" in tables


def test_quick_reproduction_runs_both_accountings_and_writes_the_verdicts(quick):
    """The artifact accounting's runs are verified like the others; its options show where they
    should: DFTL and TPFTL collect lines in the background, LearnedFTL's translation programs take
    no mapping time beyond their reads. verdicts.csv holds each checked headline per accounting."""
    out, tables = quick
    runs = pd.read_csv(out / "runs.csv")
    artifact = runs[runs["accounting"] == "artifact"].set_index(["workload", "ftl"])
    assert len(artifact) == len(learnedftl.ARTIFACT_PATTERNS) * len(learnedftl.ARTIFACT_FTLS)
    assert artifact["verified"].all()
    for ftl in ("DFTL", "TPFTL"):
        assert artifact.loc[("randwrite", ftl), "background_collections"] > 0
    assert (runs.loc[runs["accounting"] == "paper", "background_collections"] == 0).all()
    assert "Fig. 14(a): throughput (KIOPS) (artifact accounting)" in tables
    verdicts = pd.read_csv(out / "verdicts.csv").set_index("headline")
    for name in ("paper", "artifact"):
        for headline in learnedftl.VERDICT_HEADLINES:
            row = verdicts.loc[f"{headline} [{name} accounting]"]
            assert row["verdict"] in {"reproduced", "partly", "not"}, (headline, name)
    waf = verdicts.loc["seqwrite LearnedFTL WAF [paper accounting]"]
    assert waf["verdict"] == ("reproduced" if waf["ours"] <= 1.2 else "not")
    stress = tables["Stress case seqwrite_split per pass (not the paper's; paper accounting)"]
    assert {"LearnedFTL", f"LearnedFTL, guard {learnedftl.STRESS_GUARD:g}", "ideal"} <= set(stress.index)
    assert (stress["first write WAF"] >= 1).all()
