"""`ssdlab trace stats` on every shared trace against figures computed here independently, by
a deliberately naive reader written from tests/../shared/traces/README.md's format notes."""

from __future__ import annotations

import gzip
import json
import math
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


# The figures a workload fit compares, computed here naively from the same parse (file order is
# delivery order for these files: each is sorted by time).
SHARES = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0]


def _curve(counts: dict[tuple[str, int], int]) -> list[int]:
    """Per share: the fewest pages, hottest first, whose accesses reach that share."""
    hottest = sorted(counts.values(), reverse=True)
    total = sum(hottest)
    points = []
    for share in SHARES:
        taken = pages = 0
        while taken * 1000 < round(share * 1000) * total:
            taken += hottest[pages]
            pages += 1
        points.append(pages)
    return points


def _nearest_rank(values: list[int], q: float) -> int:
    values = sorted(values)
    return values[max(1, math.ceil(q * len(values))) - 1]


def _naive_figures(rel: str, path: Path) -> dict:
    reads: dict[tuple[str, int], int] = {}
    writes: dict[tuple[str, int], int] = {}
    last_write: dict[tuple[str, int], int] = {}
    distances: list[int] = []
    read_accesses = 0
    previous_end: dict[bool, tuple[str, int]] = {}
    sequential = {True: 0, False: 0}
    count = {True: 0, False: 0}
    size_bytes: dict[bool, dict[int, int]] = {True: {}, False: {}}
    index = 0
    for is_read, offset, size, device in _parse(FILES[rel], path):
        if size == 0:
            continue
        count[is_read] += 1
        sequential[is_read] += previous_end.get(is_read) == (device, offset)
        previous_end[is_read] = (device, offset + size)
        bucket = 1 << (size.bit_length() - 1)
        size_bytes[is_read][bucket] = size_bytes[is_read].get(bucket, 0) + size
        for p in range(offset // PAGE, (offset + size - 1) // PAGE + 1):
            page = (device, p)
            if is_read:
                reads[page] = reads.get(page, 0) + 1
                read_accesses += 1
                if page in last_write:
                    distances.append(index - last_write[page] - 1)
            else:
                writes[page] = writes.get(page, 0) + 1
                last_write[page] = index
        index += 1
    return {
        "read_curve": _curve(reads),
        "write_curve": _curve(writes),
        "reread_share": len(distances) / read_accesses if read_accesses else 0.0,
        "distances": distances,
        "sequential": [sequential[r] / count[r] if count[r] else 0.0 for r in (True, False)],
        "size_bytes": size_bytes,
    }


@pytest.mark.parametrize(
    "rel",
    [
        "msr/hm_0.sample1000.csv",
        "msr/rsrch_1.txt.gz",
        "msr/msr_cut10k_rw20_80_105.trace",
        "ms_production/tpcc_small.disksim_ns.txt",
        "umass/websearch_small.disksim_ns.txt.gz",
        "cloudphysics/cloudPhysicsIO.us.csv.gz",
    ],
)
def test_fit_figures_match_an_independent_count(traces, rel):
    path = traces / rel
    expected = _naive_figures(rel, path)
    result = CliRunner().invoke(cli, ["trace", "stats", str(path), "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    stats = json.loads(result.output)[str(path)]
    for op in ("read", "write"):
        curve = stats["popularity"][op]["curve"]
        assert [p["access_share"] for p in curve] == SHARES
        assert [p["pages"] for p in curve] == expected[f"{op}_curve"], op
        footprint = stats["popularity"][op]["footprint_pages"]
        assert curve[-1]["pages"] == footprint
        assert [p["footprint_share"] for p in curve] == pytest.approx(
            [p / footprint if footprint else 0.0 for p in expected[f"{op}_curve"]]
        )
    assert stats["hot_read"]["pages"] == expected["read_curve"][SHARES.index(0.8)]
    reread = stats["reread"]
    assert reread["share"] == pytest.approx(expected["reread_share"], abs=1e-12)
    assert reread["page_accesses"] == len(expected["distances"])
    if expected["distances"]:
        for q in ("p10", "p25", "p50", "p75", "p90", "p99"):
            exact = _nearest_rank(expected["distances"], int(q[1:]) / 100)
            assert reread["distance_requests"][q] == pytest.approx(exact, rel=0.01, abs=0.5), q
        assert reread["distance_requests"]["max"] == max(expected["distances"])
    seq = stats["sequential"]
    assert [seq["read_share"], seq["write_share"]] == pytest.approx(expected["sequential"], abs=1e-12)
    for op, is_read in (("read", True), ("write", False)):
        sizes = stats["sizes"][op]
        assert {b["min_bytes"]: b["bytes"] for b in sizes["buckets"]} == expected["size_bytes"][is_read]
        assert sum(b["byte_share"] for b in sizes["buckets"]) == pytest.approx(1.0 if sizes["bytes"] else 0.0)
        assert sum(b["request_share"] for b in sizes["buckets"]) == pytest.approx(
            1.0 if sizes["requests"] else 0.0
        )


def _rows(output: str) -> dict[str, list[str]]:
    """A side-by-side table's rows: label -> one cell per file."""
    rows = {}
    for line in output.splitlines():
        label, _, cells = line.partition("  ")
        if cells.strip():
            rows[label.strip()] = cells.split()
    return rows


def test_two_traces_print_side_by_side(traces):
    """`trace stats A B`: one column per file, the figures of each in its column."""
    a, b = traces / "msr/hm_0.sample1000.csv", traces / "msr/msr_cut10k_rw20_80_105.trace"
    runner = CliRunner(env={"COLUMNS": "80"})
    out = runner.invoke(cli, ["trace", "stats", str(a), str(b)], catch_exceptions=False).output
    assert all(len(line) <= 80 and "…" not in line for line in out.splitlines()), out
    header = next(i for i, line in enumerate(out.splitlines()) if line.startswith("figure"))
    assert "hm_0.sample1000.csv" in out.splitlines()[header] and "msr_cut10k_rw20_80_105" in out
    rows = _rows(out)
    assert rows["requests"] == ["1,000", "10,000"]
    assert rows["read ratio"] == ["0.508", "0.202"]
    stats = json.loads(runner.invoke(cli, ["trace", "stats", str(a), str(b), "--json"]).output)
    sa, sb = stats[str(a)], stats[str(b)]
    # hm_0: 1,142 of its 1,449 read pages take 80 % of its reads; no read follows a write of its page.
    assert (sa["hot_read"]["pages"], sa["popularity"]["read"]["footprint_pages"]) == (1142, 1449)
    assert rows["hot 80% of reads"] == [
        "78.8%",
        f"{sb['popularity']['read']['curve'][7]['footprint_share']:.1%}",
    ]
    assert rows["hot 80% of reads"][1] == "72.7%"
    assert rows["re-read share"] == ["0.0%", "26.8%"]
    assert rows["re-read distance p50"] == ["-", "1"]
    assert rows["re-read distance p90"] == ["-", "7"]
    assert rows["sequential reads"] == ["6.5%", "0.5%"]
    assert rows["sequential writes"] == ["1.2%", "3.5%"]
    assert rows["read bytes < 8 KiB"] == ["21.5%", "67.4%"]
    assert rows["write bytes >= 64 KiB"] == ["0.0%", "7.7%"]
    assert rows["inter-arrival p50"] == ["20.6", "us", "2.01", "us"]
    for s, column in ((sa, 0), (sb, 1)):
        assert (
            rows["hot 50% of writes"][column]
            == f"{s['popularity']['write']['curve'][4]['footprint_share']:.1%}"
        )


def test_one_trace_prints_its_summary_and_its_figures(traces):
    path = traces / "msr/wdev_1.csv"  # write-only: the read figures are dashes
    out = (
        CliRunner(env={"COLUMNS": "80"})
        .invoke(cli, ["trace", "stats", str(path)], catch_exceptions=False)
        .output
    )
    assert "trace statistics" in out and "workload figures" in out
    rows = _rows(out)
    assert rows["hot 80% of reads"] == ["-"]
    assert rows["re-read share"] == ["-"]
    assert rows["sequential reads"] == ["-"]
    assert rows["mean write size"] == ["5.13", "KiB"]
    assert rows["hot 99% of writes"] != ["-"]


def test_many_traces_wrap_into_tables_that_fit(traces):
    paths = [str(p) for p in sorted((traces / "msr").iterdir())]
    out = (
        CliRunner(env={"COLUMNS": "80"})
        .invoke(cli, ["trace", "stats", *paths], catch_exceptions=False)
        .output
    )
    assert all(len(line) <= 80 and "…" not in line for line in out.splitlines()), out
    requests = [
        cell for line in out.splitlines() if line.startswith("requests ") for cell in line.split()[1:]
    ]
    stats = json.loads(CliRunner().invoke(cli, ["trace", "stats", *paths, "--json"]).output)
    assert len(paths) == 6 and requests == [f"{stats[p]['requests']:,}" for p in paths]
    assert requests[:2] == ["1,000", "10,000"]  # hm_0.sample1000.csv, msr_cut10k_rw20_80_105.trace
