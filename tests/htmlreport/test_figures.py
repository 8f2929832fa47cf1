"""Figures of groups of runs: how several runs become one line."""

from __future__ import annotations

from ssdlab.htmlreport import figures
from ssdlab.report import Report


def agent_run(window_means: list[float]) -> Report:
    """A report holding only a `gc` agent's reward series (windows of 100 decisions)."""
    series = [[100 * (i + 1), 100, m, 0.0, m] for i, m in enumerate(window_means)]
    return Report({"learning": {"gc": {"reward_series": series}}})


def test_learning_curve_averages_window_by_window_as_far_as_half_the_runs_went():
    runs = [agent_run([1.0, 2.0, 3.0]), agent_run([3.0, 4.0]), agent_run([5.0])]
    curve = figures.learning_curve(runs, "gc")
    # Window 300 was reached by one run of three: left out, not drawn as that run alone.
    assert curve["decisions"].tolist() == [100, 200]
    assert curve["window_mean_reward"].tolist() == [3.0, 3.0]


def test_learning_curve_of_runs_without_an_agent_is_none():
    assert figures.learning_curve([Report({"learning": {}})], "gc") is None


def test_flash_accounting_is_the_mean_over_the_group_s_runs():
    def run(gc_programs: int) -> Report:
        sources = {s: {"reads": 0, "programs": 0, "erases": 0} for s in figures.SOURCES}
        sources["gc"]["programs"] = gc_programs
        return Report({"device": {"counters": {"by_source": sources}}})

    tally = figures.by_source([run(10), run(30)])
    assert tally["gc"] == {"reads": 0.0, "programs": 20.0, "erases": 0.0}
    spec, _ = figures.flash_accounting({"a": [run(10), run(30)], "b": [run(4)]})
    bars = spec["data"]["values"]
    assert [(b["g"], b["n"]) for b in bars if b["op"] == "programs" and b["source"] == "gc"] == [
        ("a", 20),
        ("b", 4),
    ]
    assert {b["source"] for b in bars} == {"gc"}, "sources that did nothing are left out"


def test_figure_numbers_keep_eight_digits_and_json_has_no_nan():
    assert figures.number(1 / 3) == 0.33333333
    assert figures.number(2.0) == 2 and isinstance(figures.number(2.0), int)
    assert figures.number(float("nan")) is None and figures.number(float("inf")) is None
    assert figures.number(123456789.0) == 123456790


def test_every_figure_compiles_to_a_vega_spec_sized_to_its_container():
    """The page draws Vega specs compiled here; a view alone takes the width, a row shares it."""
    from ssdlab.htmlreport import page

    def runs(free: list[int]) -> Report:
        series = {"free_blocks": {"time_ns": [i * 1000 for i in range(len(free))], "values": free}}
        return Report({"time_series": series})

    ((spec, _),) = figures.time_series({"a": [runs([10, 9, 8])], "b": [runs([7, 7, 6])]})
    vega = page.compile_figure(spec)
    assert vega["$schema"].endswith("/vega/v6.json")
    inline = next(data["values"] for data in vega["data"] if "values" in data)
    assert inline[0] == {"g": "a", "t": [0, 1, 2], "v": [10, 9, 8]}, "2 us of simulated time, in us"
    assert page.sized(spec, 1000)["width"] == 980
    row = page.sized({"hconcat": [{}, {}]}, 1000)
    assert [v["width"] for v in row["hconcat"]] == [410, 410]
    column = page.sized({"vconcat": [{}, {}]}, 1000)
    assert [v["width"] for v in column["vconcat"]] == [890, 890]
    alone = page.sized({"mark": "point"}, 1000)
    assert alone == {"mark": "point", "width": 980, "autosize": {"type": "fit-x", "contains": "padding"}}


#: The series the core is being taught to sample (issue #45), beside today's, each {interval_ns,
#: time_ns, values}: what the page must draw without knowing them in advance.
NEW_SERIES = {
    "iops": [900.0, 1100.0, 1000.0],
    "mb_per_s": [3.5, 4.3, 3.9],
    "read_latency_p50_us": [90.0, 95.0, 110.0],
    "read_latency_p99_us": [1500.0, 2700.0, 4100.0],
    "write_latency_p50_us": [60.0, None, 70.0],  # an interval without writes
    "write_latency_p99_us": [900.0, 1200.0, 980.0],
    "waf": [1.1, 2.4, 1.7],
    "gc_pages_copied": [0, 120, 40],
    "free_blocks": [40, 12, 14],
    "buffer_occupied_pages": [10, 30, 20],
    "buffer_dirty_pages": [5, 25, 3],
    "read_latency_p999_us": [9000.0, 12000.0, 30000.0],  # a name the page has never seen
}


def series_run(interval_ns: float, extra: dict | None = None) -> Report:
    series = {
        name: {
            "interval_ns": interval_ns,
            "time_ns": [interval_ns * (i + 1) for i in range(len(values))],
            "values": values,
        }
        for name, values in {**NEW_SERIES, **(extra or {})}.items()
    }
    return Report({"time_series": series})


