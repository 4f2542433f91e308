"""Nugget evaluation benchmark: 10,000 topics × 100 runs × 30 nuggets (30 M assignments).

Times, in one process, on seeded synthetic assignments (about 40% of each topic's nuggets vital;
support / partial_support / not_support / failed in proportions 35 / 15 / 49 / 1%):

- scoring: ``cranfield.evaluate_nuggets`` of the four measures nuggetizer computes (V_strict, V,
  A_strict, A) on the assignments already read, against a plain loop over nuggetizer's own
  ``calculate_nugget_scores`` (castorini/nuggetizer, ``nuggetizer.core.metrics``), one call per
  answer on its list of nugget dicts. The loop is timed on a sample of ``--sample`` answers and
  extrapolated linearly to all of them; on that sample the values are checked to be equal.
- reading: ``cranfield.read_nuggets`` of the same assignments as a Parquet file and a
  tab-separated text file (``qid run nugget_id importance assignment``), and of nuggetizer's
  JSONL for ``--jsonl-runs`` runs, against ``json.loads`` of each JSONL line (what nuggetizer's
  ``metrics`` command does before scoring). Files go to ``benchmarks/_work/`` and are reused.

nuggetizer is not a dependency (it pulls in an LLM client): give its source with
``--nuggetizer PATH`` (a checkout of castorini/nuggetizer, or its ``core/metrics.py``), or install
it; without it only cranfield's times are printed.

    python benchmarks/bench_nuggets.py --nuggetizer ~/src/nuggetizer           # the full benchmark
    python benchmarks/bench_nuggets.py --topics 1000 --runs 20 --nuggetizer ~/src/nuggetizer
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from _timing import best_time
from cranfield import EvaluationWarning, evaluate_nuggets, read_nuggets
from cranfield.io.nuggets import ASSIGNMENTS, IMPORTANCE, NuggetAssignments

WORK = Path(__file__).resolve().parent / "_work"
MEASURES = ["V_strict", "V", "A_strict", "A"]
FIELDS = ("strict_vital_score", "vital_score", "strict_all_score", "all_score")


def make_assignments(topics: int, runs: int, nuggets: int, seed: int = 0) -> NuggetAssignments:
    """Every run answers every topic; nugget k of a topic has one importance in every run."""
    rng = np.random.default_rng(seed)
    vital = rng.random((topics, nuggets)) < 0.4
    assignment = rng.choice(4, size=(runs, topics, nuggets), p=[0.35, 0.15, 0.49, 0.01]).astype(np.int8)
    s, t, k = (a.ravel() for a in np.meshgrid(np.arange(runs, dtype=np.int32), np.arange(topics, dtype=np.int32),
                                              np.arange(nuggets, dtype=np.int32), indexing="ij"))
    answer_run, answer_topic = (a.ravel() for a in np.meshgrid(np.arange(runs, dtype=np.int32),
                                                               np.arange(topics, dtype=np.int32), indexing="ij"))
    return NuggetAssignments(
        runs=[f"run{i}" for i in range(runs)], topics=[f"2024-{i}" for i in range(topics)],
        answer_run=answer_run, answer_topic=answer_topic, run=s, topic=t, nugget=k,
        nugget_ids=[f"n{i}" for i in range(nuggets)],
        importance=np.where(np.broadcast_to(vital, assignment.shape), 0, 1).astype(np.int8).ravel(),
        assignment=assignment.ravel(), sources=("<synthetic>",))


def records(data: NuggetAssignments, answers: np.ndarray) -> list[dict[str, Any]]:
    """nuggetizer's records (qid, run_id, nuggets as dicts) of the answers of the given indices."""
    per = len(data) // data.answer_run.size  # every answer has the same number of nuggets here
    out = []
    for a in answers.tolist():
        rows = slice(a * per, (a + 1) * per)
        out.append({"qid": data.topics[data.topic[a * per]], "run_id": data.runs[data.run[a * per]],
                    "nuggets": [{"text": f"nugget {k}", "importance": IMPORTANCE[i], "assignment": ASSIGNMENTS[g]}
                                for k, i, g in zip(data.nugget[rows].tolist(), data.importance[rows].tolist(),
                                                   data.assignment[rows].tolist())]})
    return out


