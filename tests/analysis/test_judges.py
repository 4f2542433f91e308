"""`cranfield judges` and cranfield.compare_judges: labels against scikit-learn on an independent
join (pandas), leaderboards against scipy on separately evaluated runs, the topic rules, diversity
units, --fill, every format, errors, and --workers giving the same bytes."""

from __future__ import annotations

import gzip
import io
import json
import warnings
import zlib

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import cranfield
from conftest import DATA
from cranfield import CranfieldError, EvaluationWarning
from cranfield.analysis.judges import COLUMNS, compare_judges
from cranfield.cli.main import main

metrics = pytest.importorskip("sklearn.metrics")

QRELS = DATA / "robust03" / "qrels.txt.gz"
RUNS = [str(p) for p in sorted((DATA / "robust03").glob("input.*"))]
DIV_QRELS = DATA / "web2012" / "qrels-for-ndeval.txt.gz"


def _read(path) -> pd.DataFrame:
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as f:
        return pd.read_csv(f, sep=r"\s+", header=None, names=["qid", "iter", "docno", "rel"],
                           dtype={"qid": str, "iter": str, "docno": str})


def synthetic_judge(frame: pd.DataFrame, drop_topic: str | None = None) -> pd.DataFrame:
    """A second judge derived deterministically from the reference (docs/judges.md): u = crc32(docno)
    / 2**32; u < 0.15 one grade up (at most 2), u < 0.30 one grade down (at least 0), u >= 0.95 not
    judged; the rest as the reference."""
    u = np.array([zlib.crc32(d.encode()) for d in frame["docno"]]) / 2**32
    rel = frame["rel"].to_numpy()
    out = frame.assign(rel=np.where(u < 0.15, np.minimum(rel + 1, 2), np.where(u < 0.30, np.maximum(rel - 1, 0), rel)))
    out = out[u < 0.95]
    return out[out["qid"] != drop_topic] if drop_topic else out


def _write(frame: pd.DataFrame, path) -> str:
    frame.to_csv(path, sep=" ", header=False, index=False)
    return str(path)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("judges")
    ref = _read(QRELS)
    topics = sorted(ref["qid"].unique())
    judge = synthetic_judge(ref, drop_topic=topics[0])
    return {"ref": ref, "judge": judge, "judge_path": _write(judge, root / "llm.qrels"), "missing": topics[0]}


def _quiet(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvaluationWarning)
        return compare_judges(*args, **kwargs)


def test_labels_agree_with_scikit_learn_on_an_independent_join(files):
    r = _quiet(str(QRELS), {"llm": files["judge_path"]})
    frame = r.to_frame()
    assert list(frame.columns) == list(COLUMNS)
    both = files["ref"].merge(files["judge"], on=["qid", "docno"], suffixes=("_r", "_j"))
    value = frame[(frame.topic == "all") & (frame.part == "labels")].set_index("statistic")["value"]
    assert value["n_both"] == len(both)
    assert value["n_reference_only"] == len(files["ref"]) - len(both)
    assert value["n_judge_only"] == 0
    x, y = both["rel_r"].to_numpy(), both["rel_j"].to_numpy()
    assert value["agreement"] == pytest.approx(np.mean(x == y))
    assert value["kappa(rel=1)"] == pytest.approx(metrics.cohen_kappa_score(x >= 1, y >= 1))
    assert value["weighted_kappa(quadratic)"] == pytest.approx(
        metrics.cohen_kappa_score(x, y, weights="quadratic", labels=[0, 1, 2]))
    one = both[both["qid"] == "601"]
    per_topic = frame[(frame.topic == "601") & (frame.statistic == "weighted_kappa(linear)")]["value"].item()
    assert per_topic == pytest.approx(metrics.cohen_kappa_score(one["rel_r"], one["rel_j"], weights="linear",
                                                                labels=[0, 1, 2]))
    assert frame[frame.part == "labels"]["measure"].isna().all()


def test_leaderboards_agree_with_scipy_on_separate_evaluations(files):
    with pytest.warns(EvaluationWarning, match=f"judge llm has no judgments for topics {files['missing']} "):
        r = compare_judges(str(QRELS), {"llm": files["judge_path"]}, RUNS, ["AP", "P@10"], bootstrap_resamples=200)
    frame = r.to_frame()
    for measure in ("AP", "P@10"):
        ref = cranfield.Evaluator(str(QRELS), [measure]).evaluate(RUNS)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", EvaluationWarning)
            jud = cranfield.Evaluator(files["judge_path"], [measure]).evaluate(RUNS)
        keep = [ref.topics.index(t) for t in jud.topics]
        rm = np.asarray(ref.values)[:, 0, keep].mean(axis=1)
        jm = np.asarray(jud.values)[:, 0, :].mean(axis=1)
        got = frame[(frame.measure == measure) & (frame.part == "leaderboard")].set_index("statistic")["value"]
        assert got["tau_b"] == pytest.approx(stats.kendalltau(rm, jm).statistic, abs=1e-12)
        assert got["pearson"] == pytest.approx(stats.pearsonr(rm, jm).statistic, abs=1e-6)
        assert got["bias"] == pytest.approx(np.mean(jm - rm), abs=1e-7)
        assert got["tau_b[low]"] <= got["tau_b[high]"]
        sig = frame[(frame.measure == measure) & (frame.part == "significance")].set_index("statistic")["value"]
        assert sig[["both_same", "reference_only", "judge_only", "neither", "swaps"]].sum() == 6


