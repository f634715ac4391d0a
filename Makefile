# The two commands a newcomer needs: `make run` and `make test`.
# Both create .venv on first use and install the five distributions (rules/ and those under
# services/) and the workspace's tools into it (uv pip install -e ... -e '.[dev]'), so a
# fresh clone needs nothing but Python 3.11+ and make.
SHELL := /bin/bash
.DELETE_ON_ERROR:

# The first Python 3.11+ found; override with `make PYTHON=/path/to/python3.12 ...`.
ifeq ($(origin PYTHON),undefined)
PYTHON := $(shell for p in python3 python3.13 python3.12 python3.11 python; do \
	$$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1 \
	&& { echo $$p; break; }; done)
endif
VENV ?= .venv
BIN := $(VENV)/bin
# Written only after a complete install, so an install that fails halfway is redone.
STAMP := $(VENV)/.installed
# The distributions, lowest layer first (each folder has its pyproject.toml; README, Layout).
DISTRIBUTIONS := rules services/contract services/engine/server \
	services/gateway services/launcher
# One worker more than the cores: the tests wait on the servers they start for a share of
# their time (with a worker a core, 15% of two cores stood idle through the suite), and a
# third worker on two cores cut the whole run by 9% (docs/testing.md); a fourth slowed it.
PYTEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
# The slowest steps of each run in its report: a test that starts waiting out a timeout
# shows by name in CI's log.
PYTEST_TIMES := --durations=15
export PIP_DISABLE_PIP_VERSION_CHECK := 1
# Jobs side by side print their output whole, where make can (GNU make 4; macOS has 3.81).
OUTPUT_SYNC := $(if $(filter 4.% 5.%,$(MAKE_VERSION)),--output-sync=target)
# The Node tools (buf, the examples' clients) from package-lock.json, in node_modules/.
NODE_BIN := node_modules/.bin
NODE_STAMP := node_modules/.installed
HAVE_NPM := $(shell command -v npm 2>/dev/null)
# The contract that `buf breaking` holds proto/ to: the protos of the last release.
PROTO_BASELINE := proto/baseline.image.json

.PHONY: help run test test-ready system-packages test-reference compiled check lint typecheck imports protos protos-check protos-lint protos-baseline node \
	go-toolchain bench clean browser prometheus redis schemathesis mutation
.DEFAULT_GOAL := help

# `make` alone, or `make help`: every target with the text after its `##`.
help:  ## this list
	@echo "make TARGET, where TARGET is one of:"
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  %-16s %s\n", $$1, $$2}' \
		$(firstword $(MAKEFILE_LIST))
	@echo "Variables: RUN_ARGS (make run RUN_ARGS='--http-port 8080'), PYTEST_ARGS," \
		"PYTEST_WORKERS, PYTHON"

# uv installs the versions pip would choose, downloading, unpacking and compiling the
# bytecode in parallel: on 2 cores the whole step took 62 s, against 108 s with pip.
$(STAMP): pyproject.toml $(addsuffix /pyproject.toml,$(DISTRIBUTIONS))
	@test -n "$(PYTHON)" || { echo "make: Python 3.11 or newer is needed:" \
		"put python3 on PATH, or run make PYTHON=/path/to/python3.11" >&2; exit 1; }
	@rm -f $(STAMP)
	$(PYTHON) -m venv $(VENV) || { echo "make: could not create $(VENV)" \
		"(on Debian/Ubuntu: apt-get install python3-venv)" >&2; exit 1; }
	$(BIN)/python -m pip install --quiet --progress-bar off uv
	$(BIN)/python -m uv pip install --quiet --python $(BIN)/python --compile-bytecode \
		$(addprefix -e ,$(DISTRIBUTIONS)) -e '.[dev]'
	touch $(STAMP)

# Redis (embedded unless REDIS_URL is set), engine and gateway on loopback; Ctrl-C stops all.
run: $(STAMP) compiled  ## Redis, engine and gateway on this machine (RUN_ARGS: patience serve flags)
	$(BIN)/patience serve $(RUN_ARGS)

# The solver's hot modules compiled by mypyc (rules/patience/solver/native.py), again only
# when one of them changed; where that fails (no C compiler) the solver runs them as Python.
SOLVER := rules/patience/solver
COMPILED := $(SOLVER)/compiled/sources.json
compiled: $(COMPILED)  ## the solver's compiled speed path (mypyc and the C compiler)
$(COMPILED): $(STAMP) $(SOLVER)/native.py $(addprefix $(SOLVER)/,model.py safe_moves.py \
		pruning.py dead_ends.py policy.py search.py)
	-$(BIN)/python -c 'import sys; from patience.solver.native import build; sys.exit(build())'

