"""The bundled real trace: present, unchanged from its recorded provenance, usable by name."""

from __future__ import annotations

import gzip
import hashlib
import re

import pytest

import ssdlab
from ssdlab import data
from ssdlab import trace as ssdlab_trace


def test_every_bundled_trace_is_documented_and_matches_its_recorded_checksum():
    readme = (data.TRACES_DIR / "README.md").read_text()
    files = {p.name for p in data.TRACES_DIR.iterdir() if p.name != "README.md"}
    assert files == {t.file for t in data.TRACES.values()}
    for trace in data.TRACES.values():
        assert f"## `{trace.name}`" in readme
        section = readme.split(f"## `{trace.name}`", 1)[1]
        recorded = re.search(r"SHA-256 of the uncompressed text:\s*`([0-9a-f]{64})`", section)
        assert recorded is not None
        raw = gzip.decompress(data.trace_path(trace.name).read_bytes())
        assert hashlib.sha256(raw).hexdigest() == recorded.group(1)
        assert ssdlab_trace.detect(data.trace_path(trace.name)) == trace.format


def test_bundled_msr_excerpt_has_the_documented_shape():
    """The figures the README and `ssdlab compare --help` quote, recounted from the text."""
    lines = gzip.decompress(data.trace_path("msr_cut10k_rw20_80_105").read_bytes()).decode().splitlines()
    fields = [line.split() for line in lines if line.strip()]
    assert len(fields) == 10_000
    assert sum(f[4] == "1" for f in fields) == 2_020  # type 1 = read
    assert max(float(f[0]) for f in fields) == pytest.approx(242_904.693)  # ms: 243 s
    stats = ssdlab_trace.stats(data.trace_path("msr_cut10k_rw20_80_105"))
    assert stats["requests"] == 10_000 and stats["reads"] == 2_020
    assert stats["footprint_bytes"] / 2**20 == pytest.approx(28.8, abs=0.05)


def test_names_resolve_to_bundled_files_but_an_existing_file_wins(tmp_path, monkeypatch):
    assert data.resolve_trace("msr_cut10k_rw20_80_105") == str(data.trace_path("msr_cut10k_rw20_80_105"))
    assert data.resolve_trace("no/such/file.csv") == "no/such/file.csv"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "msr_cut10k_rw20_80_105").write_text("0.0 0 0 4096 0\n")
    assert data.resolve_trace("msr_cut10k_rw20_80_105") == "msr_cut10k_rw20_80_105"
    with pytest.raises(ssdlab.ConfigError, match="not a bundled trace"):
        data.trace_path("nope")
