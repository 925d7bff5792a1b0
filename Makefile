# ppm: two commands on a fresh machine with Python 3 and the package registries.
#   make reproduce [PROFILE=quick] [ARGS="population.w_pub=0.3 learner.epsilon=0.5"] [N_JOBS=2]
#   make test
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PROFILE ?= default
ARGS ?=
N_JOBS ?= 2
OUTPUTS ?= outputs

ifeq ($(PROFILE),quick)
RESULTS ?= results/quick
SUFFIX := _quick
else ifeq ($(PROFILE),default)
RESULTS ?= results
SUFFIX :=
else
$(error PROFILE must be 'default' or 'quick', got '$(PROFILE)')
endif

# Sweeps that make the figures (configs/experiment/<name>.yaml; <name>_quick for PROFILE=quick):
# every experiment a registered claim reads (claims/registry.py). Expanded when a recipe runs,
# i.e. after the venv is installed.
EXPERIMENTS ?= $(shell $(PY) -m claims.registry --experiments)
# Exact audits of C6 (privacy) and C7 (Helly): random instances per claim.
AUDIT_INSTANCES := $(if $(filter quick,$(PROFILE)),40,300)
# Default: the joblib launcher runs N_JOBS cells at once. Quick cells are tiny, so there the
# cells run one after another and N_JOBS workers share the trials of each cell (one worker pool
# per sweep instead of one per cell batch: less start-up time).
PARALLEL := $(if $(filter quick,$(PROFILE)),hydra.launcher.n_jobs=1 n_jobs=$(N_JOBS),hydra.launcher.n_jobs=$(N_JOBS))
# Bootstrap replicates of every slope interval in the figures.
N_BOOT := $(if $(filter quick,$(PROFILE)),100,300)

# Jobs run in parallel processes: keep BLAS single-threaded in each (2-core machine).
export OMP_NUM_THREADS := 1
export OPENBLAS_NUM_THREADS := 1
export MKL_NUM_THREADS := 1

STAMP := $(VENV)/.installed-stamp

.PHONY: install test reproduce audit figures bench clean-cache clean

install: $(STAMP)

$(STAMP): requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $@

test: $(STAMP)
	@$(PY) -m pytest -q -p no:cacheprovider; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make test: pytest collected no tests" >&2; exit 1; fi; exit $$rc

# Runs every sweep (resuming finished trials from $(RESULTS)/cache), aggregates, draws figures.
reproduce: $(STAMP)
	@set -e; for exp in $(EXPERIMENTS); do \
	  rm -rf $(OUTPUTS)/$$exp; \
	  echo "== sweep $${exp}$(SUFFIX)"; \
	  $(PY) -m experiments.run --multirun experiment=$${exp}$(SUFFIX) results_root=$(RESULTS) \
	    hydra.sweep.dir=$(OUTPUTS)/$$exp $(PARALLEL) $(ARGS); \
	done; \
	$(PY) -m scripts.aggregate $(addprefix $(OUTPUTS)/,$(EXPERIMENTS)) --out-root $(RESULTS)
	$(MAKE) --no-print-directory audit figures RESULTS=$(RESULTS) PROFILE=$(PROFILE)

audit: $(STAMP)
	$(PY) -m scripts.exact_audits --results $(RESULTS) --instances $(AUDIT_INSTANCES)

# Figures and the verdict table from the aggregated CSVs (no experiment is rerun).
figures: $(STAMP)
	$(PY) -m scripts.figures --results $(RESULTS) --n-boot $(N_BOOT)
	$(PY) -m scripts.summary --results $(RESULTS)

bench: $(STAMP)
	$(PY) -m scripts.bench --threads $(N_JOBS)

clean-cache:
	rm -rf $(RESULTS)/cache $(OUTPUTS)

clean:
	rm -rf $(VENV) $(OUTPUTS) results/cache results/quick
