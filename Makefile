# ppm: two commands on a fresh machine with Python 3 and the package registries:
#   make reproduce [PROFILE=quick] [CLAIMS="C5 C9"] [ARGS="population.w_pub=0.3"] [N_JOBS=2]
#   make test
# `make help` lists every target and variable. The pipeline's targets are thin calls of
# scripts/reproduce.py (`python -m scripts.reproduce -h`): the sweeps chosen, the results root of
# a run with ARGS, the restore of committed trials, the exact audits, the claims' inputs that are
# not sweeps, figures and the verdict table live there; under `make -n` it prints its commands.
SHELL := /bin/bash
## PYTHON=python3       the Python that creates the venv
PYTHON ?= python3
## VENV=.venv           the venv: requirements.lock, then this package (editable)
VENV ?= .venv
PY := $(VENV)/bin/python
## GPU=                 1: make install also installs the extra [gpu] (numba-cuda, CUDA 12; docs/gpu.md)
## PROFILE=default      default | quick: a smoke run (small grids, few trials) into results/quick/
PROFILE ?= default
## N_JOBS=2             parallel jobs (cells of a sweep; quick: sweeps at once; bench, coverage)
N_JOBS ?= 2
## ARGS=                Hydra overrides for every sweep (shell-split); own root results[/quick]/overrides/<slug>-<hash>
## EXPERIMENTS=         only these sweeps (base names or claim ids); default: every claim's (quick: no long ones)
## CLAIMS=              only these claims (ids or names): their sweeps, then only their figures
## RECOMPUTE=           1: compute every trial (no restore of the committed trials of long sweeps)
## RESULTS=             the results root (default results, results/quick, or the overrides root of ARGS)
## OUTPUTS=outputs      Hydra's sweep directories (make clean-cache removes them)
OUTPUTS ?= outputs
## LAUNCHER=joblib      joblib | slurm: every cell a task of a SLURM job array (knobs in ARGS)
LAUNCHER ?= joblib
## VERBOSE=             1: also Hydra's per-job listing and each sweep's closing hint
## N_BOOT=              bootstrap replicates of every slope interval in the figures (300; quick: 50)
## AUDIT_INSTANCES=     random instances of the exact C6/C7 audits (300; quick: 40)
## TEST_WORKERS=2       pytest-xdist workers of make test / test-fast (0: one process)
TEST_WORKERS ?= 2

ifneq ($(PROFILE),default)
ifneq ($(PROFILE),quick)
$(error PROFILE must be 'default' or 'quick', got '$(PROFILE)')
endif
endif
ifeq ($(shell [[ '$(N_JOBS)' =~ ^[1-9][0-9]*$$ ]] && echo ok),)
$(error N_JOBS must be a positive integer (parallel jobs), got '$(N_JOBS)')
endif
ifeq ($(shell [[ '$(TEST_WORKERS)' =~ ^[0-9]+$$ ]] && echo ok),)
$(error TEST_WORKERS must be a non-negative integer (pytest workers; 0: one process), got '$(TEST_WORKERS)')
endif
ifneq ($(LAUNCHER),joblib)
ifneq ($(LAUNCHER),slurm)
$(error LAUNCHER must be 'joblib' or 'slurm', got '$(LAUNCHER)')
endif
endif

# ARGS travels verbatim (quotes, =, commas, brackets) in PPM_ARGS; `make -n` makes it --dry-run.
ARGS_SH := $(subst ','\'',$(strip $(value ARGS)))
DRIVE = PPM_ARGS='$(ARGS_SH)' $(PY) -m scripts.reproduce $@ --profile $(PROFILE) --n-jobs $(N_JOBS) \
  --launcher $(LAUNCHER) --outputs $(OUTPUTS) $(if $(RESULTS),--results $(RESULTS)) \
  $(if $(filter command line environment,$(origin EXPERIMENTS)),--experiments $(EXPERIMENTS)) \
  $(if $(strip $(CLAIMS)),--claims $(CLAIMS)) $(if $(strip $(RECOMPUTE)),--recompute) \
  $(if $(strip $(VERBOSE)),--verbose) $(if $(N_BOOT),--n-boot $(N_BOOT)) \
  $(if $(AUDIT_INSTANCES),--audit-instances $(AUDIT_INSTANCES)) \
  $(if $(findstring n,$(firstword -$(MAKEFLAGS))),--dry-run)

# Jobs run in parallel processes: keep BLAS single-threaded in each (2-core machine).
export OMP_NUM_THREADS := 1
export OPENBLAS_NUM_THREADS := 1
export MKL_NUM_THREADS := 1

STAMP := $(VENV)/.installed-stamp
PYTEST := $(PY) -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --dist loadfile

.PHONY: install help test test-fast test-slurm reproduce audit c4-inputs figures notebook bench \
  coverage clean-cache clean

install: $(STAMP) $(if $(strip $(GPU)),$(VENV)/.gpu-stamp) ## the venv from requirements.lock and this package (GPU=1: also [gpu])

$(VENV)/.gpu-stamp: $(STAMP)
	$(PY) -m pip install --quiet --disable-pip-version-check -e ".[gpu]"
	touch $@

$(STAMP): requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $@

help: ## this list: every target and variable, one line each
	@awk 'BEGIN { print "targets (make <target> [VARIABLE=value ...]):" } \
	  /^[a-z][a-z0-9-]*:.*## / { name = $$1; sub(/:.*/, "", name); text = $$0; \
	    sub(/.*## /, "", text); printf "  %-12s %s\n", name, text } \
	  /^## [A-Z_]+=/ { vars[++n] = substr($$0, 4) } \
	  END { print "variables (default after =):"; for (i = 1; i <= n; i++) print "  " vars[i] }' \
	  $(firstword $(MAKEFILE_LIST))

test: $(STAMP) ## every test, on TEST_WORKERS workers (exit 1 when none is collected)
	@$(PYTEST); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make test: pytest collected no tests" >&2; exit 1; fi; exit $$rc

test-fast: $(STAMP) ## the tests not marked slow (tests/conftest.py SLOW)
	@$(PYTEST) -m "not slow"; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make test-fast: pytest collected no tests" >&2; exit 1; fi; exit $$rc

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
reproduce audit c4-inputs figures notebook bench coverage:
	+@$(DRIVE)
clean-cache: PY = $(if $(wildcard $(VENV)/bin/python),$(VENV)/bin/python,$(PYTHON))
clean-cache: ## forget finished trials: RESULTS/cache and OUTPUTS
	+@$(DRIVE)

clean: ## the venv, OUTPUTS and every uncommitted results root
	rm -rf $(VENV) $(OUTPUTS) results/cache results/quick results/overrides results/notebook
