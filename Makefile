# ssdlab: the two commands of the README are `make run` and `make test`. Both set up
# everything on a fresh machine (Python venv, native build) before they run.
VENV ?= .venv
BIN := $(VENV)/bin
export VIRTUAL_ENV := $(abspath $(VENV))
export PATH := $(abspath $(BIN)):$(PATH)
# Every pip install below resolves against the lock in constraints.txt.
export PIP_CONSTRAINT := $(abspath constraints.txt)

.PHONY: setup build run test lint rust-test py-test bench clean

$(BIN)/maturin:
	python3 -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q maturin

setup: $(BIN)/maturin

# Builds the native core (release) and installs ssdlab with its runtime and dev dependencies.
build: setup
	$(BIN)/maturin develop --release --extras dev -q

# The main job: a preconditioned 3D TLC drive (RLGC paper, Table 2) under bursty random writes
# with idle gaps at 80% utilisation, blocking greedy GC; report, table and plots in results/demo/.
run: build
	$(BIN)/ssdlab run --preset kang-3d-128gb --workload onoff --set device.utilization=0.8 \
		--out results/demo/report.json --plots results/demo

lint: build
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(BIN)/ruff check python tests
	$(BIN)/ruff format --check python tests

rust-test:
	cargo test --profile test-release -p ssdlab-core
	cargo bench --no-run -p ssdlab-core

py-test: build
	$(BIN)/pytest -q

# Everything CI runs: lint, Rust tests (and benches compile), Python tests.
test: lint rust-test py-test

bench: build
	cargo bench -p ssdlab-core
	$(BIN)/ssdlab bench

clean:
	rm -rf $(VENV) target results
