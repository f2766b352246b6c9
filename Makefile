# The two set-up commands of the README work on a fresh machine:
#   make run   - create .venv, install, run the monitor on the bundled examples (no services)
#   make test  - install (Python stack + Debian's prometheus for promtool, chromium for the
#                report's browser tests), then ruff, mypy
#                and the whole test suite (which starts its own broker and Prometheus)
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install run demo test lint typecheck pytest schemas bench bench-quality clean browser-tools report

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	# torch first, pinned: the CPU build from local disk (a bare "torch" pulls a CUDA build)
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: install
	$(BIN)/skg-monitor demo --duration 60

score: install
	$(BIN)/skg-monitor score examples/conversations.jsonl --format table

prometheus-tools:
	bash .ci/install-prometheus.sh

browser-tools:
	bash .ci/install-chromium.sh

lint: install
	$(BIN)/ruff check monitor tests

typecheck: install
	$(BIN)/mypy

pytest: install prometheus-tools browser-tools
	$(BIN)/python -m pytest -q -p no:cacheprovider

test: lint typecheck pytest

# the README's screenshot: score the examples, render the report, photograph one conversation
report: install browser-tools
	mkdir -p build
	$(BIN)/skg-monitor score examples/conversations.jsonl --output build/scores.jsonl
	$(BIN)/skg-monitor report build/scores.jsonl --events examples/conversations.jsonl \
	  --out build/report.html --screenshot docs/report.png

schemas: install
	$(BIN)/skg-monitor schemas --out schemas

bench: install
	$(BIN)/skg-monitor bench engine
	$(BIN)/skg-monitor bench probe

# every quality benchmark of the contradiction verdicts on the data in ../shared
# (results in benchmarks/results/; MT-Bench-101's certificates are read by a person and
# judged in benchmarks/real/judgements.jsonl)
SHARED ?= ../shared/data
bench-quality: install
	$(BIN)/skg-monitor bench verifier $(SHARED)/nli/pairs.jsonl
	$(BIN)/skg-monitor bench blind
	$(BIN)/skg-monitor bench blind --split dev
	$(BIN)/skg-monitor bench amounts
	$(BIN)/skg-monitor bench amounts --split dev
	$(BIN)/skg-monitor bench userfacts
	$(BIN)/skg-monitor bench userfacts --split dev
	$(BIN)/skg-monitor bench evidence --split test
	$(BIN)/skg-monitor bench funnel --split test
	$(BIN)/skg-monitor bench probe
	$(BIN)/skg-monitor bench real $(SHARED)/mtbench101/mtbench101.jsonl
	$(BIN)/skg-monitor bench pairs $(SHARED)/prosecco/ProSeCCo_final.jsonl
	$(BIN)/skg-monitor bench truthfulqa $(SHARED)/truthfulqa/TruthfulQA.csv
	$(BIN)/skg-monitor bench engine --real $(SHARED)/mtbench101/mtbench101.jsonl

clean:
	rm -rf $(VENV) build *.egg-info
