# ppm: two commands on a fresh machine with Python 3 and the package registries.
#   make reproduce [PROFILE=quick] [ARGS="population.w_pub=0.3 learner.epsilon=0.5"] [N_JOBS=2]
#                  [LAUNCHER=joblib|slurm] [RECOMPUTE=1]
#   make test
#   make install GPU=1   # also the optional GPU backend (numba-cuda, CUDA 12 wheels; docs/gpu.md)
#   make test-slurm      # a one-node SLURM on this machine (root, Debian): the cluster path, tested
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PROFILE ?= default
ARGS ?=
N_JOBS ?= 2
LAUNCHER ?= joblib
OUTPUTS ?= outputs
# GPU=1: `make install` also installs the optional extra [gpu] (numba-cuda with the CUDA 12
# wheels) into the venv; without it the install is the CPU one, exactly as pinned.
GPU ?=

ifeq ($(PROFILE),quick)
BASE_RESULTS := results/quick
SUFFIX := _quick
else ifeq ($(PROFILE),default)
BASE_RESULTS := results
SUFFIX :=
else
$(error PROFILE must be 'default' or 'quick', got '$(PROFILE)')
endif
ifeq ($(shell [[ '$(N_JOBS)' =~ ^[1-9][0-9]*$$ ]] && echo ok),)
$(error N_JOBS must be a positive integer (parallel jobs), got '$(N_JOBS)')
endif
# Overrides never touch the committed results: a run with ARGS gets its own results root named
# after the overrides (results[/quick]/overrides/<ARGS with unsafe characters as _>), printed at
# the end. RESULTS=... on the command line still chooses any root.
ifeq ($(strip $(ARGS)),)
RESULTS ?= $(BASE_RESULTS)
else
ARGS_SLUG := $(shell printf '%s' '$(strip $(ARGS))' | tr -s ' ' '+' | tr -c 'A-Za-z0-9._=,+-' '_' | cut -c1-120)
RESULTS ?= $(BASE_RESULTS)/overrides/$(ARGS_SLUG)
endif

# Sweeps that make the figures (configs/experiment/<name>.yaml; <name>_quick for PROFILE=quick):
# every experiment a registered claim reads (claims/registry.py); the quick profile leaves out
# the long ones (Claim.long). Expanded when a recipe runs, i.e. after the venv is installed.
EXPERIMENTS ?= $(shell $(PY) -m claims.registry --experiments $(if $(filter quick,$(PROFILE)),--skip-long))
# Long and committed experiments (Claim.long, Claim.committed) commit their trials
# (results/<exp>/trials.csv): before the sweeps run, those
# trials are restored into the trial cache, so only missing trials are computed. RECOMPUTE=1
# skips the restore (and forgets trials restored earlier): every trial is computed here.
RECOMPUTE ?=
RESTORED_EXPERIMENTS = $(filter $(shell $(PY) -m claims.registry --restored),$(EXPERIMENTS))
ifeq ($(PROFILE),quick)
RESTORE :=
else ifneq ($(strip $(RECOMPUTE)),)
RESTORE := $(PY) -m scripts.restore_cache --forget --cache $(RESULTS)/cache
else
RESTORE = $(if $(RESTORED_EXPERIMENTS),$(PY) -m scripts.restore_cache --from results --cache $(RESULTS)/cache $(RESTORED_EXPERIMENTS))
endif
# Exact audits of C6 (privacy) and C7 (Helly): random instances per claim.
AUDIT_INSTANCES := $(if $(filter quick,$(PROFILE)),40,300)
# Default: the joblib launcher runs N_JOBS cells at once. Quick cells are tiny, so there every
# cell and trial runs in the sweep's own process: starting a worker pool (each worker imports
# numpy, scipy, sklearn, numba: ~3 s) cost more than the parallel trials saved (measured: 10.7 s
# -> 7.0 s for c1_realizable_d1_quick).
# LAUNCHER=slurm: every cell is a task of a SLURM job array (configs/hydra/launcher/slurm.yaml;
# set its knobs in ARGS, e.g. ARGS="hydra.launcher.partition=short"); N_JOBS is then unused.
ifeq ($(LAUNCHER),joblib)
PARALLEL := $(if $(filter quick,$(PROFILE)),hydra.launcher.n_jobs=1 n_jobs=1,hydra.launcher.n_jobs=$(N_JOBS))
else ifeq ($(LAUNCHER),slurm)
PARALLEL := hydra/launcher=slurm
else
$(error LAUNCHER must be 'joblib' or 'slurm', got '$(LAUNCHER)')
endif
# Sweeps run one after another (each runs N_JOBS cells at once), except in the quick profile:
# there every sweep runs in one process and is mostly start-up and Hydra composition, so N_JOBS
# sweeps run at once. The first failing sweep stops the rest (xargs: exit 255).
SWEEPS_AT_ONCE := $(if $(filter quick,$(PROFILE)),$(N_JOBS),1)
# C4's two inputs that are not sweeps (claims/c4_mechanism.py): ln|G| from ConstrHalf's |C_pub|
# (scripts/log_class_size.py) and the exact price of the exponential mechanism
# (scripts/mechanism_price.py). Made whenever a C4 sweep is in EXPERIMENTS; smaller in the quick
# profile.
C4_INPUTS = $(if $(filter c4_%,$(EXPERIMENTS)),yes)
LOG_CLASS_SIZE_ARGS = $(if $(filter quick,$(PROFILE)),--max-subsets 2e4)
MECHANISM_PRICE_ARGS = $(if $(filter quick,$(PROFILE)),--trials 3 --dims 1 2)
# Bootstrap replicates of every slope interval in the figures.
N_BOOT := $(if $(filter quick,$(PROFILE)),50,300)