def test_every_time_series_a_run_holds_gets_a_figure_with_a_line_per_group_and_its_unit():
    # 21 days of simulated time (the 1.8 M s axis): in days.
    day_ns = 86_400e9
    drawn = figures.time_series({"rlgc": [series_run(7 * day_ns)], "greedy": [series_run(7 * day_ns)]})
    titles = {}
    for spec, caption in drawn:
        encoding = spec["encoding"]
        titles[encoding["y"]["title"]] = spec
        assert encoding["x"]["title"] == "simulated time (d)"
        assert [row["g"] for row in spec["data"]["values"]] == ["rlgc", "greedy"]
        assert spec["data"]["values"][0]["t"] == [7, 14, 21]
        assert "sampled at most every 7 d" in caption
    assert list(titles) == [
        "IOPS",
        "throughput (MB/s)",
        "read latency p50 (us)",
        "read latency p99 (ms)",
        "write latency p50 (us)",
        "write latency p99 (ms)",
        "WAF",
        "GC pages copied",  # the title names its unit
        "free blocks",
        "buffer pages in use",
        "dirty buffer pages",
        "read latency p999 (ms)",  # unknown names come last, titled and unit-ed from the name
    ]
    p99 = titles["read latency p99 (ms)"]["data"]["values"][0]["v"]
    assert p99 == [1.5, 2.7, 4.1], "us values shown in ms"
    gap = titles["write latency p50 (us)"]["data"]["values"][0]["v"]
    assert gap == [60, None, 70], "an interval without requests stays a gap, never a 0"
    # Every figure compiles.
    from ssdlab.htmlreport import page

    for spec, _ in drawn:
        page.compile_figure(spec)


def test_a_series_of_gaps_alone_gets_no_figure():
    # A write-only run: its read latencies are null in every interval.
    run = Report(
        {
            "time_series": {
                "read_latency_p50_us": {"time_ns": [1e6, 2e6], "values": [None, None], "interval_ns": 1e6},
                "write_latency_p50_us": {"time_ns": [1e6, 2e6], "values": [80, None], "interval_ns": 1e6},
            }
        }
    )
    assert figures.series_names([run]) == ["write_latency_p50_us"]
    assert [spec["encoding"]["y"]["title"] for spec, _ in figures.time_series({"a": [run]})] == [
        "write latency p50 (us)"
    ]


def test_time_axes_take_the_unit_their_span_reaches():
    def t_title(interval_ns: float) -> str:
        (spec, _), *_ = figures.time_series({"a": [series_run(interval_ns)]})
        return spec["encoding"]["x"]["title"]

    assert t_title(100e3) == "simulated time (us)"  # 300 us
    assert t_title(1e6) == "simulated time (ms)"  # 3 ms
    assert t_title(30e9) == "simulated time (s)"  # 90 s: not 1.5 min
    assert t_title(60e9) == "simulated time (min)"  # 3 min
    assert t_title(3600e9) == "simulated time (h)"
    assert figures.time_series({"a": [Report({"time_series": {}})]}) == []


def test_a_latency_cdf_starts_at_zero_and_its_axis_takes_the_unit_of_its_range():
    """30 % of the writes at the fastest latency: the CDF must rise from 0 there, not start at
    0.3; latencies from 0.1 to 50 ms read in ms."""
    values = [100_000] * 3 + [2_000_000] * 6 + [50_000_000]  # ns
    histogram = [(v, values.count(v)) for v in sorted(set(values))]
    summary = {"count": len(values), "max_ns": max(values)}
    run = Report({"latency": {"write": summary}}, histograms={"write": histogram})
    spec, caption = figures.latency({"run": [run]}, "write")
    cdf_panel, tail_panel = spec["hconcat"]
    (row,) = spec["data"]["values"]
    assert row["cdf"][:2] == [0, 0.3] and row["x"][:2] == [0.1, 0.1], "a step up from 0 at the fastest"
    assert row["tail"][:2] == [1, 1] and row["cdf"][-1] == 1
    assert row["x"][-1] == 50
    assert cdf_panel["layer"][0]["encoding"]["y"]["scale"]["domain"] == [0, 1.02]
    assert cdf_panel["layer"][0]["encoding"]["x"]["title"] == "write latency (ms)"
    assert tail_panel["layer"][0]["encoding"]["y"]["scale"]["type"] == "log", "the tail stays log-log"
    assert tail_panel["layer"][0]["encoding"]["x"]["scale"]["type"] == "log"
    assert "in ms" in caption


def test_a_legend_of_many_long_labels_wraps_instead_of_overflowing():
    """A legend asks for at most LEGEND_COLUMNS columns of labels cut at LEGEND_LABEL_PX, and the
    page lowers the columns to what a figure's width holds: at the reference width they fit."""
    from ssdlab.htmlreport import page

    labels = [
        f"gc.scheduler=rlgc_aggressive device.utilization=0.{i} cache.capacity=64MiB" for i in range(12)
    ]
    legend = figures._colours(labels, True)["legend"]
    assert legend["columns"] == figures.LEGEND_COLUMNS and legend["labelLimit"] == figures.LEGEND_LABEL_PX
    assert figures.LEGEND_COLUMNS * page.LEGEND_COLUMN_PX <= page.FIGURE_WIDTH
    assert page.LEGEND_COLUMN_PX >= figures.LEGEND_LABEL_PX + 25, "a column holds its label and symbol"
    assert "__LEGEND_COLUMN_PX__" not in page._DRAW_JS


def test_a_learning_curve_of_one_window_shows_its_point():
    """A line through one point draws nothing: a run just past its first window gets a dot."""
    spec, _ = figures.learning({"rlgc": [agent_run([0.9])]}, "gc")
    assert spec["layer"][0]["mark"]["point"] is True
    long = [0.5] * (figures.LEARNING_POINTS_SHOWN + 1)
    spec, _ = figures.learning({"rlgc": [agent_run(long)]}, "gc")
    assert spec["layer"][0]["mark"]["point"] is False
