# The two commands of the README: `make demo` and `make test`.
# Both set up .venv (once, or again when pyproject.toml changes) and install
# the project into it in editable mode.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PYTEST_WORKERS ?= 2

.PHONY: demo test generate check typecheck bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

generate: $(STAMP)
	$(BIN)/gen-ops

check: $(STAMP)
	$(BIN)/gen-ops --check

demo: generate
	$(BIN)/python examples/run_all.py

LINTED := generator runtime tests bench examples ops hatch_build.py

test: $(STAMP)
	$(BIN)/ruff check $(LINTED)
	$(BIN)/black --check --quiet $(LINTED)
	$(BIN)/gen-ops --check --quiet
	$(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist loadgroup

# The generator under mypy --strict (tests/generator/test_typing.py runs it too).
typecheck: $(STAMP)
	MYPYPATH=runtime:generator $(BIN)/python -m mypy --strict --python-version 3.11 \
		--namespace-packages --explicit-package-bases -p gen_ops

bench: $(STAMP)
	$(BIN)/python bench/gen_scaling.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .hypothesis
