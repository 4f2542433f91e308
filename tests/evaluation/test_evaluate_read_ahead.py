"""Evaluator.evaluate reads the next run files on threads while it scores the current one
(evaluation/scheduling.py, READ_AHEAD): the scores, the names, the warnings and the errors, in
run order, are those of reading each file alone."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from cranfield.errors import InputError
from cranfield.evaluation.evaluator import Evaluator
from cranfield.io import read_run

TOPICS, DOCS = 30, 400


def write_runs(tmp_path):
    rng = np.random.default_rng(1)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{t} 0 d{t}-{d} {int(rng.integers(0, 3))}\n" for t in range(TOPICS)
                             for d in range(0, DOCS, 3)))
    runs = []
    for s in range(5):
        extra = TOPICS + s  # a topic the qrels do not have: one warning per run, naming it
        lines = [f"{t} Q0 d{t}-{d} {r + 1} {round(float(v), 3)} tag{s}\n"
                 for t in [*range(TOPICS), extra] for r, (d, v) in
                 enumerate(zip(rng.permutation(DOCS), np.sort(rng.random(DOCS))[::-1]))]
        path = tmp_path / f"run{s}.txt"
        path.write_text("".join(lines))
        runs.append(str(path))
    return str(qrels), runs


def test_read_ahead_gives_the_scores_and_warnings_of_one_file_at_a_time(tmp_path):
    qrels, runs = write_runs(tmp_path)
    evaluator = Evaluator(qrels, ["AP", "P@10", "nDCG@10"])
    with warnings.catch_warnings(record=True) as together:
        warnings.simplefilter("always")
        results = evaluator.evaluate(runs)
    alone, said = [], []
    for r in runs:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            alone.append(evaluator.evaluate([read_run(r)]).values[0])
        said += [str(w.message) for w in caught]
    assert np.array_equal(results.values, np.stack(alone), equal_nan=True)
    assert results.runs == [f"tag{s}" for s in range(5)]
    assert [str(w.message) for w in together] == said
    assert said == [f"tag{s}: 1 topics are not in the qrels and are ignored: {TOPICS + s}" for s in range(5)]


def test_a_file_the_read_ahead_cannot_read_fails_in_run_order_as_alone(tmp_path):
    qrels, runs = write_runs(tmp_path)
    bad = tmp_path / "bad.txt"
    bad.write_text("1 Q0 d1 1 0.5 tag\n1 Q0 d2 2 high tag\n")
    evaluator = Evaluator(qrels, ["AP"])
    with pytest.raises(InputError) as alone:
        read_run(str(bad))
    for where in (0, 2, 5):  # read ahead (on a thread) or first (here)
        files = [*runs[:where], str(bad), *runs[where:]]
        with warnings.catch_warnings(record=True) as caught, pytest.raises(InputError) as together:
            warnings.simplefilter("always")
            evaluator.evaluate(files)
        assert str(together.value) == str(alone.value) == f"{bad}:2: score 'high' in column 5 is not a number"
        assert len(caught) == where  # the runs before it were scored (one warning each), none after


def test_prefetched_files_are_read_once_and_score_as_alone(tmp_path, monkeypatch):
    """The command line starts tokenising the first run files while the qrels are read
    (scheduling.prefetch): the evaluation takes those, reading each file once."""
    from cranfield.evaluation import scheduling
    from cranfield.io import run as run_module

    qrels, runs = write_runs(tmp_path)
    evaluator = Evaluator(qrels, ["AP", "P@10"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = evaluator.evaluate(runs).values
        reads = []
        original = run_module.run_columns
        monkeypatch.setattr(run_module, "run_columns", lambda path, order="score", threads=True: reads.append(path) or
                            original(path, order, threads))
        for given in (runs, runs[:1]):  # read ahead by the pool, or one run alone
            reads.clear()
            scheduling.prefetch(given, "score")
            assert np.array_equal(evaluator.evaluate(given).values, expected[: len(given)], equal_nan=True)
            assert sorted(reads) == sorted(given)


def test_a_prefetch_left_behind_is_not_taken_for_a_changed_file(tmp_path):
    """A command that stopped after prefetch (an error in the qrels, say) leaves its tokenising
    behind; an evaluation of the same path after the file changed reads the file as it is now."""
    from cranfield.evaluation import scheduling

    qrels, runs = write_runs(tmp_path)
    evaluator = Evaluator(qrels, ["AP", "P@10"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scheduling.prefetch(runs[:1], "score")
        scheduling._PREFETCHED[(str(runs[0]), ("score", "error", "float32"))][1].result()  # read before it changes
        changed = open(runs[1]).read().replace("tag1", "tag0")
        with open(runs[0], "w") as f:
            f.write(changed)
        assert np.array_equal(evaluator.evaluate(runs[:1]).values, evaluator.evaluate(runs[1:2]).values,
                              equal_nan=True)
        assert (str(runs[0]), ("score", "error", "float32")) not in scheduling._PREFETCHED  # taken, and dropped


@pytest.mark.parametrize("where", [0, 2, 5])
def test_what_making_a_read_ahead_run_says_is_said_in_run_order(tmp_path, where):
    """A file read ahead whose run has a duplicate document (an error) or a score beyond a C
    float (a warning) is made a run on the scoring thread, which says so in run order."""
    qrels, runs = write_runs(tmp_path)
    evaluator = Evaluator(qrels, ["AP"])
    duplicate = tmp_path / "dup.txt"
    duplicate.write_text("1 Q0 d1-0 1 0.5 dup\n1 Q0 d1-0 2 0.4 dup\n")
    huge = tmp_path / "huge.txt"
    huge.write_text("1 Q0 d1-0 1 1e39 huge\n1 Q0 d1-3 2 0.5 huge\n")
    with pytest.raises(InputError) as alone:
        read_run(str(duplicate))
    files = [*runs[:where], str(duplicate), *runs[where:]]
    with warnings.catch_warnings(record=True) as caught, pytest.raises(InputError) as together:
        warnings.simplefilter("always")
        evaluator.evaluate(files)
    assert str(together.value) == str(alone.value) and len(caught) == where
    files = [*runs[:where], str(huge), *runs[where:]]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluator.evaluate(files)
    said = [str(w.message) for w in caught]
    assert "beyond the range of a C float" in said[where] and len(said) == len(runs) + 2  # + its missing topics