# Jobs run in parallel processes: keep BLAS single-threaded in each (2-core machine).
export OMP_NUM_THREADS := 1
export OPENBLAS_NUM_THREADS := 1
export MKL_NUM_THREADS := 1

STAMP := $(VENV)/.installed-stamp

.PHONY: install test test-slurm reproduce audit c4-inputs figures bench clean-cache clean

install: $(STAMP) $(if $(strip $(GPU)),$(VENV)/.gpu-stamp)

# The GPU extra on top of the CPU install (pip keeps every pinned package that satisfies it).
$(VENV)/.gpu-stamp: $(STAMP)
	$(PY) -m pip install --quiet --disable-pip-version-check -e ".[gpu]"
	touch $@

$(STAMP): requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $@

test: $(STAMP)
	@$(PY) -m pytest -q -p no:cacheprovider; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make test: pytest collected no tests" >&2; exit 1; fi; exit $$rc

# Brings up a one-node SLURM (scripts/slurm_cluster.sh), runs tests/test_slurm.py against it (a
# sweep through the SLURM launcher vs the same sweep run locally, and a preempted sweep resumed),
# and takes the cluster down again, also when a test fails.
test-slurm: $(STAMP)
	@set -e; start=$$(date +%s); trap 'scripts/slurm_cluster.sh down' EXIT; \
	scripts/slurm_cluster.sh up; eval "$$(scripts/slurm_cluster.sh env)"; \
	PPM_TEST_SLURM=1 $(PY) -m pytest -q -p no:cacheprovider tests/test_slurm.py; \
	echo "make test-slurm: passed in $$(( $$(date +%s) - start )) s"

# Runs every sweep (resuming finished trials from $(RESULTS)/cache), aggregates, draws figures.
reproduce: $(STAMP)
	@set -e; $(if $(strip $(RESTORE)),$(RESTORE);) \
	export SWEEP_ARGS='$(PARALLEL) $(ARGS)'; \
	printf '%s\n' $(EXPERIMENTS) | xargs -P $(SWEEPS_AT_ONCE) -I '{}' $(SHELL) -c \
	  'rm -rf $(OUTPUTS)/{}; echo "== sweep {}$(SUFFIX)"; \
	   eval "$(PY) -m experiments.run --multirun experiment={}$(SUFFIX) results_root=$(RESULTS) \
	     hydra.sweep.dir=$(OUTPUTS)/{} $$SWEEP_ARGS" || exit 255'; \
	$(PY) -m scripts.aggregate $(addprefix $(OUTPUTS)/,$(EXPERIMENTS)) --out-root $(RESULTS)
	$(MAKE) --no-print-directory audit c4-inputs figures RESULTS=$(RESULTS) PROFILE=$(PROFILE) \
	  EXPERIMENTS='$(EXPERIMENTS)'
	@echo "== done: CSVs in $(RESULTS)/<experiment>/ (trials.csv, n_hat.csv, summary.csv), figures in $(RESULTS)/figures/, trial cache in $(RESULTS)/cache/"

audit: $(STAMP)
	$(PY) -m scripts.exact_audits --results $(RESULTS) --instances $(AUDIT_INSTANCES)

c4-inputs: $(STAMP)
	$(if $(C4_INPUTS),$(PY) -m scripts.log_class_size --out $(RESULTS)/c4_dimension/log_class_size.csv $(LOG_CLASS_SIZE_ARGS))
	$(if $(C4_INPUTS),$(PY) -m scripts.mechanism_price --out $(RESULTS)/c4_dimension/mechanism_price.csv $(MECHANISM_PRICE_ARGS))

# Figures and the verdict table from the aggregated CSVs (no experiment is rerun).
figures: $(STAMP)
	$(PY) -m scripts.figures --results $(RESULTS) --n-boot $(N_BOOT)
	$(PY) -m scripts.summary --results $(RESULTS)

# The CPU benchmark; then, on a machine with a GPU visible to numba.cuda, the GPU one
# (scripts/bench_gpu.py: per level and word count, fraction of the popcount ceiling, ratio to CPU).
bench: $(STAMP)
	$(PY) -m scripts.bench --threads $(N_JOBS)
	@if $(PY) -c "from ppm.core.cuda_scorer import gpu_available as g; raise SystemExit(not g())"; \
	then $(PY) -m scripts.bench_gpu --threads $(N_JOBS); \
	else echo "make bench: no GPU visible to numba.cuda, scripts.bench_gpu skipped"; fi

clean-cache:
	rm -rf $(RESULTS)/cache $(OUTPUTS)

clean:
	rm -rf $(VENV) $(OUTPUTS) results/cache results/quick
