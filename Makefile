# Sevenbox: `make run` to try it, `make test` to check it. Python 3.12 (see .python-version).
PYTHON ?= python3.12
VENV := .venv
BIN := $(VENV)/bin
RUNTIME_STAMP := $(VENV)/.installed-runtime
DEV_STAMP := $(VENV)/.installed-dev
MANAGE := $(BIN)/python manage.py
# make run defaults to development mode; export DEBUG=0 and a SECRET_KEY for production-like runs.
# numba caches the compiled replay loop in var/numba-cache (compiled once, ~20 s, then loaded by every worker).
RUN_ENV := DEBUG=$${DEBUG:-1} NUMBA_CACHE_DIR=$${NUMBA_CACHE_DIR:-$(CURDIR)/var/numba-cache}

.PHONY: install install-runtime check-lock run test test-core test-rest test-fast lint format lock bench check-deploy browsers clean

# Two stamps: `make run` installs the runtime lock only; tests, lint and benchmarks add the development lock.
$(RUNTIME_STAMP): requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	touch $(RUNTIME_STAMP)

$(DEV_STAMP): $(RUNTIME_STAMP) requirements-dev.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.lock
	touch $(DEV_STAMP)

install: $(DEV_STAMP)

install-runtime: $(RUNTIME_STAMP)

run: install-runtime
	$(RUN_ENV) $(MANAGE) migrate --noinput
	$(RUN_ENV) $(MANAGE) collectstatic --noinput -v 0
	$(RUN_ENV) $(MANAGE) load_questions
	@if [ "$${DEBUG:-1}" != "0" ]; then $(RUN_ENV) $(MANAGE) create_demo_accounts; fi
	$(RUN_ENV) $(BIN)/python -m config.devrun

# Every test once: the pure grading core's without Django (which proves it needs none), then all the others.
# Both run in TEST_WORKERS processes (pytest-xdist; `auto` is one per CPU), each with a test database and Redis
# keys of its own; the tests marked `serial` (they restart PostgreSQL and Redis, or share what a process they
# start uses) and the tests on a real Celery worker (one run in parallel lost a task behind kombu's key prefix
# and waited 600 s) then run alone, in one process, the fault tests last. A pass that selects nothing (exit 5, e.g.
# PYTEST_ARGS="-k one_test") is not a failure.
TEST_WORKERS ?= auto
PYTEST_PARALLEL := -n $(TEST_WORKERS) --dist worksteal
test: test-core test-rest

test-core: install
	$(BIN)/python -m pytest -p no:django tests/core $(PYTEST_PARALLEL) $(PYTEST_ARGS) || [ $$? -eq 5 ]

test-rest: install
	$(BIN)/python -m pytest --ignore=tests/core -m "not serial and not celery_worker" $(PYTEST_PARALLEL) $(PYTEST_ARGS) || [ $$? -eq 5 ]
	$(BIN)/python -m pytest --ignore=tests/core -m "serial or celery_worker" $(PYTEST_ARGS) || [ $$? -eq 5 ]

test-fast: install
	$(BIN)/python -m pytest -m "not browser" $(PYTEST_ARGS)

# mypy (pyproject's [tool.mypy]: the product with django-stubs, strict on grading/core) loads the settings,
# which refuse to start without a SECRET_KEY unless DEBUG is on; its cache is .mypy_cache.
lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	DEBUG=1 $(BIN)/mypy

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# Both locks from pyproject.toml: the runtime dependencies, then the extras constrained to the runtime pins.
PIP_COMPILE := $(BIN)/pip-compile --quiet --strip-extras --no-emit-index-url --no-emit-find-links --newline LF
LOCK_COMMANDS = $(PIP_COMPILE) --output-file requirements.lock pyproject.toml && \
	$(PIP_COMPILE) --extra dev --extra bench --constraint requirements.lock --output-file requirements-dev.lock pyproject.toml
lock: install
	$(LOCK_COMMANDS)

# CI: the locks are what `make lock` makes from pyproject.toml now (compiled in a copy, compared).
check-lock: install
	rm -rf var/lock-check && mkdir -p var/lock-check
	cp pyproject.toml requirements.lock requirements-dev.lock var/lock-check/
	cd var/lock-check && $(LOCK_COMMANDS:$(BIN)/%=$(CURDIR)/$(BIN)/%)
	diff -u requirements.lock var/lock-check/requirements.lock
	diff -u requirements-dev.lock var/lock-check/requirements-dev.lock

GRADED_RUN := $(firstword $(wildcard ../shared/graded/run.py ../../shared/graded/run.py))
bench: install
	$(BIN)/python bench/models.py
	$(BIN)/python bench/grading.py
	$(BIN)/python bench/replay.py
	$(BIN)/python bench/drills.py
	@# Agreement with the expert's hand-graded answers (a measure, not a gate: its exit status is ignored).
	@# The set sits beside the checkout (../shared), or beside a worktree's folder (../../shared).
	-$(if $(GRADED_RUN),python3 $(GRADED_RUN) | tail -n 2,@echo "graded: no shared/graded/run.py beside this checkout")

check-deploy: install-runtime
	DEBUG=0 SECRET_KEY=$${SECRET_KEY:-check-deploy-only-0123456789abcdefghijklmnopqrstuv} \
	ALLOWED_HOSTS=sevenbox.example CSRF_TRUSTED_ORIGINS=https://sevenbox.example \
	$(MANAGE) check --deploy --fail-level WARNING

# Browser tests drive Debian's Chromium (no browser download): apt-get install chromium.
browsers:
	test -x /usr/bin/chromium || (apt-get update -qq && apt-get install -y -qq chromium)

clean:
	rm -rf var/celery var/staticfiles