# Everything CI checks: generated code up to date, lint, format, types, then the tests.
# The suite starts some hundreds of Python processes (servers, workers, commands), each
# of which would compile the project's modules again where PYTHONDONTWRITEBYTECODE is set
# (0.5 s of CPU for a gateway's): the tests keep Python's own bytecode cache.
test test-reference: export PYTHONDONTWRITEBYTECODE :=

# What the tests need is made two jobs at a time: the system packages install while uv
# fills .venv, and the solver compiles while mypy checks (each job's output is printed
# whole when it ends).
test:  ## what CI runs: check, the whole suite, then the services' tests without speed paths
	@$(MAKE) --no-print-directory -j2 $(OUTPUT_SYNC) test-ready
	@status=0; $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadgroup $(PYTEST_TIMES) \
		$(PYTEST_ARGS) \
		|| status=$$?; \
	if [ $$status -eq 5 ]; then echo "make: pytest collected no tests: the suite is missing" >&2; fi; \
	exit $$status
	@$(MAKE) --no-print-directory test-reference

# The engine's and the gateway's tests again with every speed path off (PATIENCE_SPEED_PATHS,
# docs/operations.md): the reference code they stand in for must pass the same tests. Those
# on a Redis Cluster (named `cluster`, and the primary's failover) are left out: a cluster
# has no script speed path, and the move route's is the same above either store, so they
# would run the same code as the first time.
test-reference: $(STAMP)  ## the engine and gateway tests with the speed paths off
	PATIENCE_SPEED_PATHS=off $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadgroup \
		-p no:cacheprovider $(PYTEST_TIMES) tests/engine tests/gateway \
		-k "not cluster and not failover" $(PYTEST_ARGS)

check: protos-check protos-lint lint typecheck imports  ## generated code, buf lint, ruff, mypy, import rules

test-ready: check compiled system-packages  ## what the tests need: check, the compiled solver, the system packages

# The packages the browser, observability and cluster tests run, one after another:
# apt-get holds a lock while it installs.
system-packages:  ## browser, prometheus and redis, one after another
	@$(MAKE) --no-print-directory browser
	@$(MAKE) --no-print-directory prometheus
	@$(MAKE) --no-print-directory redis

