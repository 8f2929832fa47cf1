"""Layer: Python, experiments. One job: run variants of one configuration side by side (any key
`--set` takes: a GC scheduler, a threshold, a device size), each over several seeds, in parallel
processes, and collect per-run figures, a comparison table (mean and spread over seeds) and the
pooled write-latency distributions for tail plots. `ssdlab compare` is its command line and
`make run` its first user.
"""

from __future__ import annotations

import itertools
import math
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ssdlab import exploration
from ssdlab.config import ConfigOverride, flatten, resolve_explained
from ssdlab.errors import ConfigError
from ssdlab.experiments.common import Job, Measured, Runner, run_jobs
from ssdlab.report import run_figures as run_figures  # the figures of runs.csv, as the tests read them
from ssdlab.setup import Setup as Setup  # what every variant shares, before the varied keys

#: The figures of the comparison table, in runs.csv units (us for latencies).
TABLE_METRICS = ("write_p99_us", "write_p99_99_us", "waf", "erases")


@dataclass(frozen=True)
class Vary:
    """One varied key and its values, as given: `gc.scheduler=greedy,lazy_rtgc`."""

    key: str
    values: tuple[str, ...]

    @classmethod
    def parse(cls, spec: str) -> Vary:
        """Parse `KEY=V1,V2,...`. Commas inside brackets or quotes belong to the value, so a
        list value reads `key=[1, 2],[3, 4]`."""
        key, sep, rest = spec.partition("=")
        key = key.strip()
        if not sep or not key or not rest.strip():
            raise ConfigError(f"--vary '{spec}' is not KEY=V1,V2,...", problems=[("--vary", spec)])
        values = tuple(v.strip() for v in _split_top_level(rest))
        if any(not v for v in values):
            raise ConfigError(f"--vary '{spec}' has an empty value", problems=[("--vary", spec)])
        if len(set(values)) != len(values):
            raise ConfigError(f"--vary '{spec}' repeats a value", problems=[("--vary", spec)])
        return cls(key, values)


def _split_top_level(text: str) -> list[str]:
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


@dataclass(frozen=True)
class Variant:
    """One combination of varied values: `settings` maps each varied key to its value.
    `control_keys` makes it the random-action control of that combination's learned policies
    (`--with-controls`): each key (`gc.rlgc.random_control`, ...) set to true."""

    settings: dict[str, str]
    control_keys: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """The value alone when one key varies (`greedy`), else `key=value` pairs; a control's
        label ends in ` (random control)`."""
        if len(self.settings) == 1:
            label = next(iter(self.settings.values()))
        else:
            label = " ".join(f"{k}={v}" for k, v in self.settings.items())
        return f"{label}{CONTROL_SUFFIX}" if self.control_keys else label

    @property
    def slug(self) -> str:
        """The label as a file-name part."""
        return re.sub(r"[^A-Za-z0-9._-]+", "_", self.label).strip("_") or "variant"

    def overrides(self) -> list[str]:
        return [f"{k}={v}" for k, v in self.settings.items()] + [f"{k}=true" for k in self.control_keys]


#: What a random-action control's label ends with.
CONTROL_SUFFIX = " (random control)"


