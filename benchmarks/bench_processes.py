"""Whole-process benchmark of issue #18: cranfield's command line against the usual Python
harnesses of pytrec_eval and pyndeval, side by side, each in its own fresh process (start-up,
imports, reading and scoring included), with the ratio and the peak memory printed.

Cases (data written by _gen.py / bench_ndeval.py into benchmarks/_work/, reused later):
  adhoc-1M   10 runs × 100 topics × 1,000 docs, P@10, AP, nDCG@10, RR   target ratio <= 0.5
  ndeval-1M  10 runs × 100 topics × 1,000 docs, diversity qrels, ndeval's 21 measures  <= 0.5
  adhoc-10M  50 runs × 200 topics × 1,000 docs, as adhoc-1M   <= 0.3, peak memory <= 1.5 GB

    python benchmarks/bench_processes.py                 # all three (the 10M data: ~560 MB)
    python benchmarks/bench_processes.py --cases adhoc-1M,ndeval-1M --repeat 3
    python benchmarks/bench_processes.py --cases startup  # start-up only (issue #24)

Start-up (case ``startup``): ``cranfield --version``, ``--help`` and ``eval --help`` against
the bare interpreter (``python -c pass``), which they should barely exceed (none imports numpy:
tests/cli/test_startup.py), and ``import cranfield`` / ``from cranfield import evaluate`` against
``import numpy``: the library may cost at most 50 ms more than numpy.

Time is the best wall-clock of --repeat runs, cranfield's and the reference's taken in turn
(so that both meet the same moments of the machine's load); memory the peak resident set of the child
(ru_maxrss via os.wait4), each child spawned by a small launcher (see LAUNCHER). The load
average is printed before and after: on a shared machine the figures are only as good as it
is quiet.

Children run as after ``pip install``: cranfield's modules are compiled to bytecode first
(``compileall``, into the usual ``__pycache__`` directories) and PYTHONDONTWRITEBYTECODE is
not passed on, so no child pays for compiling ~180 modules that the references' compiled
extensions never compile.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _gen import make_collection  # noqa: E402
from bench_ndeval import NDEVAL, make_data  # noqa: E402

MEASURES = ["P@10", "AP", "nDCG@10", "RR"]
PYTREC = """
import sys, pytrec_eval
with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
ev = pytrec_eval.RelevanceEvaluator(qrels, {"P_10", "map", "ndcg_cut_10", "recip_rank"})
for path in sys.argv[2:]:
    with open(path) as f:
        run = pytrec_eval.parse_run(f)
    ev.evaluate(run)
"""
PYNDEVAL = """
import sys, pyndeval
with open(sys.argv[1]) as f:
    judged = [(q, i, d, int(r)) for q, i, d, r in (line.split() for line in f)]
ev = pyndeval.RelevanceEvaluator(judged, MEASURES)
for path in sys.argv[2:]:
    with open(path) as f:
        run = [(q, d, float(s)) for q, _, d, _, s, _ in (line.split() for line in f)]
    ev.evaluate(run)
""".replace("MEASURES", repr(list(NDEVAL)))
TARGETS = {"adhoc-1M": 0.4, "ndeval-1M": 0.4, "adhoc-10M": 0.3}
CRANFIELD = [sys.executable, "-m", "cranfield.cli.main"]
# (what, command, the command it is measured against, target: at most the baseline + this many seconds)
STARTUP = [
    ("cranfield --version", [*CRANFIELD, "--version"], "python -c pass", 0.05),
    ("cranfield --help", [*CRANFIELD, "--help"], "python -c pass", 0.05),
    ("cranfield eval --help", [*CRANFIELD, "eval", "--help"], "python -c pass", None),
    ("import cranfield", [sys.executable, "-c", "import cranfield"], "import numpy", 0.05),
    ("from cranfield import evaluate", [sys.executable, "-c", "from cranfield import evaluate"], "import numpy", 0.05),
]
BASELINES = {"python -c pass": [sys.executable, "-c", "pass"], "import numpy": [sys.executable, "-c", "import numpy"]}
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def compile_package() -> None:
    """Byte-compile cranfield as an installation does (the children then load, not compile, it)."""
    import importlib.util

    spec = importlib.util.find_spec("cranfield")
    if spec is not None and spec.submodule_search_locations:
        subprocess.run([sys.executable, "-m", "compileall", "-q", *spec.submodule_search_locations],
                       env=CHILD_ENV, check=True, stdout=subprocess.DEVNULL)


def load() -> str:
    """The 1-, 5- and 15-minute load averages."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


LAUNCHER = """
import os, sys, time
t0 = time.perf_counter()
pid = os.posix_spawnp(sys.argv[1], sys.argv[1:], os.environ,
                      file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)])
_, status, usage = os.wait4(pid, 0)
print(time.perf_counter() - t0, usage.ru_maxrss, usage.ru_utime + usage.ru_stime)
sys.exit(os.waitstatus_to_exitcode(status))
"""
"""Runs one command and prints its wall time and peak RSS (KB). Linux keeps a process's peak
RSS across exec, counting the memory of the process it was forked from: forked from this
benchmark (which may hold the generated data, ~260 MB for 10M lines) every child would seem to
need at least that much. Spawned by this small launcher (python -S, ~10 MB), it does not."""


