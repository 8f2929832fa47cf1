"""`ssdlab trace stats` on every shared trace against figures computed here independently, by
a deliberately naive reader written from tests/../shared/traces/README.md's format notes."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ssdlab.cli import cli

PAGE = 4096


def _lines(path: Path):
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        for line in f:
            if line.strip():
                yield line.strip()


def _parse(name: str, path: Path):
    """Yield (is_read, offset_bytes, size_bytes, device) per request (device "0" where the
    format has no device column)."""
    for i, line in enumerate(_lines(path)):
        if name == "msr_csv":
            f = line.split(",")
            yield f[3] == "Read", int(f[4]), int(f[5]), f[2]
        elif name == "msr_txt":
            f = line.split("\t")
            yield f[1] == "Read", int(f[2]), int(f[3]), "0"
        elif name == "flashnet":
            f = line.split()
            yield f[4] == "1", int(f[2]), int(f[3]), f[1]
        elif name == "disksim":
            f = line.split()
            yield f[4] == "1", int(f[2]) * 512, int(f[3]) * 512, f[1]
        elif name == "cloudphysics":
            if i == 0:
                continue
            f = line.split(",")
            yield f[1].lower() in ("28", "08", "88", "a8"), int(f[3]) * 512, int(f[2]), "0"
        elif name == "tencent":
            f = line.split(",")
            yield f[3] == "0", int(f[1]) * 512, int(f[2]) * 512, f[4]
        elif name == "systor":
            if i == 0:
                continue
            f = line.split(",")
            yield f[2] == "R", int(f[4]), int(f[5]), f[3]


FILES = {
    "msr/wdev_1.csv": "msr_csv",
    "msr/wdev_3.csv": "msr_csv",
    "msr/hm_0.sample1000.csv": "msr_csv",
    "msr/rsrch_1.txt.gz": "msr_txt",
    "msr/msr_cut10k_rw20_80_105.trace": "flashnet",
    "msr/msr_cut10k_thpt_rand_1006.trace": "flashnet",
    "ms_production/msnfs_150k.disksim_ms.txt.gz": "disksim",
    "ms_production/tpcc_small.disksim_ns.txt": "disksim",
    "umass/websearch_small.disksim_ns.txt.gz": "disksim",
    "cloudphysics/cloudPhysicsIO.us.csv.gz": "cloudphysics",
    "tencent_cbs/cloud_storage_sample_50k.csv.gz": "tencent",
    "systor17/systor17-traces-sample.csv.gz": "systor",
}
FORMATS = {"ms_production/msnfs_150k.disksim_ms.txt.gz": "disksim_ms"}
OPTIONS = {"tencent_cbs/cloud_storage_sample_50k.csv.gz": ["-O", "on_out_of_order=clamp"]}


@pytest.mark.parametrize("rel", sorted(FILES))
def test_trace_stats_match_an_independent_count(traces, rel):
    path = traces / rel
    requests = reads = 0
    # Devices are kept apart by default: page p of two volumes is two pages.
    pages: set[tuple[str, int]] = set()
    for is_read, offset, size, device in _parse(FILES[rel], path):
        if size == 0:
            continue
        requests += 1
        reads += is_read
        pages.update((device, p) for p in range(offset // PAGE, (offset + size - 1) // PAGE + 1))
    args = ["trace", "stats", str(path), "--json", *OPTIONS.get(rel, [])]
    if rel in FORMATS:
        args += ["--format", FORMATS[rel]]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    stats = json.loads(result.output)[str(path)]
    assert stats["requests"] == requests
    assert stats["read_ratio"] == pytest.approx(reads / requests, abs=1e-9)
    assert stats["footprint_pages"] == len(pages)
