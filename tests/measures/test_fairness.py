"""Expected exposure, AWRF and nDCG*AWRF by hand (docs/fairness.md): the definitions of Diaz et
al. (CIKM 2020) and of the TREC Fair 2022 code on cases small enough to work out, and the
conventions cranfield chose (one sample, a group without documents, a topic without relevant
documents, a topic missing from the run, one relevance grade, group-level bounds)."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield.batch import Batch, Topics
from cranfield.errors import CranfieldError, EvaluationWarning, InputError
from cranfield.evaluation.evaluator import Evaluator, evaluate
from cranfield.io.examples import fairness_files
from cranfield.io.stochastic import read_groups, read_stochastic_run, read_target
from cranfield.measures.registry import parse_measure


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _values(qrels: str, run: str, measures: list[str], **options: object) -> dict[tuple[str, str], float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = evaluate(qrels, run, measures, stochastic=True, order="rank", **options)  # type: ignore[arg-type]
    return {(r.topic, r.measure): r.value for r in frame.itertuples()}


# --------------------------------------------------------------------------- one sample
def test_one_deterministic_ranking_by_hand() -> None:
    """Labels 2, 1, 0 and the default cascade (γ = u = 1/2): exposures 1, 1/4, 1/16; targets
    1 (grade 2: b = 0, m = 1) and (pp − pp²)/(1 − pp) = 1/4 (grade 1), pp = γ(1 − u) = 1/4."""
    topics = Topics.from_ideal(np.array([[2, 1]]))
    batch = Batch.from_labels(np.array([[[2, 1, 0]]]), topics)
    d_raw = 1 + 1 / 16 + 1 / 256
    assert parse_measure("EE-D")(batch)[0, 0] == pytest.approx(d_raw * (1 - 0.25), abs=1e-15)
    assert parse_measure("EE-D(normalize=false)")(batch)[0, 0] == pytest.approx(d_raw, abs=1e-15)
    assert parse_measure("EE-R(normalize=false)")(batch)[0, 0] == pytest.approx(1 + 1 / 16, abs=1e-15)
    assert parse_measure("EE-R")(batch)[0, 0] == pytest.approx(1.0, abs=1e-15)
    # EE-L: only the non-relevant document's exposure is lost; bound ‖ε*‖² + 1/(1 − γu)
    assert parse_measure("EE-L")(batch)[0, 0] == pytest.approx((1 / 256) / (1 + 1 / 16 + 1 / (1 - 0.25)), abs=1e-15)
    # RBP (γ = 0.8): exposures 1, 0.8, 0.64; targets 1 and 0.8
    rbp = parse_measure("EE-L(model=rbp,gamma=0.8,normalize=false)")(batch)[0, 0]
    assert rbp == pytest.approx(0.64**2, abs=1e-15)


def test_a_run_without_stochastic_is_one_sample(tmp_path: Path) -> None:
    qrels = _write(tmp_path, "q", "1 0 a 1\n1 0 b 0\n")
    plain = _write(tmp_path, "plain", "1 Q0 b 1 2 r\n1 Q0 a 2 1 r\n")
    once = _write(tmp_path, "once", "1 7 b 1 2 r\n1 7 a 2 1 r\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = evaluate(qrels, plain, ["EE-L", "EE-D"], per_topic=True)
    b = _values(qrels, once, ["EE-L", "EE-D"])
    assert a.set_index(["topic", "measure"])["value"].to_dict() == b


def test_samples_are_averaged_per_document(tmp_path: Path) -> None:
    """Two samples a,b and b,a (RBP γ = 1/2): each document has exposure (1 + 1/2)/2 = 3/4, so
    EE-D = 2·(3/4)² = 9/8, the smallest for two documents (a deterministic ranking: 5/4)."""
    qrels = _write(tmp_path, "q", "1 0 a 1\n1 0 b 1\n")
    run = _write(tmp_path, "r", "1 0 a 1 0 r\n1 0 b 2 0 r\n1 1 b 1 0 r\n1 1 a 2 0 r\n")
    got = _values(qrels, run, ["EE-D(model=rbp,normalize=false)", "EE-L(model=rbp,normalize=false)", "nDCG"])
    assert got["1", "EE-D(model=rbp,normalize=false)"] == pytest.approx(9 / 8, abs=1e-15)
    assert got["1", "EE-L(model=rbp,normalize=false)"] == pytest.approx(0.0, abs=1e-15)  # the ideal policy
    assert got["1", "nDCG"] == pytest.approx(1.0)  # any other measure: its mean over the samples


def test_order_rank_reads_ranks_and_order_score_reads_scores(tmp_path: Path) -> None:
    qrels = _write(tmp_path, "q", "1 0 a 1\n1 0 b 0\n")
    run = _write(tmp_path, "r", "1 0 a 2 9 r\n1 0 b 1 1 r\n")
    by_rank = _values(qrels, run, ["EE-R(normalize=false)"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        by_score = evaluate(qrels, run, ["EE-R(normalize=false)"], stochastic=True)
    assert by_rank["1", "EE-R(normalize=false)"] == pytest.approx(0.5)  # a at rank 2: γ = 1/2
    assert by_score.value[0] == pytest.approx(1.0)  # a first by its score


# --------------------------------------------------------------------------- conventions
def test_single_grade_relevance_scores_one_as_expeval_or_the_ratio(tmp_path: Path) -> None:
    qrels = _write(tmp_path, "q", "1 0 a 1\n1 0 b 1\n1 0 c 0\n")
    run = _write(tmp_path, "r", "1 0 c 1 0 r\n1 0 a 2 0 r\n1 0 b 3 0 r\n")
    got = _values(qrels, run, ["EE-R", "EE-R(single_grade=ratio)"])
    assert got["1", "EE-R"] == 1.0
    # targets (1 − pp²)/(2(1 − pp)) = 5/8 each; exposures 1/2, 1/8 (c is not relevant: no (1 − u))
    te = (1 - 0.25**2) / (2 * 0.75)
    assert got["1", "EE-R(single_grade=ratio)"] == pytest.approx(te * (0.5 + 0.125) / (2 * te * te), abs=1e-15)


def test_topic_missing_from_the_run_scores_the_worst_values(tmp_path: Path) -> None:
    qrels = _write(tmp_path, "q", "1 0 a 1\n2 0 b 2\n2 0 c 1\n")
    run = _write(tmp_path, "r", "1 0 a 1 0 r\n")
    with pytest.warns(EvaluationWarning, match="missing from the run"):
        frame = evaluate(qrels, run, ["EE-L", "EE-D", "EE-R", "EE-L(normalize=false)"], stochastic=True)
    got = {(r.topic, r.measure): r.value for r in frame.itertuples()}
    assert (got["2", "EE-L"], got["2", "EE-D"], got["2", "EE-R"]) == (1.0, 1.0, 0.0)
    pp = 0.25
    norm = 1 + ((pp - pp**2) / (1 - pp)) ** 2  # ‖ε*‖²: grades 2 and 1
    assert got["2", "EE-L(normalize=false)"] == pytest.approx(norm + 1 / (1 - pp), abs=1e-15)


def test_topic_without_relevant_documents_is_scored_and_warned(tmp_path: Path) -> None:
    qrels = _write(tmp_path, "q", "1 0 a 1\n2 0 b 0\n")
    run = _write(tmp_path, "r", "1 0 a 1 0 r\n2 0 b 1 0 r\n2 0 x 2 0 r\n")
    groups = _write(tmp_path, "g", "a A\nb B\n")
    with pytest.warns(EvaluationWarning) as caught:
        frame = evaluate(qrels, run, ["EE-L", "EE-D", "EE-R", "nDCG*AWRF", "AWRF"], stochastic=True, groups=groups,
                         target="relevant")
    messages = " ".join(str(w.message) for w in caught)
    assert "no relevant documents" in messages and "no target group distribution" in messages
    got = {(r.topic, r.measure): r.value for r in frame.itertuples()}
    # ε* = 0: EE-L is the run's own exposure over the bound 1/(1 − γu); EE-R is 0
    raw = 1 + (0.5**2)
    assert got["2", "EE-L"] == pytest.approx(raw / (1 / (1 - 0.25)), abs=1e-15)
    assert got["2", "EE-R"] == 0.0 and got["2", "nDCG*AWRF"] == 0.0
    assert ("2", "AWRF") not in got  # no target distribution: undefined, left out of the mean
    excluded = _values(qrels, run, ["EE-L"], norel="exclude")
    assert ("2", "EE-L") not in excluded  # expeval leaves such topics out: --norel exclude


def test_awrf_with_a_group_without_documents_by_hand(tmp_path: Path) -> None:
    """Ranks 1, 2, 3 in groups A, B, A: attention 1, 1, 1/log2 3; target uniform over A, B, C
    (C has no document): AWRF = 1 − JS(p ‖ q), natural log."""
    qrels = _write(tmp_path, "q", "1 0 a 1\n1 0 b 1\n")
    run = _write(tmp_path, "r", "1 0 a 1 0 r\n1 0 b 2 0 r\n1 0 c 3 0 r\n")
    groups = _write(tmp_path, "g", "a A\nb B\nc A\nz C\n")
    got = _values(qrels, run, ["AWRF", "nDCG*AWRF"], groups=groups, per_group=True)
    a3 = float(np.float32(1) / np.log2(np.float32(3)))
    p = np.array([1 + a3, 1, 0]) / (2 + a3)
    q = np.full(3, 1 / 3)
    m = (p + q) / 2
    js = (sum(x * math.log(x / y) for x, y in zip(p, m) if x > 0) + sum(x * math.log(x / y) for x, y in zip(q, m))) / 2
    assert got["1", "AWRF"] == pytest.approx(1 - js, abs=1e-12)
    assert got["1", "nDCG*AWRF"] == pytest.approx(1 - js, abs=1e-12)  # both relevant documents on top: nDCG 1
    assert got["1", "exposure[group=C]"] == 0.0 and got["1", "exposure[group=C].ratio"] == 0.0
    assert got["1", "exposure[group=A]"] == pytest.approx(p[0])
    assert got["1", "exposure[group=A].ratio"] == pytest.approx(3 * p[0])


def test_documents_in_no_group_are_left_out_and_samples_without_any_are_skipped(tmp_path: Path) -> None:
    qrels = _write(tmp_path, "q", "1 0 a 1\n")
    run = _write(tmp_path, "r", "1 0 x 1 0 r\n1 0 a 2 0 r\n1 1 x 1 0 r\n")
    groups = _write(tmp_path, "g", "a A\nb B\n")
    target = _write(tmp_path, "t", "A 1\nB 0\n")
    got = _values(qrels, run, ["AWRF"], groups=groups, target=target)
    assert got["1", "AWRF"] == 1.0  # sample 0: all attention on A, the target; sample 1: undefined, skipped


def test_a_run_none_of_whose_documents_is_in_a_group(tmp_path: Path) -> None:
    """No ranked document in a group: every sample's AWRF is undefined, nDCG*AWRF too (the
    topic left out of the mean, which is NaN), and group-level EE sees no exposure at all."""
    qrels = _write(tmp_path, "q", "1 0 a 1\n")
    run = _write(tmp_path, "r", "1 0 x 1 0 r\n1 0 a 2 0 r\n1 1 a 1 0 r\n")
    groups = _write(tmp_path, "g", "b A\nc B\n")
    got = _values(qrels, run, ["AWRF", "nDCG*AWRF", "EE-D(level=group,normalize=false)"], groups=groups,
                  per_group=True)
    assert ("1", "AWRF") not in got and ("1", "nDCG*AWRF") not in got
    assert math.isnan(got["all", "AWRF"]) and math.isnan(got["all", "nDCG*AWRF"])
    assert got["1", "EE-D(level=group,normalize=false)"] == 0.0


def test_per_topic_target_file(tmp_path: Path) -> None:
    qrels = _write(tmp_path, "q", "1 0 a 1\n2 0 b 1\n")
    run = _write(tmp_path, "r", "1 0 a 1 0 r\n2 0 b 1 0 r\n")
    groups = _write(tmp_path, "g", "a A\nb B\n")
    target = _write(tmp_path, "t", "A 0.5\nB 0.5\n2 B 1\n")  # topic 2: its own; topic 1: the default lines
    got = _values(qrels, run, ["AWRF"], groups=groups, target=target)
    assert got["2", "AWRF"] == 1.0
    assert got["1", "AWRF"] == pytest.approx(1 - (0.5 * math.log(4 / 3) + 0.25 * math.log(2 / 3)
                                                  + 0.25 * math.log(2)), abs=1e-12)


def test_awrf_needs_groups(tmp_path: Path) -> None:
    qrels = _write(tmp_path, "q", "1 0 a 1\n")
    with pytest.raises(CranfieldError, match="need document groups"):
        Evaluator(qrels, ["AWRF", "EE-L(level=group)"])


# --------------------------------------------------------------------------- group level
@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 5), min_size=1, max_size=6), min_size=1, max_size=4),
       st.lists(st.integers(0, 2), min_size=6, max_size=6), st.sampled_from(["gerr", "rbp"]),
       st.floats(0.05, 0.95), st.floats(0.0, 1.0))
def test_group_level_values_stay_within_their_bounds(samples, grades, model, gamma, u) -> None:  # type: ignore[no-untyped-def]
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp)
        qrels = _write(path, "q", "".join(f"1 0 d{k} {g}\n" for k, g in enumerate(grades)))
        lines = [f"1 {s} d{d} {r} 0 r\n" for s, ranking in enumerate(samples)
                 for r, d in enumerate(dict.fromkeys(ranking), 1)]
        run = _write(path, "r", "".join(lines))
        groups = _write(path, "g", "d0 A\nd1 B\nd2 A\nd2 B\nd3 C\nd4 A 0.3\nd4 C 0.7\n")
        names = [f"EE-{x}(level=group,model={model},gamma={gamma},u={u})" for x in "LDR"]
        got = _values(qrels, run, names, groups=groups)
    for name in names:
        assert -1e-12 <= got["1", name] <= 1 + 1e-12, (name, got["1", name])


# --------------------------------------------------------------------------- input
def test_stochastic_reader_and_errors(tmp_path: Path) -> None:
    run = read_stochastic_run(_write(tmp_path, "r", "1 s1 a 1 0 t\n1 s2 b 1 0 t\n2 s1 c 1 0 t\n1 s1 b 2 0 t\n"),
                              order="rank")
    assert run.topic_ids == ("1", "2") and run.n_samples == 2
    first, second = run.samples()
    assert first.ranking("1") == ["a", "b"] and second.ranking("1") == ["b"] and second.topic_ids == ("1",)
    with pytest.raises(InputError, match=r"r2:2: rank 1 appears lines 1 and 2 for topic '1 \(sample 0\)'"):
        read_stochastic_run(_write(tmp_path, "r2", "1 0 a 1 0 t\n1 0 b 1 0 t\n"), order="rank")
    with pytest.raises(InputError, match=r"r3:2: document 'd1' appears lines 1 and 2 for topic '1 \(sample 0\)'"):
        read_stochastic_run(_write(tmp_path, "r3", "1 0 d1 1 0 t\n1 0 d1 2 0 t\n"))


def test_groups_and_targets(tmp_path: Path) -> None:
    groups = read_groups(_write(tmp_path, "g", "a X\nb X\nb Y\nc X 0.2\nc Y 0.8\n"))
    w = groups.matrix(np.array([b"b", b"zz", b"c", b"a"]))
    assert w.tolist() == [[0.5, 0.5], [0.0, 0.0], [0.2, 0.8], [1.0, 0.0]]
    for text, message in (("a X 0.5\na Y 0.6\n", r"g2:1: the weights of document 'a' sum to 1.1, not 1"),
                          ("a X 0.5\na Y\n", r"g2:\d: document 'a' has lines with and without a weight"),
                          ("a X\na X\n", r"g2:2: document 'a' is in group 'X' twice"),
                          ("a X 2\n", r"g2:1: the weight '2' must be a number in \[0, 1\]"),
                          ("a X one\n", r"g2:1: the weight 'one' is not a number")):
        with pytest.raises(InputError, match=message):
            read_groups(_write(tmp_path, "g2", text))
    target = read_target(_write(tmp_path, "t", "X 1\nY 3\n7 X 1\n"))
    assert target.weights == {None: {"X": 1.0, "Y": 3.0}, "7": {"X": 1.0}}
    with pytest.raises(InputError, match=r"t2:1: the weight '-1' must be a number >= 0"):
        read_target(_write(tmp_path, "t2", "X -1\n"))


def test_dataframe_with_a_sample_column() -> None:
    import pandas as pd

    frame = pd.DataFrame({"qid": ["1", "1", "1"], "sample": [0, 1, 1], "docno": ["a", "a", "b"],
                          "score": [1.0, 1.0, 2.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = evaluate({"1": {"a": 1, "b": 0}}, frame, ["EE-R(model=rbp,normalize=false)"], stochastic=True)
    assert got.value[0] == pytest.approx((1 + 0.5) / 2)  # a first in sample 0, second in sample 1


# --------------------------------------------------------------------------- command line
def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    from cranfield.cli.main import main

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_prints_rows_in_every_format(capsys: pytest.CaptureFixture[str]) -> None:
    files = fairness_files()
    base = ["eval", files["qrels"], *files["runs"], "--stochastic", "--groups", files["groups"]]
    measures = ["-m", "EE-L", "-m", "AWRF", "-m", "nDCG*AWRF"]
    code, csv, _ = _cli(capsys, *base, *measures, "--format", "csv", "--per-topic")
    assert code == 0 and csv.splitlines()[0] == "run,topic,measure,value" and "shuffled,2,nDCG*AWRF," in csv
    for fmt in ("table", "json", "trec"):
        code, out, err = _cli(capsys, *base, *measures, "--format", fmt)
        assert code == 0 and "EE-L" in out, (fmt, err)
    code, out, _ = _cli(capsys, *base, "-m", "AWRF", "--per-group", "--format", "csv")
    assert code == 0 and "fixed,1,exposure[group=A].ratio," in out
    code, _, err = _cli(capsys, *base[:4], "-m", "AWRF")
    assert code == 2 and err.strip() == ("cranfield: error: AWRF need document groups: --groups FILE (groups= in "
                                         "Python; docs/fairness.md)")


def test_permuted_samples_and_other_samples_give_the_same_values(tmp_path: Path) -> None:
    """Document codes come from the keys of one sample of each topic when every sample ranks
    those documents only, and from one sort of all keys otherwise: both give the same values."""
    files = fairness_files()
    run = Path(files["runs"][1]).read_text()
    other = _write(tmp_path, "other", run + "3 0 z1 1 0 shuffled\n3 1 z2 1 0 shuffled\n3 1 z1 2 0 shuffled\n")
    qrels = _write(tmp_path, "q", Path(files["qrels"]).read_text() + "3 0 z1 1\n")
    measures = ["EE-L", "EE-D(model=rbp)", "EE-R(level=group)", "AWRF", "nDCG*AWRF"]
    permuted = _values(qrels, files["runs"][1], measures, groups=files["groups"])
    mixed = _values(qrels, other, measures, groups=files["groups"])
    for topic in ("1", "2"):
        for m in measures:
            assert mixed[topic, m] == permuted[topic, m], (topic, m)


def test_equal_keys_of_different_documents_are_told_apart_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """Docnos of at most 8 bytes are their own keys; longer ones are hashed, and a 64-bit key
    collision (here: every document given the same key) must not merge documents: the codes
    are then taken from the docno strings. Either way, the values do not change."""
    import cranfield.evaluation.sampling as sampling

    files = fairness_files()
    measures = ["EE-L", "EE-D", "EE-R", "AWRF", "nDCG*AWRF"]
    expected = _values(files["qrels"], files["runs"][1], measures, groups=files["groups"])
    monkeypatch.setattr(sampling, "_exact_keys", lambda docno, rows: None)  # as if the docnos were longer
    assert _values(files["qrels"], files["runs"][1], measures, groups=files["groups"]) == expected
    codes = sampling._document_codes
    monkeypatch.setattr(sampling, "_document_codes", lambda topic, count, key, seed, doc_key:
                        codes(topic, count, np.zeros_like(key), seed, doc_key))
    assert _values(files["qrels"], files["runs"][1], measures, groups=files["groups"]) == expected


def test_report_shows_exposure_per_group_against_the_target() -> None:
    from cranfield.analysis.report_data import group_exposure
    from cranfield.render.report import Report

    files = fairness_files()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = Evaluator(files["qrels"], ["EE-L", "AWRF"], stochastic=True, groups=files["groups"],
                       target=files["target"])
        results = ev.evaluate(files["runs"], per_group=True)
        report = Report.from_evaluator(ev, files["runs"])
    shares, target = group_exposure(results)  # type: ignore[misc]
    assert target.tolist() == [0.5, 0.5] and np.allclose(shares.sum(axis=1), 1.0)
    # the mean of the two topics' shares
    assert shares[1, 0] == pytest.approx((results.group_values[1, 0, 0] + results.group_values[1, 1, 0]) / 2)
    assert 'id="group-exposure"' in report.to_html()


def test_report_reads_a_smaller_loss_as_better() -> None:
    from cranfield.evaluation.evaluator import Results
    from cranfield.render.report import Report

    rng = np.random.default_rng(3)
    low = rng.uniform(0.0, 0.1, 30)
    values = np.stack([np.stack([low, 1 - low]), np.stack([low + 0.3, 0.6 - low])])  # (S=2, M=2, T=30)
    results = Results(["small", "large"], ["EE-L", "EE-R"], [str(t) for t in range(30)], values, ["mean", "mean"], {},
                      measure_specs=[parse_measure("EE-L"), parse_measure("EE-R")])
    report = Report.from_results(results)
    marks = report.markers()
    assert marks[0][0] == ["b"] and marks[1][0] == []  # EE-L: run a (smaller loss) is better than b
    assert marks[0][1] == ["b"]  # EE-R: run a (larger) is better too
    assert report.best()[:, 0].tolist() == [True, False]
