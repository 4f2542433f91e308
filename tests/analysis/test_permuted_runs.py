"""Golbus, Aslam & Clarke, Inf. Retr. 2013, §7.1 and Figure 6: artificial runs that permute each
topic's relevant documents, and the discriminative power of measures over them
(cranfield.analysis.permuted, ``cranfield collection QRELS --permuted N``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import cranfield
from cranfield.analysis.permuted import permuted_labels, permuted_power
from cranfield.cli.main import main
from cranfield.evaluation.collection import load_collection
from cranfield.meta.power import discriminative_power

# topic 1: x {d1, d3}, y {d2}; topic 2: x {d4}, y {d5, d6}, z {d6}; topic 3: nothing relevant
QRELS = {"1": {"x": {"d1": 1, "d3": 1}, "y": {"d2": 1}},
         "2": {"x": {"d4": 1, "d7": 0}, "y": {"d5": 1, "d6": 1}, "z": {"d6": 1}},
         "3": {"x": {"d8": 0}}}
RELEVANT = {"1": ["d1", "d2", "d3"], "2": ["d4", "d5", "d6"]}
pytestmark = pytest.mark.filterwarnings("ignore:.*intents without relevant documents are dropped")


def hand_runs(n: int, seed: int) -> list[dict[str, dict[str, float]]]:
    """The documented draws, written out: topic by topic, keys = rng.random((n, R_t)), run j ranks the
    relevant documents (docno descending) in the order argsort(keys[j])."""
    rng = np.random.default_rng(seed)
    runs: list[dict[str, dict[str, float]]] = [{} for _ in range(n)]
    for topic in ("1", "2"):
        docs = sorted(RELEVANT[topic], reverse=True)
        keys = rng.random((n, len(docs)))
        for j in range(n):
            order = np.argsort(keys[j], kind="stable")
            runs[j][topic] = {docs[i]: float(len(docs) - r) for r, i in enumerate(order)}
    return runs


def test_every_run_is_a_permutation_of_the_relevant_documents():
    topics = load_collection(QRELS).topics
    labels, length = permuted_labels(topics, 7, seed=3)
    assert labels.shape[:2] == (7, 3) and length.tolist() == [[3, 3, 0]] * 7
    for t in range(2):
        wanted = sorted(map(tuple, topics.rel_docs[t][(topics.rel_docs[t] > 0).any(axis=1)].tolist()))
        for j in range(7):
            assert sorted(map(tuple, labels[j, t, :3].tolist())) == wanted
    assert not labels[:, 2].any()
    again, _ = permuted_labels(topics, 7, seed=3)
    assert np.array_equal(labels, again) and not np.array_equal(labels, permuted_labels(topics, 7, seed=4)[0])


@pytest.mark.filterwarnings("ignore:1 topics without relevant documents", "ignore:.*qrels topics are missing")
def test_scores_equal_the_hand_written_runs_scored_by_evaluate():
    """The artificial runs, rebuilt from the documented draws and scored by cranfield.evaluate (the
    ordinary run path), give the same per-topic scores."""
    measures = ["alpha-nDCG@2", "StRecall@1", "ERR-IA@3", "P@3"]
    res = permuted_power(QRELS, measures, n_runs=6, seed=11)
    assert res.topics == ["1", "2"] and res.measures == measures
    for j, run in enumerate(hand_runs(6, 11)):
        ev = cranfield.Evaluator(QRELS, measures).evaluate(run)
        assert np.allclose(res.scores[:, j, :], ev.values[0][:, :2], atol=1e-12)
    assert (res.scores[3] == 1.0).all()  # perfect combined precision: P@R_t = 1 for every run and topic


def test_runs_that_cannot_differ_are_never_significant():
    """Topic 1: any two of its three documents cover both intents (S-recall@2 = 1); topic 2: d6 covers
    y and z, d4 x, d5 y: S-recall@2 is 2/3 or 1 — runs differ only on topic 2. S-recall@3 = 1 always."""
    with pytest.warns(cranfield.EvaluationWarning, match="1 topics without relevant documents .* left out: 3"):
        res = permuted_power(QRELS, ["StRecall@3"], n_runs=10, seed=0)
    dp = res.powers[0]
    assert (res.scores[0] == 1.0).all() and dp.n_pairs == 45 and dp.n_significant == 0 and dp.power == 0.0
    assert res.to_dict()["rows"][0]["pairs"] == 45 and res.to_frame().loc[0, "power"] == 0.0


@pytest.mark.filterwarnings("ignore:1 topics without relevant documents")
def test_power_is_discriminative_power_of_the_score_matrix():
    res = permuted_power(QRELS, ["alpha-nDCG@2"], n_runs=8, seed=5, n_resamples=200)
    direct = discriminative_power(res.scores[0].T, n_resamples=200, rng=5)
    assert res.powers[0].n_significant == direct.n_significant
    assert np.array_equal(res.powers[0].asl, direct.asl)


@pytest.mark.filterwarnings("ignore:1 topics without relevant documents")
def test_cli(tmp_path, capsys):
    path = tmp_path / "q.txt"
    path.write_text("".join(f"{t} {i} {d} {r}\n" for t, intents in QRELS.items() for i, docs in intents.items()
                            for d, r in docs.items()))
    assert main(["collection", str(path), "--diversity", "--permuted", "6", "-m", "StRecall@3,alpha-nDCG@2",
                 "--seed", "11", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["runs"] == 6 and doc["topics"] == 2 and [r["measure"] for r in doc["rows"]] == ["StRecall@3",
                                                                                              "alpha-nDCG@2"]
    expected = permuted_power(QRELS, ["alpha-nDCG@2"], n_runs=6, seed=11).scores[0].mean()
    assert doc["rows"][1]["mean"] == pytest.approx(expected) and doc["rows"][0]["significant"] == 0
    assert main(["collection", str(path), "--permuted", "6", "-m", "StRecall@3", "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert "measure,mean,sd_runs,test,n_resamples,pairs,significant,power" in out
    assert main(["collection", str(path), "--permuted", "6", "-m", "StRecall@3"]) == 0
    assert "Figure 6" in capsys.readouterr().out
    for argv, message in [(["--permuted", "1", "-m", "P@3"], "--permuted"),
                          (["--permuted", "5"], "give the measures with -m"),
                          (["-m", "P@3"], "-m goes with runs"),
                          ([str(path), "--permuted", "5", "-m", "P@3"], "not both"),
                          (["--permuted", "5", "-m", "P@3", "--alpha", "2"], "--alpha")]:
        assert main(["collection", str(path), *argv]) == 2
        assert message in capsys.readouterr().err
