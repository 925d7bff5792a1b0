# ppm: two commands on a fresh machine with Python 3 and the package registries.
#   make reproduce [PROFILE=quick] [ARGS="population.w_pub=0.3 learner.epsilon=0.5"] [N_JOBS=2]
#                  [EXPERIMENTS="c5_mixture_weight ..."] [CLAIMS="C5 C9"] [LAUNCHER=joblib|slurm]
#                  [RECOMPUTE=1]
#   make test
#   make install GPU=1   # also the optional GPU backend (numba-cuda, CUDA 12 wheels; docs/gpu.md)
#   make notebook        # notebooks/inspect_results.py executed into $(RESULTS)/notebook/*.html
#   make test-slurm      # a one-node SLURM on this machine (root, Debian): the cluster path, tested
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PROFILE ?= default
ARGS ?=
N_JOBS ?= 2
# pytest workers for make test / test-fast (pytest-xdist; 0 runs the tests in one process).
# Most slow tests wait on a subprocess's Python and Hydra start-up, so two workers on two cores
# roughly halve the suite; each test file runs whole in one worker (its fixtures built once).
TEST_WORKERS ?= 2
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
ifeq ($(shell [[ '$(TEST_WORKERS)' =~ ^[0-9]+$$ ]] && echo ok),)
$(error TEST_WORKERS must be a non-negative integer (pytest workers; 0: one process), got '$(TEST_WORKERS)')
endif
# ARGS: Hydra overrides as typed after `python -m experiments.run -m`, split like a shell command
# line (quote a value holding spaces); a value may hold =, commas (a sweep over its values), /,
# brackets and quotes. Overrides never touch the committed results: a run with ARGS gets its own
# results root results[/quick]/overrides/<slug>-<hash>, printed at the end: <slug> is ARGS with
# every character outside [A-Za-z0-9_.-] as _ (at most 40 characters), <hash> the first 8 hex
# digits of the SHA-256 of ARGS, so the root is itself a valid Hydra override value and two
# different ARGS never share a root. RESULTS=... on the command line still chooses any root.
ARGS_SH := $(subst ','\'',$(strip $(value ARGS)))
ifeq ($(ARGS_SH),)
RESULTS ?= $(BASE_RESULTS)
else
ARGS_SLUG := $(shell printf '%s' '$(ARGS_SH)' | LC_ALL=C tr -c 'A-Za-z0-9_.-' '_' | tr -s '_' \
	| cut -c1-40 | sed 's/^[_.-]*//; s/[_.-]*$$//')
ARGS_HASH := $(shell printf '%s' '$(ARGS_SH)' | sha256sum | cut -c1-8)
RESULTS ?= $(BASE_RESULTS)/overrides/$(or $(ARGS_SLUG),args)-$(ARGS_HASH)
endif

# Sweeps that make the figures (configs/experiment/<name>.yaml; <name>_quick for PROFILE=quick):
# every experiment a registered claim reads (claims/registry.py); the quick profile leaves out
# the long ones (Claim.long). Expanded when a recipe runs, i.e. after the venv is installed.
# EXPERIMENTS="a b" on the command line runs only those (base names); the figures step then draws
# what the results root holds and names each claim left out ("C3: not run in this results root").
# CLAIMS="C5 C9" (claim ids or names) runs the experiments of those claims (the quick profile
# without their long ones) and draws only their figures; EXPERIMENTS also takes claim ids.
CLAIMS ?=
USER_EXPERIMENTS := $(filter command line environment,$(origin EXPERIMENTS))$(strip $(CLAIMS))
EXPERIMENTS ?= $(shell $(PY) -m claims.registry --experiments $(if $(filter quick,$(PROFILE)),--skip-long) $(if $(strip $(CLAIMS)),--claims $(CLAIMS)))
CLAIMS_CHECK := $(if $(strip $(CLAIMS)),$(PY) -m claims.registry --check $(CLAIMS);)
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
# Exact audits of C6 (privacy) and C7 (Helly): random instances per claim. They read no sweep, so
# ARGS and EXPERIMENTS change nothing in them: a reproduce with either leaves them out (make audit
# RESULTS=<root> runs them into any root).
AUDIT_INSTANCES := $(if $(filter quick,$(PROFILE)),40,300)
PARTIAL := $(if $(or $(ARGS_SH),$(USER_EXPERIMENTS)),1)
# A root made with overrides (or a chosen EXPERIMENTS list) may leave a claim without the values it
# compares (ARGS="learner.epsilon=0.5" leaves C3 one epsilon): the figures step reports it in one
# line, draws the rest and succeeds there (--keep-going); on a full root a claim that cannot be
# analysed fails the step.
FIGURES_FLAGS := $(if $(or $(PARTIAL),$(findstring /overrides/,$(RESULTS))),--keep-going)
AUDIT_CMD = $(PY) -m scripts.exact_audits --results $(RESULTS) --instances $(AUDIT_INSTANCES)
FIGURES_CMD = $(PY) -m scripts.figures --results $(RESULTS) --n-boot $(N_BOOT) $(FIGURES_FLAGS) \
  $(if $(strip $(CLAIMS)),--only $(CLAIMS))
