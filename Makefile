# Entry points for a fresh machine with only Python 3.11+:
#   make setup  - the virtual environment with Tableside installed, and the fast simulators
#                 compiled (tableside warm) so that no server compiles them at its start
#   make run    - set up and run the main job: the live web table on SQLite (tableside.db) with
#                 a demo table of both games; prints the Host's and the players' links
#                 (RUN_HOST=0.0.0.0 RUN_PORT=8080 RUN_DB=other.db to change where)
#   make test   - set up and run every check and test (ruff, mypy --strict, pytest on SQLite
#                 and on a local PostgreSQL server it starts; axe-core from npm when npm exists)
#   make demo   - set up and resolve one seeded Strike on the command line, with its breakdown
#   make check  - the inner loop (under 3 minutes): ruff, mypy --strict and the fast tests
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
RUN_HOST ?= 127.0.0.1
RUN_PORT ?= 8000
RUN_DB ?= tableside.db
# pytest on every core (pytest-xdist; each worker with its own databases and ports, see
# tests/conftest.py); tests that must not share the machine are grouped (xdist_group).
TEST_WORKERS ?= 2
PYTEST := $(BIN)/pytest -n $(TEST_WORKERS) --dist loadgroup --durations=15

.PHONY: setup run demo test check lint typecheck unit bench bench-store bench-war bench-web bench-web-profile bench-sim bench-fast bench-odds postgres browser axe screenshots clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,cluster]'
	# the fast simulators compiled now, into the user's cache, not at the server's first start
	# (F-52: about 2 CPU-minutes on a fresh machine; seconds when already compiled)
	$(BIN)/tableside warm
	touch $(STAMP)

setup: $(STAMP)

run: $(STAMP)
	$(BIN)/tableside serve --demo --host $(RUN_HOST) --port $(RUN_PORT) --db $(RUN_DB)

demo: $(STAMP)
	$(BIN)/tableside majesty strike --striker examples/herald.json --defender examples/fallen_warrior.json --seed 7

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: $(STAMP)
	$(BIN)/mypy src tests bench

# The store's tests also run on PostgreSQL: a private server is started (installed first when
# root on Debian) unless TABLESIDE_TEST_POSTGRES_URL names one; without one they are skipped.
# The browser tests' accessibility check needs axe-core (make axe): fetched here when npm exists.
unit: $(STAMP)
	@if command -v npm >/dev/null; then $(MAKE) --no-print-directory axe || \
		echo "axe-core could not be installed: the accessibility checks will be skipped"; fi
	TABLESIDE_TEST_POSTGRES_URL="$${TABLESIDE_TEST_POSTGRES_URL:-$$(bash scripts/postgres.sh start || true)}" \
		$(PYTEST)

test: lint typecheck unit

# The fast tests only (not those marked slow: browsers, whole servers, statistical agreement,
# crash tests; see tests/conftest.py), after ruff and mypy.
check: lint typecheck
	$(PYTEST) -m "not slow"

bench: $(STAMP)
	$(BIN)/python bench/strike_rate.py

# Store appends per second on SQLite, and on PostgreSQL when TABLESIDE_TEST_POSTGRES_URL is set.
bench-store: $(STAMP)
	$(BIN)/python bench/store_rate.py

# War commands per second through the store (SQLite; PostgreSQL when the URL is set).
bench-war: $(STAMP)
	$(BIN)/python bench/war_rate.py

# The web table under load on loopback (tableside serve; 50 tables x 4 clients): commands per
# second, p50/p99 latency and server CPU per command against the reference server (FastAPI +
# uvicorn, one SQLite row per command, same clients) and the same commands on a WebTable in
# process, on SQLite, and on PostgreSQL (1 process and --workers 2) when
# TABLESIDE_TEST_POSTGRES_URL is set; then the server's CPU per request by kind.
bench-web: $(STAMP)
	$(BIN)/python bench/web_load.py
	$(BIN)/python bench/web_kinds.py

# Where the server's time goes under the same load, by layer (py-spy; issue 26).
bench-web-profile: $(STAMP)
	$(BIN)/python bench/web_profile.py

# Whole fights simulated per second (4-against-4 War, Realm of Strife ambush): plain engine
# baseline, then tableside simulate on 1 and 2 worker processes (figures in docs/simulate.md).
bench-sim: $(STAMP)
	$(BIN)/python bench/sim_rate.py

# The fast engines (issue 15): Wars and ambush fights per CPU second against the full engine in
# the same process, one worker against two on as many runs, cold starts (docs/simulate.md).
bench-fast: $(STAMP)
	$(BIN)/python bench/fast_rate.py
	$(BIN)/python bench/fast_strife_rate.py

# Exact odds (cold and warm, against icepool and brute force) and Monte Carlo Strikes per second.
bench-odds: $(STAMP)
	$(BIN)/python bench/odds_rate.py
	$(BIN)/python bench/odds_rate.py --strife

# Start a private PostgreSQL server for the store's tests (prints its URL; see README).
postgres:
	@bash scripts/postgres.sh

# Debian's chromium and chromedriver for the browser tests (tests/test_web_e2e.py; skipped
# without them, except under CI) and the screenshots; installed only when missing (root).
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; }

# axe-core from the npm registry for the browser tests' accessibility check (tests/a11y.py),
# into node_modules/ (not in the repository); installed only when missing.
AXE_VERSION := 4.14.1
axe:
	@test -f node_modules/axe-core/axe.min.js || \
		npm install --no-save --no-audit --no-fund --no-package-lock axe-core@$(AXE_VERSION)

# The web table's screenshots in docs/screenshots/ (see docs/web.md).
screenshots: $(STAMP) browser
	$(BIN)/python scripts/screenshots.py
	$(BIN)/python scripts/setup_screenshots.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
