# ppm: two commands on a fresh machine with Python 3 and the package registries:
#   make reproduce [PROFILE=quick] [CLAIMS="C5 C9"] [ARGS="population.w_pub=0.3"] [N_JOBS=2]
#   make test
# `make help` lists every target and variable. The targets are thin calls of scripts/reproduce.py
# (`python -m scripts.reproduce -h`, the variables' table too): the sweeps chosen, the results root
# of ARGS, restores, audits, a claim's other inputs, figures and the verdict table live there.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PROFILE ?= default
N_JOBS ?= 2
OUTPUTS ?= outputs
LAUNCHER ?= joblib
TEST_WORKERS ?= 2
# A bad value stops make at once, in one line naming it (before any work, `make -n` too).
CHECK = $(if $(shell [[ '$(value $(1))' =~ ^($(2))$$ ]] && echo ok),,$(error $(1) must be $(3), got '$(value $(1))'))
$(call CHECK,PROFILE,default|quick,'default' or 'quick')
$(call CHECK,N_JOBS,[1-9][0-9]*,a positive integer (parallel jobs))
$(call CHECK,LAUNCHER,joblib|slurm,'joblib' or 'slurm')
$(call CHECK,TEST_WORKERS,[0-9]+,a non-negative integer (pytest workers; 0: one process))
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
PYTEST := $(PY) -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

# ARGS travels verbatim (quotes, =, commas, brackets) in PPM_ARGS; `make -n` makes it --dry-run.
ARGS_SH := $(subst ','\'',$(strip $(value ARGS)))
DRIVE = PPM_ARGS='$(ARGS_SH)' $(PY) -m scripts.reproduce $@ --profile $(PROFILE) --n-jobs $(N_JOBS) \
  --launcher $(LAUNCHER) --outputs $(OUTPUTS) $(if $(RESULTS),--results $(RESULTS)) \
  $(if $(filter command line environment,$(origin EXPERIMENTS)),--experiments $(EXPERIMENTS)) \
  $(if $(strip $(CLAIMS)),--claims $(CLAIMS)) $(if $(strip $(RECOMPUTE)),--recompute) \
  $(if $(strip $(VERBOSE)),--verbose) $(if $(N_BOOT),--n-boot $(N_BOOT)) \
  $(if $(AUDIT_INSTANCES),--audit-instances $(AUDIT_INSTANCES)) \
  $(if $(findstring n,$(firstword -$(MAKEFLAGS))),--dry-run)

# Each step, sweep, job, test: a process. BLAS on one thread (2 cores); .pyc kept (git-ignored).
unexport PYTHONDONTWRITEBYTECODE
export OMP_NUM_THREADS := 1
export OPENBLAS_NUM_THREADS := 1
export MKL_NUM_THREADS := 1

.PHONY: install help lint test test-fast test-slurm reproduce audit c4-inputs figures notebook \
  bench coverage clean-cache clean

install: $(STAMP) $(if $(strip $(GPU)),$(VENV)/.gpu-stamp) ## the venv from requirements.lock and this package (GPU=1: also [gpu])
$(VENV)/.gpu-stamp: $(STAMP)
	$(PY) -m pip install --quiet --disable-pip-version-check -e ".[gpu]" && touch $@
$(STAMP): requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -e . && touch $@

help: ## this list: every target and variable, one line each
	@$(PYTHON) -m scripts.reproduce help --makefile $(firstword $(MAKEFILE_LIST))
lint: $(STAMP) ## ruff check . (pyproject.toml [tool.ruff]); make test runs it first
	$(PY) -m ruff check --quiet .
test: $(STAMP) lint ## every test, on TEST_WORKERS workers (exit 1 when none is collected)
test-fast: $(STAMP) lint ## the tests not marked slow (tests/conftest.py SLOW)
test test-fast:
	@$(PYTEST) $(if $(filter test-fast,$@),-m "not slow"); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make $@: pytest collected no tests" >&2; exit 1; fi; exit $$rc
test-slurm: $(STAMP) ## tests/test_slurm.py against a one-node SLURM brought up here (root, Debian)
	@set -e; start=$$(date +%s); trap 'scripts/slurm_cluster.sh down' EXIT; \
	scripts/slurm_cluster.sh up; eval "$$(scripts/slurm_cluster.sh env)"; \
	PPM_TEST_SLURM=1 $(PY) -m pytest -q -p no:cacheprovider tests/test_slurm.py; \
	echo "make test-slurm: passed in $$(( $$(date +%s) - start )) s"

reproduce: $(STAMP) ## sweeps (resumed from the trial cache), audits, C4's inputs, figures, verdicts
audit: $(STAMP) ## the exact C6/C7 audits and every private learner's privacy audit into RESULTS
c4-inputs: $(STAMP) ## C4's tables that are not sweeps: ln|G| and the exact privacy price
figures: $(STAMP) ## figures and the verdict table from the CSVs in RESULTS (no sweep reruns)
notebook: $(STAMP) ## notebooks/inspect_results.py executed into RESULTS/notebook/inspect_results.html
bench: $(STAMP) ## the CPU benchmark (results/bench.csv), then the GPU one where numba.cuda sees a GPU
coverage: $(STAMP) ## the coverage study of the n_hat intervals into RESULTS/coverage.csv
clean-cache: PY = $(if $(wildcard $(VENV)/bin/python),$(VENV)/bin/python,$(PYTHON))
clean-cache: ## forget finished trials: RESULTS/cache and OUTPUTS
reproduce audit c4-inputs figures notebook bench coverage clean-cache:
	+@$(DRIVE)

clean: ## the venv, OUTPUTS and every uncommitted results root
	rm -rf $(VENV) $(OUTPUTS) results/cache results/quick results/overrides results/notebook
