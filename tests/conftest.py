import os

# numba's parallel kernels on one thread (before anything imports numba, which reads it once;
# subprocesses inherit it): the tests fit thousands of tiny instances, where waking a second
# OpenMP thread on a busy machine (two workers and their subprocesses on 2 cores) costs more than
# the kernel (a fit of test_learner's d = 2 instance: 5-20 ms on 2 threads, 1 ms on one).
# tests/test_threads.py checks the kernels on 2 threads against 1. Set it to override.
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import matplotlib  # noqa: E402

matplotlib.use("Agg")  # tests draw into files; nothing is displayed (claims/reporting/plotting.py sets none)

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile(
    "ppm", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ppm"))


# The fast tier: `make test-fast` runs `pytest -m "not slow"`; `make test` runs everything.
# A test is marked slow here, in one table (file -> test functions, or ALL for a whole file),
# when it takes seconds on 2 cores or runs the command line end to end (subprocesses, make,
# Hydra sweeps, the CUDA simulator). Measured with `pytest --durations=0`, file by file.
# The marker is registered in pyproject.toml; tests/test_fast_tier.py checks that every name
# here is a test that exists.
ALL = "*"
SLOW = {
    # end to end: make, Hydra sweeps and signals in subprocesses, notebooks, Slurm
    "test_make_reproduce.py": ALL,
    "test_lifecycle.py": ALL,
    "test_ctrl_c_steps.py": ALL,
    "test_notebooks.py": ALL,
    "test_slurm.py": ALL,
    "test_sweep_process.py": ALL,  # make reproduce's sweep step in subprocesses, both ways
    "test_reusing_loader.py": ALL,  # Hydra composes every shape of committed sweep in full
    "test_c4_scripts.py": ALL,
    "test_pipeline.py": ["test_every_reproduced_sweep_has_a_config_and_a_quick_profile",
                         "test_make_reproduce_restores_exactly_the_committed_and_long_sweeps",
                         "test_make_reproduce_quick_profile", "test_notebook_runs_on_results",
                         "test_every_experiment_smoke_runs",
                         "test_results_identical_for_any_n_jobs",
                         "test_multirun_rejects_a_bad_cell_before_any_job_runs",
                         "test_multirun_joblib_launcher_and_aggregation"],
    "test_seeding.py": ["test_committed_long_rows_are_recomputed_exactly"],
    "test_bad_inputs.py": ["test_cli_rejects_every_bad_value_with_one_line",
                           "test_cli_rejects_an_unwritable_results_root",
                           "test_full_error_keeps_the_traceback"],
    "test_gpu_batch.py": ["test_cpu_run_equals_the_cells_run_directly_and_resumes",
                          "test_bad_batch_fails_in_one_line",
                          "test_estimated_hypotheses_are_the_learners",
                          "test_committed_batch_fits_the_budget",
                          "test_memo_model_charges_one_scoring_per_sample",
                          "test_over_budget_is_refused_without_force"],
    # the CUDA scorers under numba's simulator
    "test_cuda_scorer.py": ["test_fit_samples_same_hypothesis_as_cpu",
                            "test_histograms_and_rank_pass_equal_cpu", "test_bench_gpu_smoke",
                            "test_bad_device_rejected"],
    "test_cuda_triples.py": ["test_log_weights_equal_cpu_kernel",
                             "test_select_draws_the_cpu_triangle",
                             "test_disjunction_fit_equals_cpu",
                             "test_bit_planes_recover_the_multiplicities"],
    "test_cuda_quiet.py": ["test_launches_hide_only_the_low_occupancy_warning"],
    # many draws or many samples (the fast tier keeps a smaller test of the same property)
    "test_learner.py": ["test_sampler_frequencies_match_exponential_mechanism",
                        "test_bitset_matches_blocked_on_larger_samples",
                        "test_sweep_scorer_equals_bitset_scorer",
                        "test_sampler_detects_wrong_temperature",
                        "test_G_invariant_to_private_data",
                        "test_helly_when_the_public_points_lie_on_a_flat"],
    "test_claims.py": ["test_analyse_on_committed_results_gives_verdict_rows"],
    "test_coverage.py": ["test_fitted_slope_interval_is_calibrated_and_the_test_has_power"],
    "test_columns.py": ["test_restored_cache_is_the_pipelines_own",
                        "test_n_hat_curves_are_learner_and_own_typed_settings"],
    "test_bitset_csa.py": ["test_csa_across_tiles_and_row_blocks",
                           "test_csa_histograms_equal_plain_and_brute_force"],
    "test_bitset_v2.py": ["test_v2_histograms_equal_v1_and_brute_force"],
    "test_cuda_levels.py": ["test_level4_and_5_one_launch_per_level_equal_cpu",
                            "test_level_in_batches_when_the_buffer_is_small"],
    "test_halfspaces.py": ["test_count_bound_supports_and_pairs"],
    "test_histogram_memo.py": ["test_memo_gives_the_same_hypothesis_at_every_epsilon"],
    "test_unions.py": ["test_sampler_frequencies_follow_the_table"],
    "test_label_boost_audit.py": ["test_wrapper_draws_follow_the_enumerated_distribution"],
    "test_active_audit.py": ["test_the_sampled_audit_detects_a_learner_without_amplification",
                             "test_active_learner_with_generic_learner_shows_no_violation_of_claim_5_7"],
    "test_figures.py": ["test_plotting_leaves_the_backend_to_its_caller"],
    # scikit-learn's check suite on every learner, the documentation's examples run in order
    "test_sklearn_checks.py": ALL,
    "test_docs_examples.py": ALL,
    "test_related_claims.py": ["test_new_rows_on_committed_results",
                               "test_c9_flat_holds_only_when_the_comparator_grows"],
    "test_audit.py": ["test_output_distribution_is_the_exponential_mechanism",
                      "test_every_neighbour_within_epsilon_all_scorers"],
    "test_semi_private.py": ["test_chunked_membership_gives_identical_results",
                             "test_sampler_frequencies_match_exact_distribution"],
    "test_select_halfplane.py": ["test_sampled_labelling_frequencies_match_cell_distribution",
                                 "test_uniform_point_inside_trapezoids"],
    "test_bounds.py": ["test_n_theory_nondecreasing_in_d_and_w_pub"],
    "test_c15_privacy_audit.py": ["test_active_law_is_the_learners_law",
                                  "test_cover_law_is_the_sanitizers_law_with_real_noise"],
}


# The order of the work: `make test` hands each file whole to a worker (--dist loadfile) in the
# order collected (--no-loadscope-reorder), so the longest files go first and the short ones fill
# both workers to the end (longest first: no worker is left alone with a long file at the end).
# FIRST: the files longest on 2 workers, longest first (`pytest --durations=0`, file by file);
# every other file keeps its place after them (a name no file has only loses its rank).
FIRST = [
    "test_pipeline.py",  # the quick profile end to end (about 5 minutes) and every sweep's smoke run
    "test_make_reproduce.py", "test_provenance_checks.py", "test_c4_price.py",
    "test_resume_skip.py", "test_refine.py", "test_ctrl_c_steps.py", "test_cuda_scorer.py",
    "test_cuda_triples.py", "test_lifecycle.py", "test_override_series.py", "test_cuda_levels.py",
    "test_coverage.py", "test_set_cover_exact_audit.py", "test_learner.py", "test_notebooks.py",
    "test_cache.py", "test_sklearn_checks.py", "test_docs_examples.py",
]


@pytest.hookimpl(tryfirst=True)  # before -m deselects
def pytest_collection_modifyitems(config, items):
    for item in items:
        names = SLOW.get(item.path.name)
        if names == ALL or (names and item.originalname in names):
            item.add_marker(pytest.mark.slow)
    rank = {name: i for i, name in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(FIRST)))  # stable: files stay whole


@pytest.fixture(autouse=True)
def _sigint_as_it_was():
    """A test that runs a sweep's job in-process leaves SIGINT ignored or blocked in the test
    worker (a sweep's workers ignore it: experiments/lifecycle.py), and every later subprocess
    would inherit that: restore the worker's SIGINT handling after each test."""
    import signal

    handler = signal.getsignal(signal.SIGINT)
    blocked = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, set())
    yield
    if signal.getsignal(signal.SIGINT) is not handler and handler is not None:
        signal.signal(signal.SIGINT, handler)
    if not blocked:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
