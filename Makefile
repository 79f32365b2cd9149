# Two commands on a fresh machine:  make lab   (open the course)   make test   (run everything)
# Both create .venv and install what they need on first use.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD := 1

.PHONY: lab lab-instructor test execute bench student student-edition warmup check-env clean slides site rise-shim

# pyproject.toml also installs jupyter/rise-shim/dist (the JupyterLab extension that lets
# widgets run in RISE slideshows) into .venv/share/jupyter/labextensions
# Installs go through uv (itself from PyPI) when it can: it fetches and unpacks the ~180
# packages in parallel, ~25 s on a fresh 2-core machine where pip takes ~4 min (pip asks
# the index for one package after another). Any failure of uv falls back to pip, and
# INSTALLER=pip forces pip (uv reads no pip.conf: an index or mirror configured only
# there needs it). Both resolve the same versions from pyproject.toml, and both bring the
# venv's own pip up to date (.ci/check_env_pins.py runs `pip install --dry-run --platform
# ...`, which the pip that ships with Python 3.11 refuses).
# uv writes no bytecode unless asked (pip does): --compile-bytecode, or every kernel and
# test process compiles its imports from source (a chapter's kernel started in 3-9 s
# instead of 0.8-1.9 s here; more where PYTHONDONTWRITEBYTECODE is set, as on this CI).
INSTALLER ?= uv
install = if [ "$(INSTALLER)" = uv ] && $(PY) -m pip install -q uv \
	          && $(PY) -m uv pip install -q --compile-bytecode --python $(PY) --upgrade-package pip pip $(1); then :; \
	      else $(PY) -m pip install -q --upgrade pip && $(PY) -m pip install -q $(1); fi

$(VENV)/.runtime: pyproject.toml setup.py jupyter/rise-shim/dist/package.json jupyter/labconfig/page_config.json \
		jupyter/server_config/kmlteach.json
	@echo "install: creating $(VENV) with the course package and JupyterLab (once; ~1 minute with uv, a few with pip) ..."
	@t0=$$(date +%s); test -x $(PY) || $(PYTHON) -m venv $(VENV); \
	$(call install,-e .) && touch $@ && echo "install: done in $$(( $$(date +%s) - t0 )) s"

# the site extra too: tests/test_site.py builds the course site (jupyter-book 1.x) in CI;
# the hub extra and the hub's proxy (npm) for tests/test_hub.py and benchmarks/bench_hub.py
TEST_PACKAGES := -e ".[test,site,hub]"
CHP := deploy/hub/node_modules/.bin/configurable-http-proxy
$(VENV)/.test: $(VENV)/.runtime pyproject.toml | $(CHP)
	$(call install,$(TEST_PACKAGES))
	touch $@

$(CHP): deploy/hub/package.json deploy/hub/package-lock.json
	if command -v npm >/dev/null; then cd deploy/hub && npm ci --no-audit --no-fund --loglevel=error && touch node_modules/.bin/configurable-http-proxy; \
	else echo "npm not found (apt-get install nodejs npm): tests/test_hub.py will be skipped"; fi

# JupyterLab refuses to run as root unless told to (containers, CI machines)
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)

