"""Inputs of `ssdlab report` built from real tiny runs, for the report's tests (tests/htmlreport)
and its browser test (tests/browser): a run report, a `compare` directory, a sweep directory and
a reproduction directory.

The sweep directory follows the layout `ssdlab sweep` writes (issue #32): `grid.toml`,
`results.parquet` with a row per cell (`cell_id`, a column per axis, `seed`, `status` ok/failed,
`error`, `wall_s`, `ssdlab_version`, `verify`, the figures of `experiments.compare.run_figures`
and `report`, the path of the cell's report) and the Parquet metadata `ssdlab.sweep_schema` = 1,
each cell a real run. A cell whose configuration is invalid is recorded failed, as the sweep
records it.
"""

from __future__ import annotations

import csv
import hashlib
import itertools
import json
import time
from collections.abc import Sequence
from pathlib import Path

import ssdlab
from ssdlab.errors import SsdlabError
from ssdlab.experiments import compare as experiment
from ssdlab.experiments.compare import run_figures

#: A small run with reads, writes, GC at steady state and an agent that learns (RLGC).
SMALL_RUN = (
    "workload.count=20000",
    "warmup.fill=true",
    "gc.trigger_free_blocks=12",
    "gc.rlgc.zero_interval=same_arrival",
)


def run_report(out: Path, requests: int = 60_000) -> Path:
    """One RLGC run on the tiny device (a learning curve of several windows), saved as
    `ssdlab run --out` saves it."""
    report = ssdlab.run(
        preset="tiny",
        workload="randrw",
        overrides=[*SMALL_RUN, f"workload.count={requests}", "gc.scheduler=rlgc"],
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    report.save(out)
    return out


def compare_dir(
    out: Path,
    schedulers: str = "greedy,rlgc",
    seeds: int = 2,
    also_vary: Sequence[str] = (),
    requests: int | None = None,
) -> Path:
    """A `compare` directory, as `ssdlab compare --out` writes it: `gc.scheduler` varied, and
    each of `also_vary` (`KEY=V1,V2`)."""
    overrides = (*SMALL_RUN, f"workload.count={requests}") if requests else SMALL_RUN
    setup = experiment.Setup(preset="tiny", workload="randrw", overrides=overrides)
    varies = [experiment.Vary.parse(f"gc.scheduler={schedulers}"), *map(experiment.Vary.parse, also_vary)]
    comparison = experiment.compare(setup, varies, seeds=seeds, processes=1)
    experiment.write_outputs(comparison, out, title="tiny, randrw")
    return out


def sweep_dir(
    out: Path,
    axes: dict[str, Sequence[object]],
    seeds: int = 1,
    requests: int = 20_000,
    schema: str = "1",
) -> Path:
    """A sweep directory of every combination of `axes` (config key -> values) x seeds, each
    cell a real run of the tiny device. Returns `out`."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    (out / "reports").mkdir(parents=True, exist_ok=True)
    keys = list(axes)
    rows = []
    for combo in itertools.product(*axes.values()):
        for seed in range(seeds):
            settings = dict(zip(keys, combo, strict=True))
            overrides = [*SMALL_RUN, f"workload.count={requests}", *(f"{k}={v}" for k, v in settings.items())]
            overrides.append(f"seed={seed}")
            cell_id = hashlib.sha256("\n".join(overrides).encode()).hexdigest()[:12]
            row: dict[str, object] = {"cell_id": cell_id, **settings, "seed": seed}
            start = time.perf_counter()
            try:
                report = ssdlab.run(preset="tiny", workload="randrw", overrides=overrides)
            except SsdlabError as e:
                row |= {"status": "failed", "error": e.message, "report": None}
            else:
                name = f"reports/{cell_id}.json"
                report.save(out / name)
                row |= {"status": "ok", "error": None, "report": name, **run_figures(report)}
            row |= {
                "wall_s": time.perf_counter() - start,
                "ssdlab_version": ssdlab.__version__,
                "verify": False,
            }
            rows.append(row)
    columns = list(dict.fromkeys(k for row in rows for k in row))  # failed cells have no figures
    table = pa.Table.from_pylist([{c: row.get(c) for c in columns} for row in rows])
    table = table.replace_schema_metadata(
        {**(table.schema.metadata or {}), b"ssdlab.sweep_schema": schema.encode()}
    )
    pq.write_table(table, out / "results.parquet")
    grid = ['preset = "tiny"', 'workload = "randrw"', f"seeds = {seeds}", "", "[axes]"]
    grid += [f'"{k}" = {json.dumps(list(v))}' for k, v in axes.items()]
    (out / "grid.toml").write_text("\n".join(grid) + "\n")
    return out


def reproduction_dir(out: Path) -> Path:
    """A reproduction directory as `ssdlab reproduce X -o DIR` writes it: verdicts.csv,
    tables.md, runs.csv, a PNG figure and each run's report under cells/ (two real runs)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    (out / "cells").mkdir(parents=True, exist_ok=True)
    rows = []
    for scheduler in ("greedy", "rlgc"):
        report = ssdlab.run(
            preset="tiny", workload="randrw", overrides=[*SMALL_RUN, f"gc.scheduler={scheduler}"]
        )
        report.save(out / "cells" / f"{scheduler}.json")
        rows.append({"policy": scheduler, "seed": 0, **run_figures(report)})
    with open(out / "runs.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    (out / "verdicts.csv").write_text(
        "headline,paper,ours,ratio,verdict\n"
        "RL p99.99 write latency vs greedy (x),0.5,0.62,1.24,reproduced\n"
        "RL erases vs greedy (x),1.1,1.6,1.45,partly: weaker\n"
        "RL read latency vs greedy (%),-40.4,3.1,-0.077,not reproduced\n"
    )
    p9999 = [r["write_p99_99_us"] for r in rows]
    (out / "tables.md").write_text(
        "Tiny device, randrw, one seed.\n\n"
        "### Table 1: write p99.99 (us)\n\n"
        "| policy | ours | paper |\n|:--|--:|--:|\n"
        f"| greedy | {p9999[0]:.1f} | 100 |\n| rlgc | {p9999[1]:.1f} | 50 |\n\n"
        "A note with <b>markup</b> that must stay text.\n"
    )
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.bar(["greedy", "rlgc"], p9999)
    ax.set_ylabel("write p99.99 (us)")
    fig.savefig(out / "fig1_tails.png", dpi=80)
    plt.close(fig)
    return out
