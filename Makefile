# The two front-door commands are `make run` and `make test`; both bootstrap
# everything they need on a fresh machine with only Python 3.11.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SYSSTAMP := $(VENV)/.system-deps

.PHONY: run test lint typecheck unit setup system-deps bench screenshots clean

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "make: $(PYTHON) not found (Python 3.11+ is required)" >&2; exit 2; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

$(SYSSTAMP): scripts/system-deps.sh | $(STAMP)
	bash scripts/system-deps.sh
	touch $(SYSSTAMP)

system-deps: $(SYSSTAMP)

## The main job: with no arguments, serve the bundled demo site on 127.0.0.1,
## crawl it, and write its sitemap set and visual map into ./out.
run: $(STAMP)
	$(BIN)/sitemapkit demo --out out $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check $(wildcard src tests bench scripts)
	$(BIN)/ruff format --check $(wildcard src tests bench scripts)

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP) $(SYSSTAMP)
	$(BIN)/pytest $(PYTEST_ARGS)

## The whole test suite: lint, types, then every test (xmllint and Chromium included).
test: lint typecheck unit

bench: $(STAMP) $(SYSSTAMP)
	$(BIN)/python bench/run_all.py

screenshots: $(STAMP) $(SYSSTAMP)
	$(BIN)/python scripts/screenshots.py

clean:
	rm -rf $(VENV) out build dist .mypy_cache .pytest_cache .ruff_cache
