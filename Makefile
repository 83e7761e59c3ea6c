# Two entry points for a fresh machine with only Python 3.11+:
#   make demo   - set up and run the main job (a seeded Strike with its full breakdown)
#   make test   - set up and run every check and test (ruff, mypy --strict, pytest)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup demo test lint typecheck unit bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(BIN)/tableside majesty strike --striker examples/herald.json --defender examples/fallen_warrior.json --seed 7

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: $(STAMP)
	$(BIN)/mypy src tests bench

unit: $(STAMP)
	$(BIN)/pytest

test: lint typecheck unit

bench: $(STAMP)
	$(BIN)/python bench/strike_rate.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
