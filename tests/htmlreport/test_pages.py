"""The pages `ssdlab report` writes, read back: the figures a page declares are the ones it holds,
the numbers shown are the inputs' own, many runs are drawn as one line per group, and the page
loads nothing from outside. (Drawing them in a real browser: tests/browser.)"""

from __future__ import annotations

import base64
import gzip
import json
import re
import shlex
import shutil
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from ssdlab._console import fmt_duration_us, fmt_sig
from ssdlab.cli import cli, main
from ssdlab.htmlreport import figures as figure_builders
from ssdlab.htmlreport import static_svg, write_report
from ssdlab.htmlreport.page import FIGURE_WIDTH
from ssdlab.report import Report

FIGURE = re.compile(
    r'<script type="application/json" class="ssdlab-figure" data-target="([^"]+)">(.*?)</script>', re.S
)

#: A figure's container with what it holds as the page loads.
CONTAINER = re.compile(r'<div class="figure-plot" id="([^"]+)">(.*?)</div>', re.S)


@dataclass
class Html:
    text: str

    @property
    def declared(self) -> int:
        return int(re.search(r'<meta name="ssdlab-figures" content="(\d+)">', self.text).group(1))

    @property
    def figures(self) -> dict[str, dict]:
        return {target: json.loads(spec.replace("<\\/", "</")) for target, spec in FIGURE.findall(self.text)}

    @property
    def statics(self) -> dict[str, str]:
        """What each figure container holds as the page loads (its static SVG)."""
        return dict(CONTAINER.findall(self.text))

    def figure(self, title_part: str) -> dict:
        """The first figure (a Vega spec) whose titles or axis titles mention `title_part`."""
        for spec in self.figures.values():
            if title_part in json.dumps(spec):
                return spec
        raise AssertionError(f"no figure mentions {title_part!r}")

    def section(self, title: str) -> str:
        """The HTML of a section, its subsections included."""
        head = re.search(rf"<section id=\"[^\"]+\"><h([23])>{re.escape(title)}</h\1>", self.text)
        assert head, f"no section {title!r}"
        rest = self.text[head.end() :]
        end = re.search(rf"<section id=\"[^\"]+\"><h[2-{head.group(1)}]>|</main>", rest)
        return rest[: end.start()]


def render(path: Path, tmp_path: Path) -> Html:
    out = tmp_path / f"{path.name}.html"
    written = write_report(path, out)
    html = Html(out.read_text())
    assert written.bytes == out.stat().st_size and written.figures == html.declared
    return html


def assert_self_contained(html: Html) -> None:
    """Every figure declared is on the page with its container, as a Vega spec (compiled from
    Vega-Lite when the page was written) with data to draw and drawn already (its static SVG,
    `assert_drawn_statically`), and nothing is fetched: no external script, stylesheet, font or
    image (Vega's library is embedded)."""
    figures = html.figures
    assert len(figures) == html.declared
    statics = html.statics
    assert list(statics) == list(figures), "a container per figure, in page order"
    for target, spec in figures.items():
        assert spec["$schema"].endswith("/vega/v6.json"), "compiled to Vega, not left to the browser"
        assert rows(spec), f"{target} draws nothing"
        assert_drawn_statically(statics[target], spec, target)
    page = FIGURE.sub("", html.text)
    page = re.sub(r'<script type="application/octet-stream" id="vega-js-gzip">[^<]*</script>', "", page)
    assert not re.search(r"<script[^>]+src=|<link|@import|url\((?!#)", page)
    assert not re.search(r"""(src|href)=["'](https?:)?//""", page)
    if figures:
        packed = re.search(r'id="vega-js-gzip">([^<]*)</script>', html.text).group(1)
        assert b"window.vegaEmbed=" in gzip.decompress(base64.b64decode(packed))[-300:]
        assert html.text.count('id="vega-js-gzip"') == 1, "Vega embedded once"