@dataclass
class Comparison:
    """The outcome of `compare`, `seeds` runs per variant: `runs` (one dict per run, the rows of
    runs.csv, in variant then seed order), `tails` (each variant's write-latency histogram, seeds
    pooled: sorted (latency_ns, count) pairs), `reports` (each run's full JSON report, in the
    order of `runs`) and `histograms` (each run's latency histograms, same order), which the
    saved reports carry so that `ssdlab report` draws exact latency CDFs from them."""

    keys: list[str]
    variants: list[Variant]
    seeds: int
    runs: list[dict[str, Any]]
    tails: dict[str, list[tuple[int, int]]]
    reports: list[dict[str, Any]] = field(repr=False)
    histograms: list[dict[str, list[tuple[int, int]]]] = field(default_factory=list, repr=False)

    def table(self) -> list[dict[str, Any]]:
        """Per variant: its settings, the number of runs, for each of TABLE_METRICS the mean
        over seeds and the sample standard deviation (NaN with one seed, or where a figure does
        not exist, e.g. write latencies of a read-only run), whether it is a random-action
        control (`control`), and `exploring` (`exploring`)."""
        rows = []
        for variant in self.variants:
            mine = [r for r in self.runs if r["variant"] == variant.label]
            row: dict[str, Any] = {
                **variant.settings,
                "variant": variant.label,
                "control": bool(variant.control_keys),
                "runs": len(mine),
            }
            for metric in TABLE_METRICS:
                values = [float(r[metric]) for r in mine]
                row[metric], row[f"{metric}_sd"] = _mean_sd(values)
            row["exploring"] = self.exploring(variant.label)
            rows.append(row)
        return rows

    def exploring(self, label: str) -> str:
        """Why the variant `label`'s agents count as still exploring when its runs ended, with
        their share of explored decisions and their epsilon schedule (`ssdlab.exploration`);
        empty when they do not (or it has no agent)."""
        mine = [raw for row, raw in zip(self.runs, self.reports, strict=True) if row["variant"] == label]
        return exploration.group_why(mine)


def _mean_sd(values: Sequence[float]) -> tuple[float, float]:
    if not values or any(math.isnan(v) for v in values):
        return math.nan, math.nan
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, math.nan
    var = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return mean, math.sqrt(var)


def variants(varies: Sequence[Vary]) -> list[Variant]:
    """Every combination of the varied values, first key slowest."""
    keys = [v.key for v in varies]
    if len(set(keys)) != len(keys):
        raise ConfigError("a key is given to --vary twice", problems=[("--vary", ", ".join(keys))])
    return [
        Variant(dict(zip(keys, combo, strict=True)))
        for combo in itertools.product(*(v.values for v in varies))
    ]


def overridden(setup: Setup) -> list[ConfigOverride]:
    """The keys a later layer of the shared configuration overrode (before the varied keys)."""
    return resolve_explained(**setup.arguments(), origins=False).overridden


def control_keys() -> tuple[str, ...]:
    """The keys that turn a learned policy into its random-action control: the `random_control`
    of every policy settings table that has one (`gc.rlgc`, `cache.page_type_eviction`,
    `slc.rl`), read from the configuration schema, so a new learned seam is found here too."""
    from ssdlab.sweeps.keys import config_keys

    return tuple(sorted(k for k in config_keys() if k.endswith(".random_control")))


def _resolve(setup: Setup, overrides: Sequence[str]) -> str:
    return replace(setup, overrides=tuple(overrides)).resolve()


def with_controls(setup: Setup, all_variants: Sequence[Variant]) -> list[Variant]:
    """Every variant followed by its random-action control when its configuration runs a policy
    that learns: the control sets each `control_keys` key the core accepts for it to true (the
    core's check refuses a control for a policy that does not learn: `gc.scheduler = "greedy"`,
    or an eviction policy without a write buffer). A variant that already is a control gets none.
    Refused when no variant learns."""
    out: list[Variant] = []
    keys = control_keys()
    for variant in all_variants:
        out.append(variant)
        base = (*setup.overrides, *variant.overrides())
        resolved = flatten(tomllib.loads(_resolve(setup, base)))
        if any(resolved.get(k) is True for k in keys):
            continue
        learned = []
        for key in keys:
            try:
                _resolve(setup, (*base, f"{key}=true"))
            except ConfigError:
                continue
            learned.append(key)
        if learned:
            out.append(Variant(variant.settings, tuple(learned)))
    if len(out) == len(all_variants):
        raise ConfigError(
            "--with-controls: no compared variant runs a policy that learns, so none has a random-action "
            f"control (set by {', '.join(keys)})",
            problems=[("--with-controls", ", ".join(v.label for v in all_variants))],
        )
    return out


def plan(
    setup: Setup, varies: Sequence[Vary], seeds: int, controls: bool = False
) -> tuple[list[Variant], list[Job]]:
    """Validate every variant's configuration (all problems before anything runs) and build the
    jobs. A variant's seeds are S, S+1, ..., S+seeds-1, S being its configured seed (0 unless set
    or varied). With `controls`, each learned variant is followed by its random-action control
    (`with_controls`), run with the same seeds."""
    if seeds < 1:
        raise ConfigError("--seeds must be at least 1", problems=[("--seeds", str(seeds))])
    all_variants = variants(varies)
    if seeds > 1 and any("seed" in v.settings for v in all_variants):
        raise ConfigError("vary `seed` or give --seeds, not both", problems=[("--seeds", str(seeds))])
    if controls:
        all_variants = with_controls(setup, all_variants)
    jobs = []
    for variant in all_variants:
        overrides = (*setup.overrides, *variant.overrides())
        base_seed = tomllib.loads(_resolve(setup, overrides))["seed"]
        for seed in range(base_seed, base_seed + seeds):
            jobs.append(
                Job(
                    labels={"variant": variant.label, **variant.settings, "seed": seed},
                    setup=replace(setup, overrides=(*overrides, f"seed={seed}")),
                )
            )
    return all_variants, jobs


def _worker(job: Job, run: Measured) -> dict[str, Any]:
    report = run.report
    return {
        # The agents' exploration beside the figures: a learned policy still exploring is flagged.
        "row": {**job.labels, **run.figures, **exploration.run_columns(report)},
        "write_histogram": report.histograms.get("write", []),
        "raw": report.raw,
        "histograms": report.histograms,
    }


def _pool(histograms: Sequence[Sequence[tuple[int, int]]]) -> list[tuple[int, int]]:
    pooled: dict[int, int] = {}
    for pairs in histograms:
        for value, count in pairs:
            pooled[value] = pooled.get(value, 0) + count
    return sorted(pooled.items())


def compare(
    setup: Setup,
    varies: Sequence[Vary],
    seeds: int = 1,
    processes: int | None = None,
    controls: bool = False,
) -> Comparison:
    """Run every variant over `seeds` seeds, in up to `processes` processes (default: one per
    core), and collect the results; with `controls`, each learned variant's random-action
    control beside it (`with_controls`)."""
    all_variants, jobs = plan(setup, varies, seeds, controls)
    results = run_jobs(jobs, _worker, Runner(processes=processes))
    tails = {
        v.label: _pool([r["write_histogram"] for r in results if r["row"]["variant"] == v.label])
        for v in all_variants
    }
    return Comparison(
        keys=[v.key for v in varies],
        variants=all_variants,
        seeds=seeds,
        runs=[r["row"] for r in results],
        tails=tails,
        reports=[r["raw"] for r in results],
        histograms=[r["histograms"] for r in results],
    )


def write_outputs(comparison: Comparison, out: Path, title: str = "") -> dict[str, Path]:
    """Write runs.csv, reports/<variant>_seed<k>.json and, if any variant wrote, the tail plot
    write_latency_tail.png under `out`; returns what was written, by kind."""
    import csv

    from ssdlab.report import Report

    out.mkdir(parents=True, exist_ok=True)
    (out / "reports").mkdir(exist_ok=True)
    slugs = {v.label: v.slug for v in comparison.variants}
    histograms = comparison.histograms or [{} for _ in comparison.reports]
    rows = []
    for row, raw, runs_histograms in zip(comparison.runs, comparison.reports, histograms, strict=True):
        name = f"reports/{slugs[row['variant']]}_seed{row['seed']}.json"
        Report(raw, histograms=runs_histograms).save(out / name)
        rows.append({**row, "report": name})
    written = {"runs": out / "runs.csv", "reports": out / "reports"}
    with open(written["runs"], "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    if any(comparison.tails.values()):
        from ssdlab import plots

        pooled = f", {comparison.seeds} seeds pooled" if comparison.seeds > 1 else ""
        plots.latency_tail(
            comparison.tails,
            path=out / "write_latency_tail.png",
            title=f"{title}{pooled}" if title else f"write latency tail{pooled}",
        )
        written["plot"] = out / "write_latency_tail.png"
    return written
