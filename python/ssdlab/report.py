"""A run's report: the figures the core measured (a dict built in Rust), with DataFrame views and
plotting helpers, and the per-run figures every results table holds (`run_figures`). pandas and
pyarrow are imported where used, so importing this module is cheap."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

#: The series per interval of simulated time every report holds since they were added, with what
#: a value is: requests and 10^6 bytes completed per second of the interval, latency percentiles
#: (us) of the reads and writes completed in it (null in an interval without any), flash
#: programs per host page written in it (null without host writes), pages GC copied in it.
#: The values of an interval cover (time, time + interval]; when the series coarsens, neighbours
#: merge (counts summed, histograms merged), so `iops` integrates back to the request count.
RATE_SERIES = (
    "iops",
    "mb_per_s",
    "read_latency_p50_us",
    "read_latency_p99_us",
    "write_latency_p50_us",
    "write_latency_p99_us",
    "waf",
    "gc_pages_copied",
)

PERCENTILES = ["mean_ns", "p50_ns", "p90_ns", "p99_ns", "p99_9_ns", "p99_99_ns", "p99_9999_ns", "max_ns"]

#: The latency histograms a run keeps (`Simulation.latency_histogram`).
HISTOGRAMS = ("read", "write", "trim", "all")

#: The top-level key of a saved report that holds its latency histograms, beside the core's own
#: keys (`raw` never contains it: `load` takes it out). `all` is not saved: the core builds it as
#: the merge of the three others, and `load` merges them again.
SAVED_HISTOGRAMS_KEY = "latency_histograms"
SAVED_HISTOGRAMS = ("read", "write", "trim")


def read_requests(path: str | Path) -> pd.DataFrame:
    """A per-request log (Parquet, written by the core) as a DataFrame; `op` is categorical."""
    import pandas as pd
    import pyarrow.parquet as pq

    frame = pq.read_table(path).to_pandas()
    frame["op"] = pd.Categorical(frame["op"], categories=["read", "write", "trim"])
    return frame


class Report:
    """The result of one simulation run.

    `raw` is the versioned report (schema `ssdlab-report/1`) as a dict: resolved config, seed,
    version, git revision, latency percentiles, throughput, WAF, GC, wear and time series.
    `request_log` is the Parquet file of the per-request log when the run streamed one to a
    path of the user's (`report.request_log`); `requests` loads it (or holds the log of a run
    asked for with `request_log=True`).
    """

    def __init__(
        self,
        raw: dict[str, Any],
        histograms: dict[str, list[tuple[int, int]]] | None = None,
        request_log: str | None = None,
        requests: pd.DataFrame | None = None,
    ) -> None:
        self.raw = raw
        self.histograms = histograms or {}
        self.request_log = request_log
        self._requests = requests

    @classmethod
    def from_json(cls, text: str, **kw: Any) -> Report:
        """A report from the text `to_json` writes. Its latency histograms, when the file has
        them, become `histograms`; files written before they were saved load with none."""
        raw = json.loads(text)
        saved = raw.pop(SAVED_HISTOGRAMS_KEY, None)
        if saved is not None and "histograms" not in kw:
            kw["histograms"] = _histograms_from_saved(saved)
        return cls(raw, **kw)

    @classmethod
    def load(cls, path: str | Path) -> Report:
        """Read a report JSON written by `save` or `ssdlab run --out`."""
        return cls.from_json(Path(path).read_text())

    def to_json(self) -> str:
        """The report as JSON: the core's report (indented) plus, when the run kept them, the
        read, write and trim latency histograms under `latency_histograms`, so that a saved run
        still draws exact latency CDFs. Each histogram is written on one line of
        `[latency_ns, count]` pairs: indented, its thousands of pairs would take four lines
        each and triple the file."""
        text = json.dumps(self.raw, indent=2)
        saved = {k: self.histograms[k] for k in SAVED_HISTOGRAMS if k in self.histograms}
        if not saved:
            return text + "\n"
        lines = ",\n".join(
            f"    {json.dumps(k)}: {json.dumps([[v, c] for v, c in pairs], separators=(',', ':'))}"
            for k, pairs in saved.items()
        )
        # `text` is an indented object: its last line is the closing brace.
        body = text.removesuffix("\n}")
        return f'{body},\n  "{SAVED_HISTOGRAMS_KEY}": {{\n{lines}\n  }}\n}}\n'

    def save(self, path: str | Path) -> None:
        """Write `to_json` to `path`."""
        Path(path).write_text(self.to_json())

    @property
    def requests(self) -> pd.DataFrame | None:
        """One row per host request (arrival_ns, latency_ns, op, offset_bytes, size_bytes), or
        None if the run kept no log."""
        if self._requests is None and self.request_log is not None:
            self._requests = read_requests(self.request_log)
        return self._requests

    def __getitem__(self, key: str) -> Any:
        return self.raw[key]

    @property
    def waf(self) -> float:
        return float(self.raw["waf"])

    @property
    def latency(self) -> pd.DataFrame:
        """Latency percentiles in microseconds: rows read/write/trim/all, columns mean..max,
        count.

        A row without requests (the reads of a write-only run) has count 0 and NaN figures: the
        core writes zeros there, which would read as a zero latency."""
        import pandas as pd

        rows = {
            k: {c.removesuffix("_ns"): v[c] / 1e3 if v["count"] > 0 else float("nan") for c in PERCENTILES}
            for k, v in self.raw["latency"].items()
        }
        frame = pd.DataFrame.from_dict(rows, orient="index")
        frame["count"] = [self.raw["latency"][k]["count"] for k in frame.index]
        return frame

    @property
    def time_series_names(self) -> list[str]:
        """The time series this report holds (`free_blocks`, the rates of `RATE_SERIES`, the write
        buffer's with a buffer)."""
        return list(self.raw["time_series"])

    def time_series(self, name: str = "free_blocks") -> pd.DataFrame:
        """A time series as a DataFrame with columns time_s and the series name (its unit in the
        name: `iops`, `mb_per_s`, `read_latency_p99_us`, ...). A rate's time_s is the start of
        its interval of simulated time, every interval a row; a latency percentile or WAF that
        does not exist in an interval (no such requests, no host writes) is NaN (`RATE_SERIES`)."""
        import pandas as pd

        series = self.raw["time_series"]
        if name not in series:
            raise KeyError(f"no time series {name!r} in this report; it has {', '.join(series)}")
        ts = series[name]
        values = [math.nan if v is None else float(v) for v in ts["values"]]
        return pd.DataFrame({"time_s": [t / 1e9 for t in ts["time_ns"]], name: values})

    def latency_cdf(self, which: str = "all") -> pd.DataFrame:
        """Exact latency CDF (latency_us, cdf) from the run's histogram (empty for a report
        saved before saved reports kept their histograms)."""
        import pandas as pd

        pairs = self.histograms.get(which, [])
        total = sum(c for _, c in pairs) or 1
        cum, rows = 0, []
        for value, count in pairs:
            cum += count
            rows.append((value / 1e3, cum / total))
        return pd.DataFrame(rows, columns=["latency_us", "cdf"])

    def summary(self) -> dict[str, float]:
        """Headline figures: IOPS, MB/s, WAF, p50/p99/p99.99 read and write latency (us), erases.

        Figures that do not exist are NaN, not 0: the latency of an operation the run never
        issued, and the WAF of a run without host writes."""
        lat = self.latency
        host_programs = self.raw["ftl"]["host_programs"]
        return {
            "requests": self.raw["workload"]["requests"],
            "iops": self.raw["throughput"]["iops"],
            "mb_per_s": self.raw["throughput"]["mb_per_s"],
            "waf": self.waf if host_programs > 0 else float("nan"),
            "read_p50_us": float(lat.loc["read", "p50"]),
            "read_p99_us": float(lat.loc["read", "p99"]),
            "read_p99_99_us": float(lat.loc["read", "p99_99"]),
            "write_p50_us": float(lat.loc["write", "p50"]),
            "write_p99_us": float(lat.loc["write", "p99"]),
            "write_p99_99_us": float(lat.loc["write", "p99_99"]),
            "erases": self.raw["wear"]["erases"],
            "gc_victims": self.raw["gc"]["victims_reclaimed"],
        }

    @property
    def preset(self) -> str | None:
        """The device preset the run's configuration was loaded over (None: its layers gave the
        device, or a report from before the report said)."""
        return self.raw.get("drive", {}).get("preset")

    @property
    def workload_name(self) -> str:
        """What the host ran, in a few words: the trace's file name, the spec, or the synthetic
        pattern (`randwrite`)."""
        w = self.raw["config"]["workload"]
        if w.get("kind") == "trace":
            return Path(str(w.get("path", "trace"))).name
        if w.get("kind") == "spec":
            return Path(str(w.get("spec", "spec"))).name
        return str(w.get("rw", "synthetic"))

    def _headline(self) -> list[tuple[str, str]]:
        """(figure, text) pairs of `__repr__` and `_repr_html_`."""
        from ssdlab._console import fmt_duration_us, fmt_sig

        s = self.summary()
        return [
            ("preset", self.preset or "(layers)"),
            ("workload", self.workload_name),
            ("requests", f"{s['requests']:,}"),
            ("IOPS", fmt_sig(s["iops"])),
            ("MB/s", fmt_sig(s["mb_per_s"])),
            ("read p50 / p99", f"{fmt_duration_us(s['read_p50_us'])} / {fmt_duration_us(s['read_p99_us'])}"),
            (
                "write p50 / p99",
                f"{fmt_duration_us(s['write_p50_us'])} / {fmt_duration_us(s['write_p99_us'])}",
            ),
            ("WAF", fmt_sig(s["waf"])),
        ]

    def __repr__(self) -> str:
        """One line: preset, workload, requests, IOPS, p99 write latency, WAF."""
        h = dict(self._headline())
        write_p99 = h["write p50 / p99"].split(" / ")[1]
        return (
            f"<Report {h['preset']}, {h['workload']}: {h['requests']} requests, {h['IOPS']} IOPS, "
            f"write p99 {write_p99}, WAF {h['WAF']}>"
        )

    def _repr_html_(self) -> str:
        """A small table of the headline figures, for notebooks."""
        import html

        rows = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k)}</th><td style='text-align:right'>"
            f"{html.escape(v)}</td></tr>"
            for k, v in self._headline()
        )
        return f"<table><caption>ssdlab report</caption>{rows}</table>"

    @property
    def learning(self) -> pd.DataFrame:
        """The learning diagnostics of every decision point run by an agent (`gc`, `eviction`,
        `region`), one row each: policy, whether it is the random-action control, decisions
        (exploited, explored, in an unseen state), rewards (count, mean, standard deviation),
        states visited and the Q-value spread of the visited states (mean, p90, max). Empty when
        no policy of the run learns. The executed and greedy action histograms are lists in the
        columns `action_histogram` and `greedy_action_histogram`."""
        import pandas as pd

        rows = {}
        for point, r in self.raw.get("learning", {}).items():
            spread = r.get("q_spread") or {}
            rows[point] = {
                "policy": r["policy"],
                "control": r["control"],
                "decisions": r["decisions"],
                "exploitations": r["exploitations"],
                "explorations": r["explorations"],
                "unseen_state_decisions": r.get("unseen_state_decisions"),
                "evictions": r.get("evictions"),
                "rewards": r["rewards"],
                "mean_reward": _nan(r.get("mean_reward")),
                "sd_reward": _nan(r.get("sd_reward")),
                "states_visited": r["states_visited"],
                "n_states": r["n_states"],
                "q_spread_mean": _nan(spread.get("mean")),
                "q_spread_p90": _nan(spread.get("p90")),
                "q_spread_max": _nan(spread.get("max")),
                "action_histogram": r["action_histogram"],
                "greedy_action_histogram": r["greedy_action_histogram"],
            }
        frame = pd.DataFrame.from_dict(rows, orient="index")
        frame.index.name = "point"
        return frame

    def learning_curve(self, point: str) -> pd.DataFrame:
        """The reward series of one decision point (`gc`, `eviction`, `region`): per window of
        decisions, the rewards received, their mean and standard deviation (NaN for a window
        without rewards) and the running mean since the start."""
        import pandas as pd

        learning = self.raw.get("learning", {})
        if point not in learning:
            known = ", ".join(learning) or "none"
            raise KeyError(f"no learning report for {point!r} (points with an agent: {known})")
        series = learning[point]["reward_series"]
        columns = ["decisions", "window_rewards", "window_mean_reward", "window_sd_reward", "mean_reward"]
        frame = pd.DataFrame(series, columns=columns)
        for c in columns[2:]:
            frame[c] = frame[c].astype(float)
        return frame

    def write_requests_parquet(self, path: str | Path) -> None:
        """Write the per-request log as Parquet (needs a run with `request_log`)."""
        if self.request_log is not None:
            import shutil

            shutil.copyfile(self.request_log, path)
            return
        if self._requests is None:
            raise ValueError("this run kept no per-request log: run with request_log=True or a path")
        self._requests.to_parquet(path, index=False)