SUMMARY_CMD = $(PY) -m scripts.summary --results $(RESULTS)
ifeq ($(PARTIAL),)
AUDIT_STEP = $(AUDIT_CMD)
else
AUDIT_STEP = echo "== exact audits (C6, C7) left out: they read no sweep, so ARGS and EXPERIMENTS do not change them (make audit RESULTS=$(RESULTS) runs them here)"
endif
ifeq ($(PROFILE),quick)
QUICK_NOTE = echo "== quick profile: a smoke run of the whole pipeline, not a verdict on any claim (make reproduce without PROFILE=quick measures them)"
else
QUICK_NOTE = true
endif
# The quick profile's root holds a PROFILE file: its verdicts and figures say "smoke run".
PROFILE_MARK := $(if $(filter quick,$(PROFILE)),printf 'quick\n' > $(RESULTS)/PROFILE,rm -f $(RESULTS)/PROFILE)
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
# sweeps run at once. scripts/run_sweeps.py runs them: it first checks ARGS against every
# selected sweep (a sweep that cannot take an override is left out with one line saying why; an
# override no sweep can take stops the run in one line before any trial), relays their output
# (Hydra's per-job listing only with VERBOSE=1), stops the rest when one fails (the error is the
# last line, exit 2), and on Ctrl-C says how many trials every sweep of the run kept (exit 130).
SWEEPS_AT_ONCE := $(if $(filter quick,$(PROFILE)),$(N_JOBS),1)
VERBOSE ?=
SWEEPS_CMD = PPM_ARGS='$(ARGS_SH)' $(PY) -m scripts.run_sweeps --results $(RESULTS) \
  --suffix '$(SUFFIX)' --outputs $(OUTPUTS) --at-once $(SWEEPS_AT_ONCE) --launch '$(PARALLEL)' \
  $(if $(strip $(VERBOSE)),--verbose) $(EXPERIMENTS)
# C4's two inputs that are not sweeps (claims/c4_mechanism.py): ln|G| from ConstrHalf's |C_pub|
# (scripts/log_class_size.py) and the exact privacy price of the exponential mechanism at d = 1..3
# (scripts/mechanism_price.py, design configs/c4_price.yaml; d = 4 is a GPU batch, its rows
# committed). Made whenever a C4 sweep is in EXPERIMENTS; smaller in the quick profile.
C4_INPUTS = $(if $(filter c4_%,$(EXPERIMENTS)),yes)
LOG_CLASS_SIZE_ARGS = $(if $(filter quick,$(PROFILE)),--max-subsets 2e4)
MECHANISM_PRICE_ARGS = $(if $(filter quick,$(PROFILE)),--samples 3 --dims 1 2)
C4_STEP = $(if $(C4_INPUTS),$(PY) -m scripts.log_class_size --out $(RESULTS)/c4_dimension/log_class_size.csv \
  $(LOG_CLASS_SIZE_ARGS) --overwrite-committed && $(PY) -m scripts.mechanism_price \
  --out $(RESULTS)/c4_dimension/privacy_price.csv $(MECHANISM_PRICE_ARGS) --overwrite-committed,true)
# Bootstrap replicates of every slope interval in the figures.
N_BOOT := $(if $(filter quick,$(PROFILE)),50,300)

# Jobs run in parallel processes: keep BLAS single-threaded in each (2-core machine).
export OMP_NUM_THREADS := 1
export OPENBLAS_NUM_THREADS := 1
export MKL_NUM_THREADS := 1

STAMP := $(VENV)/.installed-stamp

.PHONY: install test test-fast test-slurm reproduce audit c4-inputs figures notebook bench clean-cache clean coverage

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

PYTEST := $(PY) -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --dist loadfile

test: $(STAMP)
	@$(PYTEST); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make test: pytest collected no tests" >&2; exit 1; fi; exit $$rc