lint: $(STAMP)  ## ruff check and ruff format --check
# The browser tests (tests/web) drive Debian's Chromium through Playwright, which cannot
# download a browser of its own here. Installed when missing and this runs as root with
# apt-get (as CI does); elsewhere the tests say what is missing and are skipped (on CI,
# CI=true, they fail instead).
browser:  ## Chromium for the browser tests (apt-get, when root)
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "make: installing Chromium for the browser tests (apt-get install chromium)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	      chromium fonts-dejavu-core >/dev/null; \
	  else \
	    echo "make: no chromium on PATH: the browser tests will be skipped" \
	      "(install Debian's chromium package to run them)" >&2; \
	  fi; }

# The observability tests (tests/observability) run Debian's Prometheus and promtool: a real
# server scraping `patience serve`, and promtool checking the metrics, the alert rules and
# their unit tests. Installed when missing as the browser is; elsewhere those tests say
# what is missing and are skipped (on CI, CI=true, they fail instead).
prometheus:  ## Prometheus and promtool for the observability tests (apt-get, when root)
	@{ command -v prometheus && command -v promtool; } >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "make: installing Prometheus for the observability tests (apt-get install prometheus)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	      --no-install-recommends prometheus >/dev/null; \
	  else \
	    echo "make: no prometheus or promtool on PATH: the observability tests will be skipped" \
	      "(install Debian's prometheus package to run them)" >&2; \
	  fi; }

# The Redis Cluster tests need redis-server 7.0 or newer (sharded pub/sub); the wheel's
# embedded one is 6.2. Debian's is installed when no 7 is on PATH and this runs as root.
redis:  ## redis-server 7 for the Redis Cluster tests (apt-get, when root)
	@for server in $$(which -a redis-server 2>/dev/null); do \
	  $$server --version | grep -q ' v=[7-9]' && exit 0; \
	done; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "make: installing redis-server 7 for the Redis Cluster tests (apt-get install redis-server)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    --no-install-recommends redis-server >/dev/null; \
	else \
	  echo "make: no redis-server 7 on PATH: the Redis Cluster tests will fail" \
	    "(install one, or name it in REDIS_SERVER)" >&2; \
	fi

schemathesis: $(STAMP)  ## the contract test with more examples (SCHEMATHESIS_EXAMPLES, default 70)
	SCHEMATHESIS_EXAMPLES=$${SCHEMATHESIS_EXAMPLES:-70} $(BIN)/python -m pytest -p no:cacheprovider \
		-o addopts= -s tests/contract $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)  ## mypy
	$(BIN)/mypy rules services examples

# The import rules of pyproject.toml's [tool.importlinter]: no cycle anywhere, the
# distributions one way, the layers inside the rules library and the gateway.
imports: $(STAMP)  ## import-linter: no import cycle, layers one way
	$(BIN)/lint-imports --no-cache

protos: $(STAMP)  ## regenerate the code generated from proto/
	$(BIN)/python scripts/gen_protos.py

protos-check: $(STAMP)  ## check that the generated code matches proto/
	$(BIN)/python scripts/gen_protos.py --check

# npm ci: exactly the versions of package-lock.json (from npm's cache when it has them).
$(NODE_STAMP): package.json package-lock.json
	@rm -f $(NODE_STAMP)
	npm ci --prefer-offline --no-audit --no-fund --loglevel=error
	touch $(NODE_STAMP)

node: $(NODE_STAMP)  ## install the Node tools (buf, the examples' clients)

# buf lint (STANDARD) and buf breaking against the last release's protos. Without npm
# they are skipped with a word, except in CI (CI=true), where a missing tool fails.
ifeq ($(HAVE_NPM),)
protos-lint:  ## buf lint and buf breaking (needs node and npm)
	@if [ -n "$$CI" ]; then echo "make: node and npm are needed for buf lint (CI)" >&2; exit 1; fi
	@echo "make: skipping buf lint and buf breaking: install node (20+) and npm to run them"
else
protos-lint: $(NODE_STAMP)
	$(NODE_BIN)/buf lint
	$(NODE_BIN)/buf breaking --against $(PROTO_BASELINE)
endif

# Debian's Go toolchain and gRPC packages, for examples/go-grpc and its test (skipped,
# saying so, without them). As root with apt-get; .ci/run calls it.
GO_DEBS := golang-go protobuf-compiler protoc-gen-go protoc-gen-go-grpc golang-google-grpc-dev \
	golang-google-genproto-dev golang-google-protobuf-dev golang-github-golang-protobuf-1-5-dev
go-toolchain:  ## install the Go example's toolchain (Debian packages, as root)
	@if command -v go >/dev/null && command -v protoc-gen-go-grpc >/dev/null; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then \
		echo "make: the Go example needs (as root): apt-get install $(GO_DEBS)"; exit 0; fi; \
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends $(GO_DEBS) >/dev/null; } \
		|| echo "make: could not install the Go toolchain; the Go example's test will be skipped"

# Run when a release is cut: from then on `buf breaking` holds proto/ to it.
protos-baseline: $(NODE_STAMP)  ## record the protos that buf breaking holds proto/ to
	$(NODE_BIN)/buf build --exclude-source-info -o $(PROTO_BASELINE)

bench: $(STAMP)  ## the speed and load suite (bench/README.md)
	$(BIN)/python -m bench

# Mutation testing (mutmut) of the rules library, the solver and the supervisor, each part
# against its own tests, in build/mutation/ (docs/testing.md); not part of `make test`.
# FILES="path ..." or SINCE=<commit> tries only those files; PARTS="solver ..." some parts;
# NAMES="glob ..." only the mutants those globs name.
# mutmut has an environment of its own: it brings setproctitle, with which Granian and
# pytest-xdist rename their processes, which `make test` must not see.
MUTATION_VENV := build/mutation-venv
$(MUTATION_VENV)/.installed: pyproject.toml $(addsuffix /pyproject.toml,$(DISTRIBUTIONS))
	@rm -f $@
	$(PYTHON) -m venv $(MUTATION_VENV)
	$(MUTATION_VENV)/bin/python -m pip install --quiet --progress-bar off --upgrade pip
	$(MUTATION_VENV)/bin/python -m pip install --quiet --progress-bar off \
		$(addprefix -e ,$(DISTRIBUTIONS)) -e '.[dev]' 'mutmut>=3.3,<4'
	touch $@

mutation: $(MUTATION_VENV)/.installed  ## mutation testing (FILES=..., SINCE=<commit>, NAMES=<globs>, PARTS=rules|solver|hints|bodies|gateway|launcher)
	$(MUTATION_VENV)/bin/python scripts/mutation.py --parts "$(PARTS)" --files "$(FILES)" \
		--since "$(SINCE)" --names "$(NAMES)"

clean:  ## remove .venv, node_modules and the tools' caches (not the games in .patience/)
	rm -rf $(VENV) node_modules .pytest_cache .mypy_cache .ruff_cache .hypothesis \
		$(SOLVER)/compiled