def test_topics_reference_scores_missing_topics_zero(files):
    with pytest.warns(EvaluationWarning, match="scored 0 for every run"):
        r = compare_judges(str(QRELS), {"llm": files["judge_path"]}, RUNS, ["P@10"], topics="reference",
                           bootstrap_resamples=0)
    lb = r.leaderboards["llm", "P@10"]
    assert lb.reference_means.shape == (4,)


def test_a_judge_that_labels_everything_relevant(files, tmp_path):
    """p_o = p_e = the reference's share of relevant documents: κ = 0 on every topic and pooled."""
    path = _write(files["ref"].assign(rel=1), tmp_path / "yes.qrels")
    r = _quiet(str(QRELS), [path], rel=1)
    kappa = r.labels["yes.qrels"].statistics["kappa(rel=1)"]
    np.testing.assert_allclose(kappa, 0.0, atol=1e-12)
    assert r.labels["yes.qrels"].thresholds.tolist() == [1.0]


def test_no_common_documents_is_an_error(capsys, tmp_path):
    other = _write(pd.DataFrame({"qid": ["601"], "iter": ["0"], "docno": ["nowhere"], "rel": [1]}), tmp_path / "x")
    with pytest.raises(CranfieldError, match="judge x and the reference qrels.txt.gz have no judged document"):
        compare_judges(str(QRELS), [other])
    code, _, err = run_cli(capsys, "judges", QRELS, other)
    assert code == 2 and err == ("cranfield: error: judge x and the reference qrels.txt.gz have no judged document in "
                                 "common (same topic and document): nothing to compare\n")


def test_diversity_units_are_intent_document_pairs(tmp_path):
    ref = pd.read_csv(DIV_QRELS, sep=r"\s+", header=None, names=["qid", "intent", "docno", "rel"],
                      dtype={"qid": str, "intent": str, "docno": str})
    judge = synthetic_judge(ref.rename(columns={"intent": "iter"})).rename(columns={"iter": "intent"})
    path = _write(judge, tmp_path / "div.qrels")
    r = _quiet(str(DIV_QRELS), {"j": path}, diversity=True)
    both = ref.merge(judge, on=["qid", "intent", "docno"])
    assert r.labels["j"].n_both[-1] == len(both)
    assert r.labels["j"].n_reference_only[-1] == len(ref) - len(both)


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow
def test_cli_formats(capsys, files, tmp_path):
    args = [QRELS, f"llm={files['judge_path']}", "--runs", *RUNS, "-m", "P@10", "--ci-B", "50"]
    code, table, err = run_cli(capsys, "judges", *args)
    assert code == 0 and "## llm: labels" in table and "## llm: significance" in table
    assert f"no judgments for topics {files['missing']}" in err
    code, text, _ = run_cli(capsys, "judges", *args, "--format", "csv")
    frame = pd.read_csv(io.StringIO(text), dtype={"topic": str})
    assert list(frame.columns) == list(COLUMNS)
    code, text, _ = run_cli(capsys, "judges", *args, "--format", "json")
    rows = json.loads(text)
    assert len(rows) == len(frame) and set(rows[0]) == set(COLUMNS)
    pytest.importorskip("pyarrow")
    out = tmp_path / "j.parquet"
    assert run_cli(capsys, "judges", *args, "--format", "parquet", "-o", out)[0] == 0
    back = pd.read_parquet(out)
    assert len(back) == len(frame)
    np.testing.assert_allclose(back["value"].to_numpy(float), frame["value"].to_numpy(float), equal_nan=True)


def test_cli_fill_writes_layered_qrels(capsys, tmp_path):
    judge = _write(pd.DataFrame({"qid": ["601", "601"], "iter": ["0", "0"], "docno": ["FBIS3-10291", "new-doc"],
                                 "rel": [0, 2]}), tmp_path / "llm.qrels")
    filled = tmp_path / "filled.qrels"
    code, _, _ = run_cli(capsys, "judges", QRELS, judge, "--fill", filled)
    assert code == 0
    lines = filled.read_text().splitlines()
    assert len(lines) == len(_read(QRELS)) + 1
    assert lines[-1] == "601 0 new-doc 2 llm.qrels"  # the source of each label, fifth column


def test_cli_errors_are_one_line(capsys, tmp_path):
    code, _, err = run_cli(capsys, "judges", QRELS, QRELS, "--format", "parquet")
    assert code == 2 and err.count("\n") == 1 and "give it with -o FILE" in err
    code, _, err = run_cli(capsys, "judges", QRELS, f"a={QRELS}", f"a={QRELS}")
    assert code == 2 and "two judges are named 'a'" in err
    code, _, err = run_cli(capsys, "judges", QRELS, f"a={QRELS}", f"b={QRELS}", "--fill", tmp_path / "f.qrels")
    assert code == 2 and "{judge}" in err


@pytest.mark.slow
def test_workers_give_the_same_bytes(capsys, files):
    pytest.importorskip("distributed")
    args = ["judges", QRELS, files["judge_path"], "--runs", *RUNS, "-m", "AP", "--ci-B", "100",
            "--test", "bootstrap", "--B", "200", "--format", "csv"]
    _, here, _ = run_cli(capsys, *args)
    _, there, _ = run_cli(capsys, *args, "--workers", "2")
    assert here == there