def run_figures(report: Report) -> dict[str, Any]:
    """The per-run figures of runs.csv and the sweep table (throughput in IOPS and 10^6 bytes
    per second of simulated time, latencies in us; NaN where an operation never ran)."""
    s = report.summary()
    lat = report.latency
    by_source = report["device"]["counters"]["by_source"]
    return {
        "requests": s["requests"],
        "reads": report["workload"]["reads"],
        "writes": report["workload"]["writes"],
        "iops": s["iops"],
        "mb_per_s": s["mb_per_s"],
        "write_mean_us": float(lat.loc["write", "mean"]),
        "write_p50_us": s["write_p50_us"],
        "write_p99_us": s["write_p99_us"],
        "write_p99_9_us": float(lat.loc["write", "p99_9"]),
        "write_p99_99_us": s["write_p99_99_us"],
        "write_max_us": float(lat.loc["write", "max"]),
        "read_mean_us": float(lat.loc["read", "mean"]),
        "read_p50_us": s["read_p50_us"],
        "read_p99_us": s["read_p99_us"],
        "read_p99_9_us": float(lat.loc["read", "p99_9"]),
        "read_p99_99_us": s["read_p99_99_us"],
        "waf": s["waf"],
        "erases": s["erases"],
        "gc_victims": s["gc_victims"],
        "gc_pages_copied": report["gc"]["pages_copied"],
        "gc_emergency_reclaims": report["gc"]["emergency_reclaims"],
        # The transaction scheduler (`[transaction_scheduler]`): GC operations that waited in a background
        # queue, and programs or erases suspended for reads.
        "gc_queued": by_source["gc"]["queued"],
        "suspensions": sum(c["suspensions"] for c in by_source.values()),
        "mean_unit_utilization": report["device"]["mean_unit_utilization"],
        "simulated_span_s": report["workload"]["span_ns"] / 1e9,
    }


def _histograms_from_saved(saved: dict[str, list[list[int]]]) -> dict[str, list[tuple[int, int]]]:
    """The saved histograms as `Simulation.report` gives them (sorted (latency_ns, count)
    tuples), with `all` merged from the others as the core merges it."""
    histograms = {k: [(int(v), int(c)) for v, c in saved.get(k, [])] for k in SAVED_HISTOGRAMS}
    merged: dict[int, int] = {}
    for pairs in histograms.values():
        for value, count in pairs:
            merged[value] = merged.get(value, 0) + count
    histograms["all"] = sorted(merged.items())
    return histograms


def _nan(value: float | None) -> float:
    return float("nan") if value is None else float(value)
