"""The pipeline behind the Makefile's targets (``make reproduce``, ``audit``, ``figures``, ...).

    python -m scripts.reproduce reproduce [--profile quick] [--claims C5 C9]
        [--experiments c5_mixture_weight ...] [--n-jobs 2] [--launcher joblib|slurm]
        [--results R] [--outputs outputs] [--args "learner.epsilon=0.5"] [--recompute]
        [--verbose] [--dry-run]
    python -m scripts.reproduce {audit,c4-inputs,figures,notebook,bench,coverage,clean-cache,
                                 results} [the same options]

The Makefile passes its variables as these options (``ARGS`` as ``PPM_ARGS`` in the
environment, the default of ``--args``) and ``--dry-run`` under ``make -n``: the commands are
then printed, one a line, and none runs. ``make reproduce`` is, in order:

1. ``--claims``: each must be a claim (``claims.registry --check``: one ``error:`` line, exit 2).
   The experiments are ``--experiments`` as typed, else those of the chosen claims, else every
   experiment of the registry (the quick profile without the long ones).
2. The committed trials of the long and committed experiments are restored into the trial cache
   (``scripts.restore_cache``; ``--recompute`` forgets them instead; the quick profile neither).
3. ``scripts.run_sweeps`` checks ``ARGS`` against every sweep, runs the sweeps and aggregates
   them; the quick root then holds a ``PROFILE`` file (its verdicts say "smoke run").
4. The exact audits of C6 and C7 (``scripts.exact_audits``) and every private learner's privacy
   audit (``scripts.privacy_audits``; both left out, with one line, by a run
   with ``ARGS``, ``EXPERIMENTS`` or ``CLAIMS``: they read no sweep).
5. The non-sweep inputs of every claim whose experiments ran (``Claim.inputs``: C4's two tables).
6. ``scripts.figures`` (``--keep-going`` on a partial or overrides root) and ``scripts.summary``.

A step that derives files is skipped when nothing it depends on changed since it last ran, in
one line per group (:mod:`experiments.stamps`): the sweeps' aggregation (``scripts.run_sweeps``),
each claim's summary and figure (``scripts.figures``), and steps 4-6's other commands (run
through ``python -m experiments.stamps``; the verdict table's digest is printed again). A second
``make reproduce`` with nothing changed then takes well under a minute.

Ctrl-C: a step at work says what it stopped in one line and exits 130 (each step's own
handling, ``experiments.lifecycle``); this process then exits 130 without a word of its own.
Between steps (or in a step that said nothing) it prints the one line itself. Every step runs
as a subprocess of this one, as it ran as a command of the Makefile before.
"""

from __future__ import annotations

import os
import signal
import sys

_RUN = {"child": False, "interrupted": False, "target": "make"}


def _interrupt_line() -> str:
    return (f"interrupted: make {_RUN['target']} stopped; rerun the same command to finish it"
            "\n")


def _on_ctrl_c(signum, frame) -> None:
    """While a step runs, it says what it stopped (the whole process group gets Ctrl-C): wait
    for it. Otherwise stop now, with one line."""
    if _RUN["child"]:
        _RUN["interrupted"] = True
        return
    os.write(2, _interrupt_line().encode())
    os._exit(130)


if __name__ == "__main__" and signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
    # before the imports: a Ctrl-C while they load is the same one line
    signal.signal(signal.SIGINT, _on_ctrl_c)

import argparse  # noqa: E402
import hashlib  # noqa: E402
import re  # noqa: E402
import shlex  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
from pathlib import Path  # noqa: E402

PROFILES = {"default": ("results", ""), "quick": ("results/quick", "_quick")}  # root, suffix
TARGETS = ("reproduce", "audit", "c4-inputs", "figures", "notebook", "bench", "coverage",
           "clean-cache", "results", "help")

