"""Layer: Python, experiments. The reproductions `ssdlab reproduce` offers, one `Reproduction`
each: its name, its package (imported only when it runs: pandas, matplotlib) and what its
command says. Light on purpose: the CLI builds its commands from here at start-up. A new paper
is a package under `experiments/` (its `PARTS`, `pipeline.Parts`) and one entry here
(docs/experiments/README.md, "Adding a reproduction")."""

from __future__ import annotations

from dataclasses import dataclass

#: --seeds's help where a reproduction says nothing of its own.
SEEDS_HELP = "Repeated seeds per configuration (the `seed` key: 0, 1, ...)."


@dataclass(frozen=True)
class Option:
    """An option of one reproduction's command beside those every reproduction has: passed to
    its `Parts.prepare` under `name`."""

    name: str
    flags: tuple[str, ...]
    help: str
    is_flag: bool = False
    multiple: bool = False


@dataclass(frozen=True)
class Reproduction:
    """One paper's reproduction as the command line and `pipeline.reproduce` know it."""

    #: `ssdlab reproduce NAME`; results go to `results/NAME` unless --out says.
    name: str
    #: Its package, whose `PARTS` (`pipeline.Parts`) say what it runs and writes.
    package: str
    #: The command's help: a first line, then a paragraph or two.
    help: str
    #: What its default traces are (--traces-dir's help: "Where the default ... are.").
    traces: str
    #: What --quick runs.
    quick: str
    #: --seeds's default and help.
    seeds: int = 1
    seeds_help: str = SEEDS_HELP
    #: Its own options, after --quick.
    options: tuple[Option, ...] = ()

    @property
    def out(self) -> str:
        return f"results/{self.name}"


REPRODUCTIONS: tuple[Reproduction, ...] = (
    Reproduction(
        "rlgc",
        "ssdlab.experiments.rlgc",
        "RLGC (Kang et al., TECS 2017) and its Q-table cache: Tables 5-10, Figs. 7 and 9.",
        traces="write-heavy real traces",
        quick="CI-sized: one trace and one synthetic workload, 256 blocks per plane, two drives written, two seeds.",
        seeds=3,
        seeds_help="Repeated seeds per configuration: 3 take about 19 minutes of 2 cores; the paper's ten "
        "(Tables 9-10) about 62 (--seeds 10).",
        options=(
            Option(
                "presets",
                ("--preset",),
                "Preset(s) (default: kang-3d-128gb and kang-3d-512gb).",
                multiple=True,
            ),
            Option(
                "include_predictors",
                ("--all",),
                "Also the interval predictors of Tables 11-12.",
                is_flag=True,
            ),
        ),
    ),
    Reproduction(
        "learnedftl",
        "ssdlab.experiments.learnedftl",
        "LearnedFTL (Wang et al., HPCA 2024) against DFTL, TPFTL and ideal: Figs. 3c, 14, 15, 20.",
        traces="real traces of Fig. 20",
        quick="CI-sized: a 2 GiB drive, 60 s warm-up, 100k reads, 20 s writes, one trace.",
    ),
    Reproduction(
        "fsp",
        "ssdlab.experiments.fsp",
        "RL FSP scheduling (Li et al., TCAD 2024) on QLC: Figs. 9-14, 2/8/32 MiB caches.\n\n"
        "Page type-aware full-sequence program scheduling by reinforcement learning against Baseline,\n"
        "Baseline-RW, Frequency and Distance, on every real trace with reads and writes.",
        traces="real traces with reads and writes",
        quick="CI-sized: two traces (CloudPhysics cut to its first 20,000 requests, one MSR cut).",
    ),
    Reproduction(
        "slc",
        "ssdlab.experiments.slc",
        "RL SLC cache (Yoo & Shin, HotStorage 2020) on hybrid SLC/QLC: Figs. 4-8 and WAF.\n\n"
        "First Table 4's six workloads (the specs slc-pc ... slc-ycsb-a, at the paper's address\n"
        "spaces and total writes, from empty, at least 3 seeds), with each one's throughput ceiling;\n"
        "then QLC-only, Static, DWA, UST and the Q-learning SLC cache manager on the preset\n"
        "yoo-hybrid-qlc over the stand-in traces, each replayed until it has written 1.5 drives, and\n"
        "an agent trained on the training stand-ins against an untrained one (Fig. 8). --seeds sets\n"
        "the stand-ins' seeds, and the first table's when above 3. --readings runs the readings of\n"
        'docs/experiments/slc.md ("Readings") instead.',
        traces="real traces standing in for the paper's",
        quick="CI-sized: Table 4's PC and YCSB-A cut to 60,000 and 12,000 requests, then a 192-block drive "
        "and two traces (the PC and TPC-C stand-ins); every mapping verified.",
        options=(
            Option(
                "readings",
                ("--readings",),
                "Instead: issue #46's readings of the paper (SLC size reserved or a cap, Algorithm 2's average) "
                "side by side, RL and its control on Table 4's workloads, large cold writes and the stand-ins.",
                is_flag=True,
            ),
        ),
    ),
)


def reproduction(name: str) -> Reproduction:
    """The registered reproduction called `name` (KeyError naming the known ones otherwise)."""
    for r in REPRODUCTIONS:
        if r.name == name:
            return r
    raise KeyError(f"no reproduction '{name}' (known: {', '.join(r.name for r in REPRODUCTIONS)})")
