# ssdlab: the two commands of the README are `make run` and `make test`. Both set up
# everything on a fresh machine (Python venv, native build) before they run.
VENV ?= .venv
BIN := $(VENV)/bin
export VIRTUAL_ENV := $(abspath $(VENV))
export PATH := $(abspath $(BIN)):$(PATH)
# Every pip install below resolves against the lock in constraints.txt.
export PIP_CONSTRAINT := $(abspath constraints.txt)

.PHONY: setup build run test lint rust-test py-test bench clean browser

$(BIN)/maturin:
	python3 -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q maturin

setup: $(BIN)/maturin

# Builds the native core (release) and installs ssdlab with its runtime and dev dependencies.
build: setup
	$(BIN)/maturin develop --release --extras dev,ray,gym -q

# The main job: the GC schedulers of the RLGC paper side by side on a real MSR Cambridge trace
# excerpt that ships with the package (no download), 3 seeds each: a comparison table, runs.csv,
# the write-latency tail plot and every run's report in results/demo/. Why these settings (a
# 3 GiB cut of the paper's drive, preconditioned, 60 passes = about one drive written):
# `ssdlab compare --help`. About 20 s on 2 cores. Then the same results as one HTML page that
# opens offline (`ssdlab report`), which prints its path.
run: build
	$(BIN)/ssdlab compare --preset kang-3d-128gb --trace msr_cut10k_rw20_80_105 \
		--set device.blocks_per_plane=512 --set device.utilization=0.6 --set warmup.fill=true --set warmup.random_writes=1.0 \
		--set workload.fold=compact --set workload.repeat=60 --seeds 3 --out results/demo \
		--vary gc.scheduler=greedy,lazy_rtgc,rlgc,rlgc_aggressive,rlgc_qtc
	$(BIN)/ssdlab report results/demo -o results/demo/report.html

lint: build
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(BIN)/ruff check python tests examples
	$(BIN)/ruff format --check python tests examples

rust-test:
	cargo test --profile test-release -p ssdlab-core
	cargo test --profile test-release -p ssdlab-py --lib

# The browser test of `ssdlab report` needs a real headless Chromium: Debian's, with its driver.
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
		{ SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); $$SUDO apt-get update -qq && \
		  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium chromium-driver >/dev/null; }

py-test: build browser
	$(BIN)/pytest -q

# Everything CI runs: lint (clippy --all-targets type-checks the benches), Rust tests, Python tests.
test: lint rust-test py-test

bench: build
	cargo bench -p ssdlab-core
	$(BIN)/ssdlab bench

clean:
	rm -rf $(VENV) target results