# The fast tier: every test but those marked slow (tests/conftest.py SLOW: end-to-end runs,
# the CUDA simulator, many-draw frequency tests); docs/developing.md gives both durations.
test-fast: $(STAMP)
	@$(PYTEST) -m "not slow"; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make test-fast: pytest collected no tests" >&2; exit 1; fi; exit $$rc

# Brings up a one-node SLURM (scripts/slurm_cluster.sh), runs tests/test_slurm.py against it (a
# sweep through the SLURM launcher vs the same sweep run locally, and a preempted sweep resumed),
# and takes the cluster down again, also when a test fails.
test-slurm: $(STAMP)
	@set -e; start=$$(date +%s); trap 'scripts/slurm_cluster.sh down' EXIT; \
	scripts/slurm_cluster.sh up; eval "$$(scripts/slurm_cluster.sh env)"; \
	PPM_TEST_SLURM=1 $(PY) -m pytest -q -p no:cacheprovider tests/test_slurm.py; \
	echo "make test-slurm: passed in $$(( $$(date +%s) - start )) s"

# Runs every sweep (resuming finished trials from $(RESULTS)/cache), aggregates, draws figures.
# The aggregate step writes into $(RESULTS); into the committed results/ only with its explicit
# --overwrite-committed, which this recipe passes (regenerating them is what it is for).
reproduce: $(STAMP)
	@set -e; $(CLAIMS_CHECK) $(if $(strip $(RESTORE)),$(RESTORE);) \
	$(SWEEPS_CMD); \
	$(PROFILE_MARK)
	@$(AUDIT_STEP)
	@$(C4_STEP)
	@$(FIGURES_CMD)
	@$(SUMMARY_CMD)
	@echo "== done: results root $(RESULTS): CSVs in $(RESULTS)/<experiment>/ (trials.csv, n_hat.csv, summary.csv), figures in $(RESULTS)/figures/, verdicts in $(RESULTS)/summary.md, trial cache in $(RESULTS)/cache/"
	@$(QUICK_NOTE)

audit: $(STAMP)
	$(AUDIT_CMD)

c4-inputs: $(STAMP)
	@$(C4_STEP)

# Figures and the verdict table from the aggregated CSVs (no experiment is rerun).
figures: $(STAMP)
	$(FIGURES_CMD)
	$(SUMMARY_CMD)

# notebooks/inspect_results.py (jupytext) executed on the results in $(RESULTS) into one
# self-contained HTML page with its figures inline: $(RESULTS)/notebook/inspect_results.html.
notebook: $(STAMP)
	$(PY) -m scripts.notebook --results $(RESULTS) --out $(RESULTS)/notebook

# The CPU benchmark; then, on a machine with a GPU visible to numba.cuda, the GPU one
# (scripts/bench_gpu.py: per level and word count, fraction of the popcount ceiling, ratio to CPU).
bench: $(STAMP)
	$(PY) -m scripts.bench --threads $(N_JOBS) --overwrite-committed
	@if $(PY) -c "from ppm.core.cuda_scorer import gpu_available as g; raise SystemExit(not g())"; \
	then $(PY) -m scripts.bench_gpu --threads $(N_JOBS); \
	else echo "make bench: no GPU visible to numba.cuda, scripts.bench_gpu skipped"; fi

# The coverage study of the n_hat intervals (scripts/coverage.py, docs/model.md): each rate
# claim's design simulated from known success curves, both readings, into $(RESULTS)/coverage.csv
# (about 17 CPU minutes at N_JOBS=1, and about 40 more for C9, C13 and C12's designs,
# analysis/coverage_designs.py, merged into the same CSV; PROFILE=quick: 10 data sets, 50 replicates).
coverage: $(STAMP)
	@mkdir -p $(RESULTS)
	$(PY) -m scripts.coverage --n-jobs $(N_JOBS) --out $(RESULTS)/coverage.csv --overwrite-committed \
	  $(if $(filter quick,$(PROFILE)),--datasets 10 --n-boot 50)
	$(PY) -m scripts.coverage --n-jobs $(N_JOBS) --out $(RESULTS)/coverage.csv --overwrite-committed \
	  --merge --designs c9_domain_d1 c13_generic_plateau c12_grid_halfplanes \
	  $(if $(filter quick,$(PROFILE)),--datasets 10 --n-boot 50)

clean-cache:
	rm -rf $(RESULTS)/cache $(OUTPUTS)

clean:
	rm -rf $(VENV) $(OUTPUTS) results/cache results/quick results/overrides results/notebook
