PYTHON ?= python3

.PHONY: install test check-code pytest docs bench score dist

# Installs the package with its test extras and the services the runtime tests
# need (redis-server, PostgreSQL binaries). The tests start the servers themselves.
install:
	bash scripts/install-test-deps.sh

test: install check-code pytest

check-code:
	$(PYTHON) -m ruff check joblint runtime tests benchmarks
	$(PYTHON) -m mypy
	lint-imports

pytest:
	$(PYTHON) -m pytest

# Regenerate docs/rules/*.md and joblint/rules/_catalog.py from the rule modules.
docs:
	$(PYTHON) -m joblint.docs_gen

# Per-rule precision and recall of every rule on our own fixtures (their
# `# JLxxx` marks); `--json` for a machine.
score:
	$(PYTHON) benchmarks/score.py

# joblint byte-compiled first, as a pip install leaves it: with
# PYTHONDONTWRITEBYTECODE set, modules edited since the last compile would be
# compiled again by every process measured.
# The scale targets first (the pinned application, the monorepo, the
# generated module: benchmarks/targets.py), then the library corpora; an
# application of your own with JOBLINT_BENCH_APP=PATH.
bench:
	$(PYTHON) -m compileall -q joblint runtime/src
	$(PYTHON) benchmarks/targets.py --write-docs
	$(PYTHON) benchmarks/compare.py --write-docs
	if [ -n "$$JOBLINT_BENCH_APP" ]; then $(PYTHON) benchmarks/compare.py --application "$$JOBLINT_BENCH_APP" && $(PYTHON) benchmarks/lsp_latency.py --write-docs --workspace "$$JOBLINT_BENCH_APP"; fi

# Both distributions, wheel and sdist each, into dist/: joblint-runtime (the
# helpers production code imports, runtime/) and joblint (the linter, which
# depends on it); then the metadata and long descriptions as the package
# index would render them.
dist:
	$(PYTHON) -m pip install --quiet --disable-pip-version-check build twine
	rm -rf dist
	$(PYTHON) -m build --outdir dist runtime
	$(PYTHON) -m build --outdir dist .
	$(PYTHON) -m twine check --strict dist/*