def assert_drawn_statically(svg: str, spec: dict, target: str) -> None:
    """A figure's container holds its drawing as the page loads (issue #45: a capture at load,
    or a viewer without JavaScript, shows it): one SVG, scaled to its container (a `viewBox`, no
    wider than the widest container), with marks in the figure's colours and every title and
    axis title of its Vega spec written in it."""
    root = ET.fromstring(svg)
    for element in root.iter():
        element.tag = element.tag.removeprefix("{http://www.w3.org/2000/svg}")
    assert root.tag == "svg" and root.get("class") == static_svg.STATIC_CLASS, f"{target}: {svg[:80]}"
    width, height = float(root.get("width")), float(root.get("height"))
    assert root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"
    assert 0 < width <= FIGURE_WIDTH and height > 0
    drawn = [e for e in root.iter() if e.tag in ("path", "line", "rect") and e.get("d") != ""]
    colours = {e.get("fill") for e in drawn} | {e.get("stroke") for e in drawn}
    spec_colours = set(re.findall(r'"(#[0-9a-fA-F]{6})"', json.dumps(spec)))
    assert colours & spec_colours, f"{target}: no mark in the figure's colours"
    texts = {"".join(e.itertext()) for e in root.iter("text")}
    assert set(titles(spec)) <= texts, f"{target}: titles missing: {set(titles(spec)) - texts}"


def titles(node: object) -> list[str]:
    """The titles and axis titles a Vega spec writes."""
    if isinstance(node, list):
        return [t for v in node for t in titles(v)]
    if not isinstance(node, dict):
        return []
    out = []
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            out.append(value)
        elif key == "title" and isinstance(value, dict) and isinstance(value.get("text"), str):
            out.append(value["text"])
        out += titles(value)
    return out


def rows(spec: dict) -> list[dict]:
    """The rows a Vega spec holds (its inline data sets, in order): a row per group of runs for
    the curves (their points as arrays), a row per bar or point otherwise."""
    return [row for data in spec["data"] if "values" in data for row in data["values"]]


def curves(spec: dict) -> list[dict]:
    """The rows of a figure's groups (`g`): a row per line, not the marks beside them."""
    return [row for row in rows(spec) if "g" in row]


def groups(spec: dict) -> list[str]:
    """The groups a figure draws a line for."""
    return [row["g"] for row in curves(spec)]


