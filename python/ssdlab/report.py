"""A run's report: the JSON the core writes, with DataFrame views and plotting helpers."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

PERCENTILES = ["mean_ns", "p50_ns", "p90_ns", "p99_ns", "p99_9_ns", "p99_99_ns", "p99_9999_ns", "max_ns"]


@dataclass
class Report:
    """The result of one simulation run.

    `raw` is the versioned JSON report (schema `ssdlab-report/1`): resolved config, seed,
    version, git revision, latency percentiles, throughput, WAF, GC, wear and time series.
    """

    raw: dict[str, Any]
    histograms: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    requests: pd.DataFrame | None = None

    @classmethod
    def from_json(cls, text: str, **kw: Any) -> Report:
        return cls(json.loads(text), **kw)

    @classmethod
    def load(cls, path: str | Path) -> Report:
        """Read a report JSON written by `save` or `ssdlab run --out`."""
        return cls.from_json(Path(path).read_text())

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.raw, indent=2) + "\n")

    def __getitem__(self, key: str) -> Any:
        return self.raw[key]

    @property
    def waf(self) -> float:
        return float(self.raw["waf"])

    @property
    def latency(self) -> pd.DataFrame:
        """Latency percentiles in microseconds: rows read/write/all, columns mean..max, count.

        A row without requests (the reads of a write-only run) has count 0 and NaN figures: the
        core writes zeros there, which would read as a zero latency."""
        rows = {
            k: {c.removesuffix("_ns"): v[c] / 1e3 if v["count"] > 0 else float("nan") for c in PERCENTILES}
            for k, v in self.raw["latency"].items()
        }
        frame = pd.DataFrame.from_dict(rows, orient="index")
        frame["count"] = [self.raw["latency"][k]["count"] for k in frame.index]
        return frame

    def time_series(self, name: str = "free_blocks") -> pd.DataFrame:
        """A time series as a DataFrame with columns time_s and the series name."""
        ts = self.raw["time_series"][name]
        return pd.DataFrame({"time_s": [t / 1e9 for t in ts["time_ns"]], name: ts["values"]})

    def latency_cdf(self, which: str = "all") -> pd.DataFrame:
        """Exact latency CDF (latency_us, cdf) from the run's histogram (only for reports
        produced in this process; saved reports keep percentiles only)."""
        pairs = self.histograms.get(which, [])
        total = sum(c for _, c in pairs) or 1
        cum, rows = 0, []
        for value, count in pairs:
            cum += count
            rows.append((value / 1e3, cum / total))
        return pd.DataFrame(rows, columns=["latency_us", "cdf"])

    def summary(self) -> dict[str, float]:
        """Headline figures: IOPS, MB/s, WAF, p99/p99.99 read and write latency (us), erases.

        Figures that do not exist are NaN, not 0: the latency of an operation the run never
        issued, and the WAF of a run without host writes."""
        lat = self.latency
        host_programs = self.raw["ftl"]["host_programs"]
        return {
            "requests": self.raw["workload"]["requests"],
            "iops": self.raw["throughput"]["iops"],
            "mb_per_s": self.raw["throughput"]["mb_per_s"],
            "waf": self.waf if host_programs > 0 else float("nan"),
            "read_p99_us": float(lat.loc["read", "p99"]),
            "read_p99_99_us": float(lat.loc["read", "p99_99"]),
            "write_p99_us": float(lat.loc["write", "p99"]),
            "write_p99_99_us": float(lat.loc["write", "p99_99"]),
            "erases": self.raw["wear"]["erases"],
            "gc_victims": self.raw["gc"]["victims_reclaimed"],
        }

    def write_requests_parquet(self, path: str | Path) -> None:
        """Write the per-request log (needs `report.per_request = true`) as Parquet."""
        if self.requests is None:
            raise ValueError("this run kept no per-request log: set report.per_request=true")
        self.requests.to_parquet(path, index=False)