# The Makefile's variables, as ``make help`` prints them: name, default (the Makefile's ``?=``),
# what it does. The Makefile keeps the defaults and stops on a bad value it passes on; main()
# checks them again for a direct call (one line naming the variable, before any work).
MAKE_VARIABLES = (
    ("PYTHON", "python3", "the Python that creates the venv"),
    ("VENV", ".venv", "the venv: requirements.lock, then this package (editable)"),
    ("GPU", "", "1: make install also installs the extra [gpu] (numba-cuda, CUDA 12; "
                "docs/gpu.md)"),
    ("PROFILE", "default", "default | quick: a smoke run (small grids, few trials) into "
                           "results/quick/"),
    ("N_JOBS", "2", "parallel jobs (cells of a sweep; quick: sweeps at once; bench, coverage)"),
    ("ARGS", "", "Hydra overrides for every sweep (shell-split); own root "
                 "results[/quick]/overrides/<slug>-<hash>"),
    ("EXPERIMENTS", "", "only these sweeps (base names or claim ids); default: every claim's "
                        "(quick: no long ones)"),
    ("CLAIMS", "", "only these claims (ids or names): their sweeps, then only their figures"),
    ("RECOMPUTE", "", "1: compute every trial (no restore of the committed trials of long "
                      "sweeps)"),
    ("RESULTS", "", "the results root (default results, results/quick, or the overrides root "
                    "of ARGS)"),
    ("OUTPUTS", "outputs", "Hydra's sweep directories (make clean-cache removes them)"),
    ("LAUNCHER", "joblib", "joblib | slurm: every cell a task of a SLURM job array (knobs in "
                           "ARGS)"),
    ("VERBOSE", "", "1: also Hydra's per-job listing and each sweep's closing hint"),
    ("N_BOOT", "", "bootstrap replicates of every slope interval in the figures (300; quick: "
                   "50)"),
    ("AUDIT_INSTANCES", "", "random instances of the exact C6/C7 audits (300; quick: 40)"),
    ("TEST_WORKERS", "2", "pytest-xdist workers of make test / test-fast (0: one process)"),
)


def make_help(makefile: str) -> str:
    """``make help``: the Makefile's targets (each rule's ``## `` comment) and its variables."""
    lines = ["targets (make <target> [VARIABLE=value ...]):"]
    for m in re.finditer(r"^([a-z][a-z0-9-]*):.*?## (.*)$", Path(makefile).read_text(), re.M):
        lines.append(f"  {m.group(1):<12} {m.group(2)}")
    lines.append("variables (default after =):")
    lines += [f"  {f'{name}={default}':<20} {text}" for name, default, text in MAKE_VARIABLES]
    return "\n".join(lines)


def check_make_values(opts) -> str | None:
    """The first bad value the Makefile passed on, as one line naming its variable."""
    checks = (("PROFILE", opts.profile, opts.profile in PROFILES, "'default' or 'quick'"),
              ("N_JOBS", opts.n_jobs, re.fullmatch(r"[1-9][0-9]*", opts.n_jobs),
               "a positive integer (parallel jobs)"),
              ("LAUNCHER", opts.launcher, opts.launcher in ("joblib", "slurm"),
               "'joblib' or 'slurm'"))
    for name, value, ok, what in checks:
        if not ok:
            return f"{name} must be {what}, got '{value}'"
    return None


def make_strip(text: str) -> str:
    """``$(strip ...)`` of make: no leading or trailing blanks, inner runs as one space."""
    return re.sub(r"[ \t\n]+", " ", text).strip(" \t\n")


def overrides_root(base: str, args_text: str) -> str:
    """``<base>/overrides/<slug>-<hash>`` of a run with ARGS: <slug> is ARGS with every byte
    outside [A-Za-z0-9_.-] as ``_`` (runs of ``_`` as one, at most 40 characters, no leading or
    trailing ``_.-``; ``args`` if nothing is left), <hash> the first 8 hex digits of the
    SHA-256 of ARGS: the root is a valid Hydra override value and two ARGS never share it."""
    raw = args_text.encode()
    slug = re.sub(rb"[^A-Za-z0-9_.-]", b"_", raw)
    slug = re.sub(rb"_+", b"_", slug)[:40].decode("ascii")
    slug = re.sub(r"^[_.-]*", "", re.sub(r"[_.-]*$", "", slug)) or "args"
    return f"{base}/overrides/{slug}-{hashlib.sha256(raw).hexdigest()[:8]}"


# files a step reads only where they exist (the verdict table: every claim's summary, the
# markers of claims that cannot be analysed, the quick profile's mark): a new one is a change
SUMMARY_WATCH = ("*/summary.csv", "*/UNANALYSABLE", "PROFILE")
STEP_LABELS = {"scripts.exact_audits": "the exact audits of C6 and C7",
               "scripts.privacy_audits": "the privacy audits",
               "scripts.log_class_size": "C4's class-size table",
               "scripts.mechanism_price": "C4's price table"}


class Plan:
    """What a target runs, from the Makefile's variables."""

    def __init__(self, opts: argparse.Namespace):
        self.o = opts
        self.quick = opts.profile == "quick"
        base, self.suffix = PROFILES[opts.profile]
        self.args_text = make_strip(opts.args)
        self.results = opts.results or (overrides_root(base, self.args_text) if self.args_text
                                        else base)
        self.claims = opts.claims or []
        # a run with ARGS, a chosen EXPERIMENTS list or CLAIMS: the audits are left out and a
        # claim without the values it compares is reported, not fatal (--keep-going)
        self.partial = bool(self.args_text or opts.experiments is not None or self.claims)
        self.n_boot = opts.n_boot or ("50" if self.quick else "300")
        self.instances = opts.audit_instances or ("40" if self.quick else "300")
        self.kept_outputs: list[str] = []  # committed non-sweep tables kept (kept())
        self._experiments = opts.experiments

    @property
    def experiments(self) -> list[str]:
        if self._experiments is None:
            from claims import registry
            if self.claims:
                try:
                    self._experiments = registry.claim_experiments(self.claims, self.quick)
                except KeyError:  # the claims check says why
                    self._experiments = []
            else:
                self._experiments = registry.experiments(skip_long=self.quick)
        return self._experiments

    def py(self, module: str, *args: str) -> list[str]:
        return [sys.executable, "-m", module, *args]

    def check_claims(self) -> list[str] | None:
        return self.py("claims.registry", "--check", *self.claims) if self.claims else None

    def restore(self) -> list[str] | None:
        cache = f"{self.results}/cache"
        if self.quick:
            return None
        if self.o.recompute:
            return self.py("scripts.restore_cache", "--forget", "--cache", cache)
        from claims import registry
        restored = set(registry.restored_experiments())
        names = [e for e in self.experiments if e in restored]
        return self.py("scripts.restore_cache", "--from", "results", "--cache", cache,
                       *names) if names else None

    def sweeps(self) -> list[str]:
        if self.o.launcher == "slurm":
            launch = "hydra/launcher=slurm"  # its knobs in ARGS; N_JOBS unused
        elif self.quick:  # tiny cells: a worker pool costs more than it saves
            launch = "hydra.launcher.n_jobs=1 n_jobs=1"
        else:
            launch = f"hydra.launcher.n_jobs={self.o.n_jobs}"
        # quick sweeps are mostly start-up: N_JOBS of them at once; default ones one at a time
        at_once = str(self.o.n_jobs) if self.quick else "1"
        return self.py("scripts.run_sweeps", "--results", self.results, "--suffix", self.suffix,
                       "--outputs", self.o.outputs, "--at-once", at_once, "--launch", launch,
                       *(["--verbose"] if self.o.verbose else []), *self.experiments)

    def audit(self) -> list[list[str]]:
        """The exact audits of C6 and C7, then every private learner's privacy audit (it reads
        C6's audit; the quick profile at a fiftieth of the runs, at least 20 and 40 per
        side: a smoke run)."""
        return [self.py("scripts.exact_audits", "--results", self.results, "--instances",
                        self.instances),
                self.py("scripts.privacy_audits", "--results", self.results,
                        "--jobs", str(self.o.n_jobs), *(["--scale", "0.02"] if self.quick else []))]

    def kept(self, cmd: list[str]) -> bool:
        """Is ``cmd``'s output a committed table that ``make reproduce`` keeps? In the default
        profile, without RECOMPUTE, the tables that are not sweeps and take CPU-minutes (C4's
        exact price tables, about 20 CPU-minutes; the privacy audits, about 6) are kept where
        the results root holds them, as the long sweeps' trials are restored: the figures and
        verdicts are still recomputed from them. ``make audit`` and ``make c4-inputs`` always
        recompute."""
        if self.quick or self.o.recompute:
            return False
        out = None
        if "--out" in cmd:
            out = cmd[cmd.index("--out") + 1]
        elif "scripts.privacy_audits" in cmd:
            out = f"{self.results}/privacy_audits/audit.csv"
        if out is None or not Path(out).is_file():
            return False
        self.kept_outputs.append(out)
        return True

    def inputs(self) -> list[list[str]]:
        """The non-sweep inputs (``Claim.inputs``) of the claims whose experiments are
        selected."""
        from claims import registry
        chosen = {e[:-len(self.suffix)] if self.suffix and e.endswith(self.suffix) else e
                  for e in self.experiments}
        cmds = []
        for claim in registry.CLAIMS:
            if claim.inputs and chosen & ({claim.name} | set(claim.experiments)):
                cmds += [self.py(module, "--out", f"{self.results}/{out}",
                                 *(quick if self.quick else ()), "--overwrite-committed")
                         for module, out, quick in claim.inputs]
        return cmds

    def figures(self) -> list[str]:
        keep_going = self.partial or "/overrides/" in self.results
        return self.py("scripts.figures", "--results", self.results, "--n-boot", self.n_boot,
                       "--n-jobs", self.o.n_jobs, *(["--keep-going"] if keep_going else []),
                       *(["--only", *self.claims] if self.claims else []))

    def stamp(self, cmd: list[str], label: str = "", replay: bool = False, watch=()):
        """How ``make reproduce`` runs a step that derives files (:meth:`Runner.run`): named by
        its module and its ``--out``, skipped while its inputs, code and options are
        unchanged (:mod:`experiments.stamps`)."""
        module = cmd[2]
        out = cmd[cmd.index("--out") + 1] if "--out" in cmd else ""
        name = module + (f"--{Path(out).name}" if out else "")
        label = label or STEP_LABELS.get(module, module) + (f" ({Path(out).name})" if out else "")
        return self.results, name, label, replay, tuple(watch)

    def summary(self) -> list[str]:
        return self.py("scripts.summary", "--results", self.results)


def fit_line(line: str) -> str:
    """:func:`claims.reporting.terminal.fit_line`: a step's line in lines of at most 100
    columns."""
    from claims.reporting.terminal import fit_line as fit
    return fit(line)


class Runner:
    """Runs (or, dry, prints) commands as make did: echoed or not, stopping at the first
    failure with its exit status."""

    def __init__(self, dry: bool):
        self.dry = dry

    @staticmethod
    def show(cmd: list[str], env: dict | None = None) -> str:
        exe = sys.executable
        if exe.startswith(os.getcwd() + os.sep):
            exe = os.path.relpath(exe)
        words = [exe if w == sys.executable else w for w in cmd]
        prefix = "".join(f"{k}={shlex.quote(v)} " for k, v in (env or {}).items())
        return prefix + " ".join(shlex.quote(w) for w in words)

    def say(self, line: str) -> None:
        """One message, in lines of at most 100 columns (continuations indented)."""
        if self.dry:
            print(f'echo "{line}"', flush=True)
            return
        print(fit_line(line), flush=True)

    def run(self, cmd: list[str], echo: bool = False, env: dict | None = None,
            stamp: tuple | None = None) -> None:
        """``stamp``: ``(results root, step name, label, replay, watch)``: the step runs
        through :mod:`experiments.stamps`, which skips it (one line; with ``replay`` its last
        output again) when its inputs, code and options (with the files matching ``watch``)
        are those of its last run. ``make -n`` prints the step itself."""
        if self.dry or echo:
            print(self.show(cmd, env), flush=True)
        if self.dry:
            return
        if stamp is not None:
            root, name, label, replay, watch = stamp
            cmd = [sys.executable, "-m", "experiments.stamps", "--root", root, "--name", name,
                   "--label", label, *(["--replay"] if replay else []),
                   *(["--watch", *watch] if watch else []), "--", *cmd[2:]]
        _RUN["child"] = True
        try:  # its output relayed line by line, each at most WIDTH columns (fit_line)
            proc = subprocess.Popen(cmd, env=dict(os.environ, PYTHONUNBUFFERED="1",
                                                  **(env or {})),
                                    stdout=subprocess.PIPE, text=True, bufsize=1)
            for line in proc.stdout:
                print(fit_line(line), flush=True)
            rc = proc.wait()
        finally:
            _RUN["child"] = False
        if _RUN["interrupted"] or rc in (130, -signal.SIGINT):
            if rc != 130:  # the step said nothing: say it here
                os.write(2, _interrupt_line().encode())
            raise SystemExit(130)
        if rc:
            raise SystemExit(rc if rc > 0 else 128 - rc)


def reproduce(plan: Plan, run: Runner) -> None:
    if plan.claims:
        if run.dry:
            run.run(plan.check_claims())
        else:  # in this process: one error line, exit 2
            from claims import registry
            registry.main(["--check", *plan.claims])
    restore = plan.restore()
    if restore:
        run.run(restore)
    run.run(plan.sweeps(), env={"PPM_ARGS": plan.args_text})
    mark = Path(plan.results) / "PROFILE"
    if run.dry:
        print(f"printf 'quick\\n' > {mark}" if plan.quick else f"rm -f {mark}")
    elif plan.quick:
        mark.parent.mkdir(parents=True, exist_ok=True)
        mark.write_text("quick\n")
    else:
        mark.unlink(missing_ok=True)
    if plan.partial:
        run.say("== exact audits (C6, C7) left out, and the privacy audits: they read no sweep, "
                "so ARGS and EXPERIMENTS "
                f"do not change them (make audit RESULTS={plan.results} runs them here)")
    else:
        for cmd in plan.audit():
            if not plan.kept(cmd):
                run.run(cmd, stamp=plan.stamp(cmd))
    for cmd in plan.inputs():
        if not plan.kept(cmd):
            run.run(cmd, stamp=plan.stamp(cmd))
    if plan.kept_outputs:
        run.say(f"== kept as committed (make reproduce RECOMPUTE=1, make audit or make c4-inputs "
                f"recompute them): {', '.join(plan.kept_outputs)}")
    run.run(plan.figures())
    run.run(plan.summary(), stamp=plan.stamp(plan.summary(), "the verdict table, docs blocks",
                                             replay=True, watch=SUMMARY_WATCH))
    r = plan.results
    run.say(f"== done: results root {r}: CSVs in {r}/<experiment>/ (trials.csv, n_hat.csv, "
            f"summary.csv), figures in {r}/figures/, verdicts in {r}/summary.md, trial cache in "
            f"{r}/cache/")
    if plan.quick:
        run.say("== quick profile: a smoke run of the whole pipeline, not a verdict on any "
                "claim (make reproduce without PROFILE=quick measures them)")


def bench(plan: Plan, run: Runner) -> None:
    run.run(plan.py("scripts.bench", "--threads", plan.o.n_jobs, "--overwrite-committed"),
            echo=True)
    gpu = [sys.executable, "-c", "from ppm.gpu import gpu_available as g; "
           "raise SystemExit(not g())"]
    if run.dry:
        print(run.show(gpu) + " && " + run.show(plan.py("scripts.bench_gpu", "--threads",
                                                         plan.o.n_jobs)))
    elif subprocess.call(gpu) == 0:
        run.run(plan.py("scripts.bench_gpu", "--threads", plan.o.n_jobs))
    else:
        print("make bench: no GPU visible to numba.cuda, scripts.bench_gpu skipped", flush=True)


def coverage(plan: Plan, run: Runner) -> None:
    """The coverage study of the n_hat intervals (scripts/coverage.py): every rate claim's
    design, then C9's, C13's and C12's, then every counted statistic's, merged into one CSV."""
    if run.dry:
        print(f"mkdir -p {plan.results}")
    else:
        Path(plan.results).mkdir(parents=True, exist_ok=True)
    out = ["--n-jobs", plan.o.n_jobs, "--out", f"{plan.results}/coverage.csv",
           "--overwrite-committed"]
    small = ["--datasets", "10", "--n-boot", "50"] if plan.quick else []
    run.run(plan.py("scripts.coverage", *out, *small), echo=True)
    run.run(plan.py("scripts.coverage", *out, "--merge", "--designs", "c9_domain_d1",
                    "c13_generic_plateau", "c12_grid_halfplanes", *small), echo=True)
    # the counted statistics on their current designs (analysis/coverage_counted.py PLAN)
    run.run(plan.py("scripts.coverage", *out, "--merge", "--counted", "all", *small), echo=True)


def clean_cache(plan: Plan, run: Runner) -> None:
    paths = [f"{plan.results}/cache", plan.o.outputs]
    print("rm -rf " + " ".join(paths), flush=True)
    if not run.dry:
        for p in paths:
            shutil.rmtree(p, ignore_errors=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", choices=TARGETS)
    parser.add_argument("--profile", default="default", help="default | quick")
    parser.add_argument("--n-jobs", default="2", help="parallel jobs (positive integer)")
    parser.add_argument("--launcher", default="joblib", help="joblib | slurm")
    parser.add_argument("--makefile", default="Makefile", help="the Makefile (help)")
    parser.add_argument("--results", default="", help="results root (default: by profile "
                        "and ARGS: results[/quick][/overrides/<slug>-<hash>])")
    parser.add_argument("--outputs", default="outputs", help="Hydra's sweep directories")
    parser.add_argument("--args", default=os.environ.get("PPM_ARGS", ""),
                        help="Hydra overrides for every sweep (default: $PPM_ARGS)")
    parser.add_argument("--experiments", nargs="*", default=None,
                        help="only these experiments (base names or claim ids)")
    parser.add_argument("--claims", nargs="*", default=None,
                        help="only these claims' experiments and figures")
    parser.add_argument("--recompute", action="store_true",
                        help="compute every trial (forget restored committed trials)")
    parser.add_argument("--verbose", action="store_true", help="Hydra's per-job listing")
    parser.add_argument("--n-boot", default="", help="bootstrap replicates in the figures")
    parser.add_argument("--audit-instances", default="", help="instances of the exact audits")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the commands, run none (make -n)")
    opts = parser.parse_args(argv)
    if opts.target == "help":
        print(make_help(opts.makefile))
        return 0
    bad = check_make_values(opts)
    if bad:
        print(bad, file=sys.stderr)
        return 2
    _RUN["target"] = opts.target
    sys.stdout.reconfigure(line_buffering=True)
    plan, run = Plan(opts), Runner(opts.dry_run)
    if opts.target == "reproduce":
        reproduce(plan, run)
    elif opts.target == "audit":
        for cmd in plan.audit():
            run.run(cmd, echo=True)
    elif opts.target == "c4-inputs":
        for cmd in plan.inputs():
            run.run(cmd)
    elif opts.target == "figures":
        run.run(plan.figures(), echo=True)
        run.run(plan.summary(), echo=True)
    elif opts.target == "notebook":
        run.run(plan.py("scripts.notebook", "--results", plan.results, "--out",
                        f"{plan.results}/notebook"), echo=True)
    elif opts.target == "bench":
        bench(plan, run)
    elif opts.target == "coverage":
        coverage(plan, run)
    elif opts.target == "clean-cache":
        clean_cache(plan, run)
    else:  # results: the root this command line writes to
        print(plan.results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