def test_run_page_shows_the_run_s_figures_and_exact_curves(run_json, tmp_path):
    html = render(run_json, tmp_path)
    assert_self_contained(html)
    report = Report.load(run_json)
    summary = html.section("Summary")
    assert f"<dd>{fmt_duration_us(report['latency']['write']['p99_ns'] / 1e3)}</dd>" in summary
    assert f"<dd>{report['waf']:.3f}</dd>" in summary
    latency = html.section("Latency")
    assert "Dashed with markers" not in latency, "a saved report has its histograms: exact curves"
    write = html.figure("write latency CDF")
    (curve,) = curves(write)
    assert curve["exact"] and len(curve["x"]) == len(curve["cdf"]) == len(curve["tail"])
    # Steps: the CDF holds until the next latency, the tail takes the next latency's value.
    marks = json.dumps(write)
    assert (
        '"interpolate": {"value": "step-after"}' in marks
        and '"interpolate": {"value": "step-before"}' in marks
    )
    # The tail ends at 1/N, N the run's writes: the curve is the run's own.
    last = curve["tail"][-1]
    writes = report["latency"]["write"]["count"]
    assert last == pytest.approx(
        dict(report.histograms["write"])[report["latency"]["write"]["max_ns"]] / writes
    )
    free = html.figure("free blocks")
    (series,) = curves(free)
    values = report["time_series"]["free_blocks"]["values"]
    step = -(-len(values) // figure_builders.SERIES_POINTS)  # thinned to at most SERIES_POINTS points
    assert series["v"] == values[::step]
    assert "simulated time (s)" in json.dumps(free)
    sources = html.section("Flash operations by source")
    gc = report["device"]["counters"]["by_source"]["gc"]
    assert re.search(
        rf"<td>gc</td><td class=\"num\">{gc['reads']:,}</td><td class=\"num\">{gc['programs']:,}</td>",
        sources,
    )
    learning = html.section("Learning")
    curve = report.learning_curve("gc")
    spec = html.figure("decisions")
    assert curves(spec)[0]["decisions"] == curve["decisions"].tolist()
    assert "rlgc" in learning
    provenance = html.section("Provenance")
    assert report["git_revision"] in provenance and "resolved configuration" in provenance
    assert "trace digest" not in provenance  # a synthetic workload has no trace


def test_a_report_saved_without_histograms_draws_through_its_percentiles_and_says_so(run_json, tmp_path):
    old = tmp_path / "old.json"
    old.write_text(json.dumps(Report.load(run_json).raw, indent=2))
    latency = render(old, tmp_path).section("Latency")
    assert "Dashed with markers (this run): the saved reports keep no latency histogram" in latency


def test_compare_page_draws_a_line_per_variant_with_seeds_pooled(compare_path, tmp_path):
    html = render(compare_path, tmp_path)
    assert_self_contained(html)
    runs = [Report.load(p) for p in sorted((compare_path / "reports").glob("*.json"))]
    by_variant = {v: [r for r in runs if r["config"]["gc"]["scheduler"] == v] for v in ("greedy", "rlgc")}
    summary = html.section("Summary")
    for variant, reports in by_variant.items():
        mean = sum(r["latency"]["write"]["p99_99_ns"] / 1e3 for r in reports) / len(reports)
        cells = rf'<td>{variant}</td><td class="num">2</td><td class="num">[^<]+</td><td class="num">'
        assert re.search(cells + re.escape(fmt_duration_us(mean)) + " ±", summary)  # runs, p99, p99.99
    write = html.figure("write latency CDF")
    assert groups(write) == ["greedy", "rlgc"]
    # Pooled: the tail's last point is 1/N over both seeds' writes.
    for curve in curves(write):
        reports = by_variant[curve["g"]]
        total = sum(r["latency"]["write"]["count"] for r in reports)
        slowest = max(r["latency"]["write"]["max_ns"] for r in reports)
        at_max = sum(dict(r.histograms["write"]).get(slowest, 0) for r in reports)
        assert curve["tail"][-1] == pytest.approx(at_max / total)
    assert "seeds pooled per variant" in html.section("Latency")
    learning = html.figure("decisions")
    assert groups(learning) == ["rlgc"], "greedy has no agent"
    assert "<code>gc.scheduler</code>" in html.section("Provenance")


def test_sweep_page_groups_the_cells_by_axis_and_lists_the_failed(sweep_path, tmp_path):
    html = render(sweep_path, tmp_path)
    assert_self_contained(html)
    summary = html.section("Summary")
    assert "<dt>failed</dt><dd>4</dd>" in summary and "<dt>ok</dt><dd>8</dd>" in summary
    assert summary.count('<tr class="failed">') == 4 + 4  # the failed list, and their rows in the cell table
    by_scheduler = html.section("By gc.scheduler")
    assert re.search(r"<td>greedy</td><td class=\"num\">6</td><td class=\"num\">2</td>", by_scheduler)
    # One line per axis value that ran (1.5 failed everywhere: no line), never one per cell.
    latencies = [s for s in html.figures.values() if "write latency CDF" in json.dumps(s)]
    assert [groups(s) for s in latencies] == [["greedy", "rlgc"], ["0.8", "1.0"]]
    assert "pooled over the cells of each value of gc.scheduler" in by_scheduler
    spread = html.figure("write p99.99 (")  # a panel per figure, a point per axis value
    assert [row["v"] for row in rows(spread)][:2] == ["greedy", "rlgc"]
    cells = pd.read_parquet(sweep_path / "results.parquet")
    waf = cells[(cells["status"] == "ok") & (cells["gc.scheduler"] == "greedy")]["waf"]
    mean, low, high = (pytest.approx(v) for v in (waf.mean(), waf.min(), waf.max()))
    assert {"v": "greedy", "mean": mean, "min": low, "max": high} in rows(spread)
    assert "grid.toml" in html.section("Provenance")


def test_reproduction_page_puts_the_verdicts_first_and_embeds_its_figures(reproduction_path, tmp_path):
    html = render(reproduction_path, tmp_path)
    assert_self_contained(html)
    assert html.text.index("Verdicts: the paper against ours") < html.text.index("<h2>Tables</h2>")
    verdicts = html.section("Verdicts: the paper against ours")
    assert '<td class="verdict verdict-good">reproduced</td>' in verdicts
    assert '<td class="verdict verdict-mid">partly: weaker</td>' in verdicts
    assert '<td class="verdict verdict-bad">not reproduced</td>' in verdicts
    ratios = html.figure("ours / paper")
    assert [row["ratio"] for row in rows(ratios) if "ratio" in row] == [1.24, 1.45], (
        "a negative ratio has no place on a log axis"
    )
    assert "1 headline without a positive ratio" in verdicts
    tables = html.section("Tables")
    assert "<h3>Table 1: write p99.99 (us)</h3>" in tables and ">greedy</td>" in tables
    assert "&lt;b&gt;markup&lt;/b&gt;" in tables, "markdown's raw HTML is escaped"
    png = (reproduction_path / "fig1_tails.png").read_bytes()
    assert f'src="data:image/png;base64,{base64.b64encode(png).decode()}"' in html.section("Figures")
    assert "<dt>runs</dt><dd>2</dd>" in html.section("Provenance")


def test_a_reproduction_on_the_sweep_engine_also_shows_its_sweep(reproduction_path, sweep_path, tmp_path):
    both = shutil.copytree(reproduction_path, tmp_path / "both")
    shutil.copytree(sweep_path, both, dirs_exist_ok=True)
    shutil.rmtree(both / "cells")  # the provenance then comes from the sweep's reports
    html = render(both, tmp_path)
    assert_self_contained(html)
    assert html.text.index("Verdicts: the paper against ours") < html.text.index("<h2>By gc.scheduler</h2>")
    assert "<dt>runs</dt><dd>8</dd>" in html.section("Provenance")


def test_a_page_without_figures_is_complete_as_it_loads(tmp_path):
    (tmp_path / "rep").mkdir()
    (tmp_path / "rep" / "tables.md").write_text("| a |\n|--|\n| 1 |\n")
    html = render(tmp_path / "rep", tmp_path)
    assert html.declared == 0 and 'data-figures-rendered="0"' in html.text
    assert "vega-js-gzip" not in html.text
    assert "saved no run reports" in html.section("Provenance")


def test_cli_writes_the_report_beside_its_input_and_prints_its_path(run_json, compare_path, tmp_path):
    result = CliRunner().invoke(cli, ["report", str(run_json)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert run_json.with_suffix(".html").is_file()
    assert "report of a run report" in result.output and str(run_json.with_suffix(".html")) in result.output
    out = tmp_path / "deep" / "cmp.html"
    result = CliRunner().invoke(cli, ["report", str(compare_path), "-o", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert out.is_file() and "compare directory" in result.output


def test_cli_errors_exit_2_with_a_message_not_a_traceback(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        main(["report", str(tmp_path), "-o", str(tmp_path / "r.html")])
    assert info.value.code == 2
    # The console wraps at its width, leaving spaces at the breaks: compare words.
    err = " ".join(capsys.readouterr().err.split())
    assert "no results to report on" in err and "Traceback" not in err
    assert not (tmp_path / "r.html").exists()


def test_make_run_writes_the_report_of_its_compare(compare_path, tmp_path):
    """The Makefile's `run` target follows its compare with `ssdlab report` on the same
    directory: that command, on a compare directory of tiny runs."""
    recipe = (Path(__file__).resolve().parents[2] / "Makefile").read_text().split("\nrun: build\n", 1)[1]
    line = next(ln for ln in recipe.splitlines() if "ssdlab report" in ln)
    words = shlex.split(line.strip())
    assert words[:3] == ["$(BIN)/ssdlab", "report", "results/demo"]
    assert words[3:] == ["-o", "results/demo/report.html"]
    demo = shutil.copytree(compare_path, tmp_path / "results" / "demo")
    args = [w.replace("results/demo", str(demo)) for w in words[1:]]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert (demo / "report.html").is_file() and str(demo / "report.html") in result.output


def test_verdict_words_colour_the_verdicts_and_not_measured_judges_nothing():
    from ssdlab.htmlreport.reproduction_page import verdict_class

    assert verdict_class("reproduced") == "verdict-good"
    assert verdict_class("partly: weaker") == "verdict-mid"
    assert verdict_class("not") == "verdict-bad"
    assert verdict_class("not reproduced") == "verdict-bad"
    # write_verdicts's verdict for a headline with no figure of ours: not a failure.
    assert verdict_class("not measured") == ""


def test_the_same_input_gives_the_same_bytes(compare_path, tmp_path):
    """No timestamp, no random id: the Vega compile and the gzip (mtime 0) are deterministic."""
    first = write_report(compare_path, tmp_path / "a.html").path.read_bytes()
    assert write_report(compare_path, tmp_path / "b.html").path.read_bytes() == first


def test_an_agent_with_fewer_decisions_than_one_window_says_so_and_is_flagged(tmp_path):
    """A run of RLGC too short for one reward window (1,000 decisions) nor its epsilon schedule
    (0.8 for its first 1,000): the page says how many decisions it took against the window,
    instead of "no reward yet" beside a table of rewards, and flags the agent as still exploring
    in the summary and the learning section."""
    import ssdlab

    report = ssdlab.run(
        preset="tiny",
        workload="randwrite",
        overrides=[
            "workload.count=1500",
            "warmup.fill=true",
            "gc.trigger_free_blocks=12",
            "gc.rlgc.zero_interval=same_arrival",
            "gc.scheduler=rlgc",
        ],
    )
    gc = report.raw["learning"]["gc"]
    decisions = gc["decisions"]
    assert 0 < decisions < gc["reward_window_decisions"] == 1000 and gc["rewards"] > 0
    report.save(tmp_path / "short.json")
    html = render(tmp_path / "short.json", tmp_path)
    learning = html.section("Learning")
    assert f"The `gc` agent took fewer decisions ({decisions:,}) than one reward window (1,000)" in learning
    assert "no reward" not in learning
    share = round(100 * gc["explorations"] / decisions)
    flag = f"{share} % of {decisions:,} GC decisions explored"
    assert "Still exploring when the run ended" in learning and f"gc agent (rlgc): {flag}" in learning
    assert f"epsilon 0.8 until decision 1,000, then 0.01; the run took {decisions:,}" in learning
    summary = html.section("Summary")
    assert 'class="warning"' in summary and flag in summary
    assert f"<dt>gc agent (rlgc)</dt><dd>{flag} (still exploring)</dd>" in summary


def test_compare_page_flags_a_variant_still_exploring_beside_its_figures(compare_path, tmp_path):
    html = render(compare_path, tmp_path)
    runs = [Report.load(p) for p in sorted((compare_path / "reports").glob("*.json"))]
    rlgc = [r["learning"]["gc"] for r in runs if r["config"]["gc"]["scheduler"] == "rlgc"]
    summary = html.section("Summary")
    assert '<th class="num">explored</th>' in summary
    shares = sorted(round(100 * g["explorations"] / g["decisions"]) for g in rlgc)
    text = f"{shares[0]} %" if shares[0] == shares[-1] else f"{shares[0]}-{shares[-1]} %"
    still = any(
        g["epsilon_schedule"]["initial_phase_over"] is False or g["explorations"] > 0.1 * g["decisions"]
        for g in rlgc
    )
    assert (f"{text} †" in summary) is still
    assert ("still exploring" in summary.lower()) is still
    learning = html.section("Learning")
    assert "<th>explored</th>" in learning and "<th>still exploring</th>" in learning


def test_the_run_headline_gives_throughput_once_as_a_rate_in_significant_figures(run_json):
    from ssdlab.htmlreport import run_page, tables

    headline = run_page.headline(Report.load(run_json))
    report = Report.load(run_json)
    assert headline["IOPS (simulated)"] == fmt_sig(report["throughput"]["iops"])
    assert headline["MB/s (simulated)"] == fmt_sig(report["throughput"]["mb_per_s"])
    # Not again under the names runs.csv gives them ("mb per" read as seconds).
    assert not {"iops", "IOPS", "mb per", "MB/s"} & set(headline)
    assert tables.readable("mb_per_s") == "MB/s" and tables.format_value("mb_per_s", 2.5) == "2.5"
    assert tables.format_value("span_s", 2.5) == fmt_duration_us(2.5e6)