def run_process(cmd: list[str]) -> tuple[float, float, float]:
    """(wall seconds, peak RSS in MB, CPU seconds) of one child process; its output is discarded."""
    proc = subprocess.run([sys.executable, "-S", "-c", LAUNCHER, *cmd], capture_output=True, env=CHILD_ENV)
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd[:3])} ... failed ({proc.returncode}):\n{proc.stderr.decode()}")
    wall, rss_kb, cpu = proc.stdout.split()
    return float(wall), int(rss_kb) / 1024, float(cpu)


def best_of_pairs(ours: list[str], theirs: list[str], repeat: int) -> tuple[float, float, float, float, float, float]:
    """(our best seconds, our peak MB, their best seconds, their peak MB, our least CPU seconds,
    theirs), the two commands run in turn ``repeat`` times, so that both meet the same moments
    of a shared machine's load."""
    runs = [(run_process(ours), run_process(theirs)) for _ in range(repeat)]
    return (min(a[0] for a, _ in runs), max(a[1] for a, _ in runs),
            min(b[0] for _, b in runs), max(b[1] for _, b in runs),
            min(a[2] for a, _ in runs), min(b[2] for _, b in runs))


def startup(repeat: int) -> None:
    """Print the start-up times: the best wall-clock and the least CPU time (user + system, less
    sensitive to a busy machine) of ``repeat`` runs, each command and its baseline in turn."""
    print(f"\n{'start-up':<31}{'wall s':>7}{'cpu s':>7}{'baseline':>16}{'wall s':>7}{'cpu s':>7}"
          f"{'extra wall/cpu':>16}{'target':>9}")
    print("-" * 100)
    for what, cmd, baseline, target in STARTUP:
        runs = [(run_process(cmd), run_process(BASELINES[baseline])) for _ in range(repeat)]
        wall, cpu = min(a[0] for a, _ in runs), min(a[2] for a, _ in runs)
        base_wall, base_cpu = min(b[0] for _, b in runs), min(b[2] for _, b in runs)
        limit = "" if target is None else f"<= {target:.2f}"
        print(f"{what:<31}{wall:>7.3f}{cpu:>7.3f}{baseline:>16}{base_wall:>7.3f}{base_cpu:>7.3f}"
              f"{wall - base_wall:>+8.3f}/{cpu - base_cpu:<+7.3f}{limit:>9}", flush=True)


def case(name: str, work: Path) -> tuple[list[str], list[str]]:
    """(cranfield command, reference command) of a case."""
    cranfield = [*CRANFIELD, "eval"]
    if name.startswith("ndeval"):
        qrels, runs = make_data(work / "ndeval_r10_t100_d1000_s0", 10, 100, 1000, 0)
        files = [str(qrels), *map(str, runs)]
        ours = [*cranfield, *files, "--diversity", "--missing", "skip", "-q", "-o", os.devnull,
                *(a for m in NDEVAL.values() for a in ("-m", m))]
        return ours, [sys.executable, "-c", PYNDEVAL, *files]
    runs_, topics = (10, 100) if name == "adhoc-1M" else (50, 200)
    qrels, runs = make_collection(work / f"adhoc_r{runs_}_t{topics}_d1000_j300_s0", topics=topics, runs=runs_,
                                  docs=1000, judged=300, seed=0)
    files = [str(qrels), *map(str, runs)]
    ours = [*cranfield, *files, "-q", "-o", os.devnull, *(a for m in MEASURES for a in ("-m", m))]
    return ours, [sys.executable, "-c", PYTREC, *files]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", default=",".join(["startup", *TARGETS]))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--work", type=Path, default=HERE / "_work")
    args = ap.parse_args()
    compile_package()
    print(f"load average before: {load()} ({os.cpu_count()} CPUs)", flush=True)
    rows = []
    cases = args.cases.split(",")
    if "startup" in cases:
        startup(args.repeat)
    for name in (c for c in cases if c != "startup"):
        ours, theirs = case(name, args.work)
        reference = "pyndeval" if name.startswith("ndeval") else "pytrec_eval"
        t_ours, m_ours, t_ref, m_ref, c_ours, c_ref = best_of_pairs(ours, theirs, args.repeat)
        rows.append((name, reference, t_ours, m_ours, t_ref, m_ref))
        print(f"{name}: cranfield {t_ours:.2f} s ({m_ours:,.0f} MB), {reference} {t_ref:.2f} s ({m_ref:,.0f} MB), "
              f"ratio {t_ours / t_ref:.2f}; CPU {c_ours:.2f} s / {c_ref:.2f} s = {c_ours / c_ref:.2f}", flush=True)
    if not rows:
        print(f"load average after: {load()}")
        return 0
    print(f"\n{'case':<11}{'reference':<13}{'cranfield s':>12}{'ref s':>8}{'ratio':>7}{'target':>8}"
          f"{'peak MB':>9}{'ref MB':>8}")
    print("-" * 76)
    for name, reference, t_ours, m_ours, t_ref, m_ref in rows:
        print(f"{name:<11}{reference:<13}{t_ours:>12.2f}{t_ref:>8.2f}{t_ours / t_ref:>7.2f}"
              f"{'<= ' + str(TARGETS[name]):>8}{m_ours:>9,.0f}{m_ref:>8,.0f}")
    print("(whole processes, best wall-clock of --repeat; ratio = cranfield / reference; peak = max RSS)")
    print(f"load average after: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
