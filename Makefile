# Two commands do everything on a fresh machine with Python >= 3.11:
#   make run   - create .venv, install, migrate, seed a demo, serve on 127.0.0.1:$(PORT)
#   make test  - lint, migrations check and the whole test suite on real PostgreSQL + Redis
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
# Three test workers on two cores: the suite waits on servers, browsers and the database
# about a third of the time.
PYTEST_WORKERS ?= 3
PORT ?= 8000

.PHONY: run test test-deep bench bench-compare bench-record lint typecheck clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install --quiet --upgrade pip
	@$(PY) -m pip install --quiet -e '.[dev]'
	@rm -f $(VENV)/.installed-* && touch $@

# Silent until the first line, which says which backends are in use (README); then the
# demo's passwords and the server's own banner.
run: $(STAMP)
	@DEBUG=$${DEBUG-1} $(PY) -c "import config.settings as s; print(s.BACKENDS_SUMMARY)"
	@DEBUG=$${DEBUG-1} $(PY) manage.py migrate --noinput -v 0
	@DEBUG=$${DEBUG-1} $(PY) manage.py seed_demo
	@DEBUG=$${DEBUG-1} $(PY) manage.py serve --port $(PORT)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(STAMP)
	DEBUG=1 $(VENV)/bin/mypy --strict --ignore-missing-imports poker/engine ledger tournaments/rules

# The ledger's branch coverage (100%) is measured on the ledger's own tests; the rest of
# the suite runs untraced: a coverage tracer slows every Python call by about half, in the
# servers and workers the tests start too.
test: $(STAMP) lint typecheck
	sh scripts/ensure_browser.sh
	$(PY) scripts/with_services.py \
		-- $(PY) manage.py makemigrations --check --dry-run \
		-- $(PY) -m pytest -n $(PYTEST_WORKERS) tests/ledger \
			--cov=ledger --cov-branch --cov-fail-under=100 --cov-report=term-missing:skip-covered \
			$(PYTEST_ARGS) \
		-- $(PY) -m pytest -n $(PYTEST_WORKERS) --dist loadgroup --ignore=tests/ledger \
			--durations=50 $(PYTEST_ARGS)

# The property tests (hypothesis) and the API fuzzing (schemathesis) with many more
# examples than `make test` runs.
PROPERTY_TESTS = $(shell grep -rl --include='test_*.py' -e '^from hypothesis' tests) tests/core/test_schemathesis.py
test-deep: $(STAMP)
	HYPOTHESIS_PROFILE=deep $(PY) scripts/with_services.py \
		-- $(PY) -m pytest -n $(PYTEST_WORKERS) $(PROPERTY_TESTS) $(PYTEST_ARGS)

bench: $(STAMP)
	$(PY) -m pip install --quiet -e '.[dev,bench]'
	$(PY) scripts/with_services.py -- $(PY) -m benchmarks $(BENCH_ARGS)

# The table and WebSocket benches on BASE and on this tree, alternately, on the same
# services: medians and head/base ratios per figure (README, "Benchmarks").
ROUNDS ?= 3
BENCHES ?= tables ws
SIZE ?= full
bench-compare: $(STAMP)
	@test -n "$(BASE)" || { echo "usage: make bench-compare BASE=<rev> [ROUNDS=3] [BENCHES='tables ws'] [SIZE=full|moderate|tiny]"; exit 2; }
	$(PY) scripts/with_services.py -- $(PY) -m benchmarks.compare --base $(BASE) \
		--rounds $(ROUNDS) --benches "$(BENCHES)" --size $(SIZE)

# This tree's table and WebSocket figures appended to benchmarks/results/history.md (commit it).
bench-record: $(STAMP)
	$(PY) scripts/with_services.py -- $(PY) -m benchmarks.compare --record --rounds $(ROUNDS) --size $(SIZE)

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache
