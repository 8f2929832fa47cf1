"""The one reproduction pipeline (`ssdlab.experiments.pipeline`, `registry`): a tiny reproduction
of our own, registered beside the papers' and run end to end through the command `ssdlab
reproduce` builds from the registry (docs/experiments/README.md, "Adding a reproduction");
and every registered reproduction is a command with its package's steps."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import click
import pandas as pd
from click.testing import CliRunner

from ssdlab.cli.reproduce import group
from ssdlab.experiments.common import Job, Measured, write_verdicts
from ssdlab.experiments.pipeline import Choice, Context, Outcome, Parts, parts_of, reproduce
from ssdlab.experiments.registry import REPRODUCTIONS, Option, Reproduction
from ssdlab.setup import Setup

#: The toy paper's one figure: greedy GC's write amplification on the tiny drive.
PAPER_WAF = 1.0

#: The toy reproduction, whose package (its `PARTS`) is this module.
TOY = Reproduction(
    "toy",
    __name__,
    "A toy paper: greedy against FIFO victims on the tiny drive.",
    traces="traces (none: the toy runs a synthetic workload)",
    quick="CI-sized: 2,000 writes a run.",
    seeds=2,
    options=(Option("victims", ("--victim",), "Victim policies (default: greedy and fifo).", multiple=True),),
)


@dataclass(frozen=True)
class _Plan:
    jobs: list[Job]


def _prepare(choice: Choice) -> _Plan:
    count = 2_000 if choice.quick else 20_000
    victims = choice.options.get("victims") or ("greedy", "fifo")
    jobs = [
        Job(
            {"victim": victim, "seed": seed},
            Setup(
                "tiny",
                "randwrite",
                overrides=(
                    f"gc.victim={victim}",
                    f"seed={seed}",
                    f"workload.count={count}",
                    "device.utilization=0.9",
                ),
            ),
        )
        for victim in victims
        for seed in range(choice.seeds)
    ]
    return _Plan(jobs)


def _pick(job: Job, run: Measured) -> dict:
    return {**job.labels, "waf": run.figures["waf"], "erases": run.figures["erases"]}


def _run(ctx: Context, plan: _Plan) -> Outcome:
    runs = pd.DataFrame(ctx.run(plan.jobs, _pick))
    runs.to_csv(ctx.out / "runs.csv", index=False)
    table = runs.groupby("victim")[["waf", "erases"]].mean()
    ours = pd.DataFrame({"ours": [table.loc["greedy", "waf"]], "paper": [PAPER_WAF]}, index=["greedy WAF"])

    def figures(out: Path) -> None:
        import matplotlib.pyplot as plt

        from ssdlab.plots import save_figure

        fig, ax = plt.subplots()
        table["waf"].plot.bar(ax=ax)
        save_figure(fig, out / "toy_waf.png")

    return Outcome(
        {"WAF by victim policy": table},
        preamble="The toy paper on the tiny drive.",
        verdicts=lambda path: write_verdicts(path, ours),
        figures=figures,
        printed=[("WAF by victim policy", table)],
        files="runs.csv, tables.md, verdicts.csv, toy_waf.png",
    )


PARTS = Parts(_prepare, _run)


def test_a_registered_reproduction_runs_end_to_end_through_its_command(tmp_path, rerun_runs_nothing):
    out = tmp_path / "toy"
    commands = group((*REPRODUCTIONS, TOY))
    listed = CliRunner().invoke(commands, ["--help"], catch_exceptions=False)
    assert "toy" in listed.output and "A toy paper" in listed.output
    result = CliRunner().invoke(
        commands, ["toy", "--quick", "--victim", "greedy", "--victim", "fifo", "-o", str(out), "-j", "1"]
    )
    assert result.exit_code == 0, result.output
    runs = pd.read_csv(out / "runs.csv")
    # Two victims x the toy's default two seeds, each run's figures read through `run_figures`.
    assert sorted(zip(runs["victim"], runs["seed"], strict=True)) == [
        ("fifo", 0),
        ("fifo", 1),
        ("greedy", 0),
        ("greedy", 1),
    ]
    assert runs["waf"].map(math.isfinite).all() and (runs["waf"] >= 1).all()
    assert "### WAF by victim policy" in (out / "tables.md").read_text()
    assert (out / "tables.md").read_text().startswith("The toy paper on the tiny drive.")
    verdicts = pd.read_csv(out / "verdicts.csv")
    greedy = runs.loc[runs["victim"] == "greedy", "waf"].mean()
    assert verdicts["headline"].tolist() == ["greedy WAF"]
    assert verdicts["ours"].iloc[0] == greedy and verdicts["paper"].iloc[0] == PAPER_WAF
    off = abs(greedy / PAPER_WAF - 1)
    expected = "reproduced" if off <= 0.1 else "partly" if off <= 0.2 else "not"
    assert verdicts["verdict"].iloc[0] == expected
    assert (out / "toy_waf.png").stat().st_size > 0
    assert len(list((out / "cells").glob("*.json"))) == 4
    # The same pipeline from Python: every run kept in OUT/cells, none runs again.
    rerun_runs_nothing(out, lambda runner: reproduce(TOY, None, out, quick=True, runner=runner))


def test_the_seeds_default_is_the_reproductions_own_and_quick_cuts_the_runs():
    plan = _prepare(Choice(seeds=TOY.seeds, quick=True))
    assert len(plan.jobs) == 2 * TOY.seeds
    assert all("workload.count=2000" in job.setup.overrides for job in plan.jobs)


def test_every_registered_reproduction_is_a_command_with_its_packages_steps():
    commands = group()
    assert list(commands.commands) == [r.name for r in REPRODUCTIONS]
    for spec in REPRODUCTIONS:
        assert isinstance(parts_of(spec), Parts), spec.package
        command = commands.commands[spec.name]
        names = {p.name for p in command.params}
        common = {"traces", "traces_dir", "seeds", "quick", "verify", "jobs", "backend", "address", "resume"}
        assert common | {"ship_traces", "out"} | {o.name for o in spec.options} == names
        seeds = next(p for p in command.params if p.name == "seeds")
        assert isinstance(seeds, click.Option) and seeds.default == spec.seeds


def test_rlgc_runs_three_seeds_unless_told():
    assert next(r for r in REPRODUCTIONS if r.name == "rlgc").seeds == 3