# The student notebooks (solutions stubbed, outputs cleared), released again whenever an
# instructor notebook, book.toml or the release code changed; a notebook the student
# edited is kept (python -m kmlteach release says so).
student/.released: $(VENV)/.runtime $(wildcard notebooks/*.ipynb) book.toml kmlteach/course/release.py
	@echo "student notebooks: releasing them into student/ (solutions stubbed) ..."
	@$(PY) -m kmlteach release --out student
	@touch $@

# make lab prints one line as each step starts and one when it is done (install, the
# student notebooks, the warm-up with its count of kernels, the server), and the address it
# prints opens 00-welcome. LAB_ARGS passes options to JupyterLab (LAB_ARGS=--no-browser).
LAB_ARGS ?=
WARM_UP = @echo "warm-up: loading the course's compiled kernels (the first time they are compiled: 1-3 minutes) ..."; \
	$(PY) -m compileall -q kmlteach && $(PY) -c "import os, time, kmlteach; t = time.perf_counter(); \
	n = len(kmlteach.warmup(verbose=False, jobs=os.cpu_count() or 1)); \
	print(f'warm-up: {n} kernels ready in {time.perf_counter() - t:.0f} s')"
serve = @echo "server: starting JupyterLab on $(1); open the http://127.0.0.1 address below if no browser opens (Ctrl-C twice stops it)"; \
	$(VENV)/bin/jupyter lab $(ALLOW_ROOT) --ServerApp.root_dir=. --LabApp.default_url=/lab/tree/$(1) \
	--ServerApp.log_level=WARN $(LAB_ARGS)

lab: student/.released
	$(WARM_UP)
	$(call serve,student/00-welcome.ipynb)

lab-instructor: $(VENV)/.runtime
	$(WARM_UP)
	$(call serve,notebooks/00-welcome.ipynb)

# Test files run in parallel on every core (pytest-xdist); --dist loadfile keeps each file
# on one worker, so a notebook's cells share their nbval kernel and a module's fixtures
# (JupyterLab server, site build) are built once; tests/conftest.py starts the longest
# files first (tests/durations.json).
# One worker more than cores: a browser, hub or site test waits on its subprocesses for half
# of its time (test_hub.py: 27 s of CPU in 57 s), which a third worker fills on 2 cores.
# TEST_JOBS=1 runs them one after another; PYTEST_ARGS=--store-durations refreshes the json.
# tests/test_lint.py runs ruff check and ruff format --check (pyproject.toml [tool.ruff]).
TEST_JOBS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
PYTEST_ARGS ?=
# compileall: the package's own bytecode, written once (where PYTHONDONTWRITEBYTECODE is set,
# as on CI, every kernel, grading kernel and test process compiled kmlteach from source).
# The tests run with Python's default, bytecode written (into __pycache__, ignored by git):
# with PYTHONDONTWRITEBYTECODE=1 inherited, every test worker, nbval and browser kernel, hub
# server and tool recompiled the test modules and each temporary edition's package from
# source, ~40 s of CPU per run (2 cores, 2026-12-06). The grading kernels set it themselves.
# The warm-up needs the runtime only: it compiles the kernels while the test extras install
# (on a fresh clone ~15 s of that install overlapped, about 7 s less in all on 2 cores). The
# install adds packages and reinstalls only kmlteach's editable link, which the warm-up's
# processes, all started at once, have already followed.
test: $(VENV)/.runtime | $(CHP)
	@command -v bwrap >/dev/null || echo "bubblewrap not found (apt-get install bubblewrap; .ci/run does): the grader's sandbox needs it, and as root the grading tests fail, each naming it"
	@test -x /usr/bin/chromium || echo "chromium not found (apt-get install chromium; .ci/run does): the browser tests will be skipped"
	$(PY) -m compileall -q kmlteach
	@$(PY) -m kmlteach warmup --quiet --jobs 0 & warm=$$!; \
	$(MAKE) --no-print-directory $(VENV)/.test; status=$$?; \
	wait $$warm || { echo "make test: the warm-up failed"; exit 1; }; exit $$status
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -q -n $(TEST_JOBS) --dist loadfile --no-loadscope-reorder $(PYTEST_ARGS)

execute: $(VENV)/.test
	$(PY) -m kmlteach execute $(NB)

bench: $(VENV)/.test
	$(PY) -m kmlteach warmup --quiet --aot
	$(PY) benchmarks/run.py
	$(PY) benchmarks/bench_hub.py

# A class of 10, 20 and 40 simulated students on the course's hub (part of make bench)
.PHONY: bench-hub
bench-hub: $(VENV)/.test
	$(PY) benchmarks/bench_hub.py $(if $(N),--n $(N),)

student: $(VENV)/.runtime
	$(PY) -m kmlteach release --out student
	touch student/.released

# The student edition: a self-contained repository without the answer key, to push to
# book.toml's student_repository (`python -m kmlteach reveal CHAPTER --edition DIR` adds
# a chapter's solutions after its due date). EDITION is outside this repository.
EDITION ?= ../kmlteach-student
student-edition: $(VENV)/.runtime
	$(PY) -m kmlteach publish-student --out $(EDITION)

# One reveal.js deck per ready chapter in build/slides/ (offline: reveal.js and MathJax
# are vendored in kmlteach/course/vendor and copied next to the decks)
slides: $(VENV)/.test
	$(PY) -m kmlteach slides --out build/slides

# The static course site in build/site/ (jupyter-book 1.x, offline), decks included
site: $(VENV)/.test
	$(PY) -m kmlteach site --out build/site

# Rebuild the prebuilt RISE shim after editing its sources (needs Node.js and npm; the
# result in jupyter/rise-shim/dist is committed, so installing the course needs neither)
rise-shim:
	cd jupyter/rise-shim && npm ci && npm run build

warmup: $(VENV)/.runtime
	$(PY) -m kmlteach warmup --jobs 0

check-env: $(VENV)/.runtime
	$(PY) -m kmlteach check-env

clean:
	rm -rf $(VENV) student build .pytest_cache
	find . -name __pycache__ -prune -exec rm -rf {} +