def load_nuggetizer(path: str | None) -> Any:
    """nuggetizer's ``calculate_nugget_scores``: installed, or from a checkout / its metrics.py."""
    if path is None:
        try:
            return importlib.import_module("nuggetizer.core.metrics").calculate_nugget_scores
        except ImportError:
            return None
    file = Path(path).expanduser()
    if file.is_dir():
        file = file / "src" / "nuggetizer" / "core" / "metrics.py"
    spec = importlib.util.spec_from_file_location("nuggetizer_metrics", file)
    if spec is None or spec.loader is None:
        sys.exit(f"cannot load nuggetizer's metrics from {file}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["nuggetizer_metrics"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module.calculate_nugget_scores


def write_files(data: NuggetAssignments, jsonl_runs: int) -> dict[str, Path]:
    """The assignments as Parquet and text tables, and nuggetizer's JSONL of the first runs."""
    import pyarrow as pa
    import pyarrow.csv as pc
    import pyarrow.parquet as pq

    WORK.mkdir(exist_ok=True)
    tag = f"{len(data.topics)}x{len(data.runs)}x{len(data.nugget_ids)}"
    files = {"parquet": WORK / f"nuggets-{tag}.parquet", "text": WORK / f"nuggets-{tag}.tsv",
             "jsonl": WORK / f"nuggets-{tag}-{jsonl_runs}runs.jsonl"}
    if not files["parquet"].exists() or not files["text"].exists():
        def column(codes: np.ndarray, names: list[str] | tuple[str, ...]) -> Any:
            return pa.DictionaryArray.from_arrays(pa.array(codes.astype(np.int32)), pa.array(list(names)))

        table = pa.table({"qid": column(data.topic, data.topics), "run": column(data.run, data.runs),
                          "nugget_id": column(data.nugget, data.nugget_ids),
                          "importance": column(data.importance, IMPORTANCE),
                          "assignment": column(data.assignment, ASSIGNMENTS)})
        pq.write_table(table, files["parquet"])
        plain = pa.table({n: c.cast(pa.string()) for n, c in zip(table.column_names, table.columns)})
        pc.write_csv(plain, files["text"], pc.WriteOptions(include_header=False, delimiter="\t",
                                                           quoting_style="none"))
    if not files["jsonl"].exists():
        answers = np.flatnonzero(data.answer_run < jsonl_runs)
        with open(files["jsonl"], "w") as f:
            for block in np.array_split(answers, max(1, answers.size // 20_000)):
                f.writelines(json.dumps(r) + "\n" for r in records(data, block))
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--nuggets", type=int, default=30, help="nuggets per topic")
    parser.add_argument("--sample", type=int, default=20_000, help="answers the nuggetizer loop is timed on")
    parser.add_argument("--jsonl-runs", type=int, default=10, help="runs written as JSONL for the reading times")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--nuggetizer", metavar="PATH", help="castorini/nuggetizer checkout or its core/metrics.py")
    parser.add_argument("--no-files", action="store_true", help="time the scoring only")
    args = parser.parse_args()
    warnings.simplefilter("ignore", EvaluationWarning)  # the synthetic data holds 'failed' assignments

    data = make_assignments(args.topics, args.runs, args.nuggets)
    n = len(data)
    print(f"{args.topics:,} topics × {args.runs} runs × {args.nuggets} nuggets = {n:,} assignments")
    ours, results = best_time(lambda: evaluate_nuggets(data, MEASURES), args.repeat)
    print(f"cranfield evaluate_nuggets ({', '.join(MEASURES)}): {ours:.2f} s")

    peer = load_nuggetizer(args.nuggetizer)
    rows = [("score", "cranfield.evaluate_nuggets", ours, None)]
    if peer is not None:
        sample = np.random.default_rng(1).choice(data.answer_run.size, size=min(args.sample, data.answer_run.size),
                                                 replace=False)
        recs = records(data, sample)
        t0 = time.perf_counter()
        got = [peer(r["qid"], r["nuggets"]) for r in recs]
        loop = (time.perf_counter() - t0) * data.answer_run.size / len(recs)
        mine = results.values[data.answer_run[sample], :, data.answer_topic[sample]]
        theirs = np.array([[getattr(m, f) for f in FIELDS] for m in got])
        assert np.array_equal(mine, theirs), "cranfield and nuggetizer disagree"
        print(f"nuggetizer calculate_nugget_scores loop: {loop:.1f} s (timed on {len(recs):,} answers, "
              f"extrapolated to {data.answer_run.size:,}); values equal on the sample")
        rows.append(("score", "nuggetizer loop (extrapolated)", loop, loop / ours))
    else:
        print("nuggetizer not found (--nuggetizer PATH): its loop is not timed")

    if not args.no_files:
        files = write_files(data, args.jsonl_runs)
        for kind in ("parquet", "text", "jsonl"):
            took, got_data = best_time(lambda kind=kind: read_nuggets(files[kind]), args.repeat)
            size = files[kind].stat().st_size
            print(f"cranfield read_nuggets {kind} ({size / 1e6:,.0f} MB, {len(got_data):,} assignments): {took:.2f} s")
            rows.append((f"read {kind}", "cranfield.read_nuggets", took, None))
            if kind == "jsonl":
                def loads(path: Path = files[kind]) -> list[Any]:
                    with open(path, "rb") as f:
                        return [json.loads(line) for line in f]

                theirs_time, _ = best_time(loads, args.repeat)
                print(f"json.loads per line (nuggetizer's reading): {theirs_time:.2f} s")
                rows.append(("read jsonl", "json.loads per line", theirs_time, theirs_time / took))

    print(f"\n{'task':<12} {'tool':<34} {'seconds':>9} {'cranfield faster':>17}")
    for task, tool, seconds, ratio in rows:
        print(f"{task:<12} {tool:<34} {seconds:>9.2f} {'' if ratio is None else f'{ratio:.0f}x':>17}")


if __name__ == "__main__":
    main()
