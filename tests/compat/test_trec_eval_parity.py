"""cranfield agrees with trec_eval (pytrec-eval-terrier) to 1e-9 per topic.

Real data: TREC 2003 Robust (graded 0/1/2, four runs, one with many tied scores) and TREC 2012
Web (labels -2..4, spam-filtered baselines). Random data: 200 seeded qrels/run pairs with ties
(including doubles that only tie as float32), truncated rankings, unjudged documents,
duplicates under on_duplicate="first", negative labels, and topics missing on either side.
"""

from __future__ import annotations

import importlib.metadata
import math
import warnings

import numpy as np
import pytest

import cranfield
from conftest import DATA, qrels_dict, run_dict

pytrec_eval = pytest.importorskip("pytrec_eval")
PYTREC_VERSION = importlib.metadata.version("pytrec-eval-terrier")  # 0.5.x bundles trec_eval 9.0.x

# trec_eval measure -> cranfield measure
MEASURES = {
    "map": "AP", "map_cut_5": "AP@5", "map_cut_100": "AP@100",
    "P_5": "P@5", "P_10": "P@10", "P_100": "P@100",
    "recall_5": "R@5", "recall_100": "R@100",
    "ndcg": "nDCG", "ndcg_cut_5": "nDCG@5", "ndcg_cut_10": "nDCG@10", "ndcg_cut_100": "nDCG@100",
    "recip_rank": "RR", "Rprec": "Rprec", "set_F": "F",
    "num_ret": "NumRet", "num_rel": "NumRel", "num_rel_ret": "NumRelRet",
    "success_1": "Success@1", "success_5": "Success@5", "success_10": "Success@10", "bpref": "Bpref",
    "set_P": "SetP", "set_recall": "SetR", "set_map": "SetAP", "11pt_avg": "11pt", "num_q": "NumQ",
    "infAP": "infAP", "relative_P_5": "relative_P@5", "relative_P_100": "relative_P@100",
    "set_relative_P": "set_relative_P", "num_nonrel_judged_ret": "num_nonrel_judged_ret", "utility": "utility",
    "binG": "binG", "G": "G", "ndcg_rel": "ndcg_rel", "Rndcg": "Rndcg",
    **{f"iprec_at_recall_{r:.2f}": f"IPrec@{r:.1f}" for r in (0.0, 0.1, 0.3, 0.5, 0.8, 1.0)},
    **{f"Rprec_mult_{m:.2f}": f"Rprec(mult={m:.2f})" for m in (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)},
}
TREC_SET = {"map", "map_cut", "P", "recall", "ndcg", "ndcg_cut", "recip_rank", "Rprec", "set_F",
            "num_ret", "num_rel", "num_rel_ret", "success", "bpref", "set_P", "set_recall", "set_map",
            "11pt_avg", "iprec_at_recall", "num_q", "Rprec_mult", "infAP", "relative_P", "set_relative_P",
            "num_nonrel_judged_ret", "utility", "binG", "G", "ndcg_rel", "Rndcg"}


def reference(qrels: dict, run: dict, relevance_level: int = 1) -> dict:
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, TREC_SET, relevance_level=relevance_level)
    return evaluator.evaluate(run)


def compare(qrels_path, run_path, qrels: dict, run: dict, *, rel: int = 1) -> int:
    """Assert per-topic agreement; return the number of values compared."""
    ref = reference(qrels, run, rel)
    names = {k: (v if rel == 1 or v in ("NumRet", "NumQ") else _with_rel(v, rel)) for k, v in MEASURES.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cranfield.EvaluationWarning)
        df = cranfield.evaluate(
            qrels_path, run_path, list(names.values()), missing="skip", on_duplicate="first",
        )
    got = {(r.topic, r.measure): r.value for r in df.itertuples() if r.topic != "all"}
    assert {t for t, _ in got} == set(ref), "evaluated topics differ from trec_eval's"
    n = 0
    for topic, values in ref.items():
        for trec_name, ours in names.items():
            assert got[(topic, ours)] == pytest.approx(values[trec_name], abs=1e-9, rel=0), (topic, trec_name)
            n += 1
    return n


def _with_rel(name: str, rel: int) -> str:
    base, _, cut = name.partition("@")
    if base in ("nDCG", "G", "ndcg_rel"):
        return name  # graded: the threshold does not apply
    if base.endswith(")"):
        return f"{base[:-1]},rel={rel})" + (f"@{cut}" if cut else "")
    return f"{base}(rel={rel})" + (f"@{cut}" if cut else "")


ROBUST_RUNS = sorted((DATA / "robust03").glob("input.*.gz"))


@pytest.mark.parametrize("run_path", ROBUST_RUNS, ids=lambda p: p.name)
def test_robust03_runs(run_path):
    qrels_path = DATA / "robust03" / "qrels.txt.gz"
    assert compare(qrels_path, run_path, qrels_dict(qrels_path), run_dict(run_path)) > 1000


@pytest.mark.parametrize("rel", [2])
def test_robust03_relevance_level(rel):
    qrels_path, run_path = DATA / "robust03" / "qrels.txt.gz", ROBUST_RUNS[0]
    assert compare(qrels_path, run_path, qrels_dict(qrels_path), run_dict(run_path), rel=rel) > 1000


@pytest.mark.parametrize("name", ["ql-filtered.run.gz", "rm-filtered.run.gz"])
def test_web2012_spam_labels(name):
    qrels_path, run_path = DATA / "web2012" / "qrels.adhoc.txt", DATA / "web2012" / name
    assert compare(qrels_path, run_path, qrels_dict(qrels_path), run_dict(run_path)) > 500


def test_ir_measures_compat_fixture():
    qrels_path, run_path = DATA / "tiny" / "ir_measures-compat.qrels", DATA / "tiny" / "ir_measures-compat.run"
    assert compare(qrels_path, run_path, qrels_dict(qrels_path), run_dict(run_path)) > 10


# --------------------------------------------------------------------------- random cases
def random_case(seed: int):
    """Text of a qrels file and a run file, plus the oracle's dicts."""
    rng = np.random.default_rng(seed)
    n_topics = int(rng.integers(1, 6))
    qrels_lines, run_lines = [], []
    qrels: dict = {}
    run: dict = {}
    for t in range(n_topics + 2):
        qid = f"{100 + t}" if rng.random() < 0.7 else f"q{t}_x"
        pool = [f"doc-{seed}-{k:03d}" for k in range(int(rng.integers(1, 40)))]
        in_qrels = t < n_topics or t == 1 or rng.random() < 0.3  # topic 1 is on both sides
        in_run = t >= 1 or rng.random() < 0.5
        if in_qrels:
            judged = rng.choice(pool, size=int(rng.integers(1, len(pool) + 1)), replace=False)
            for k, d in enumerate(judged):
                label = int(rng.choice([-2, 0, 0, 1, 1, 2, 3]))
                if k == 0 and label < 0:
                    # trec_eval 9.0.x (pytrec_eval) crashes on a topic whose every label is
                    # negative; test_only_negative_labels covers that case by hand instead
                    label = 0
                qrels_lines.append(f"{qid} 0 {d} {label}")
                qrels.setdefault(qid, {})[d] = label
        if in_run:
            n = int(rng.integers(1, len(pool) + 1))
            docs = list(rng.choice(pool + [f"unj-{k}" for k in range(10)], size=n, replace=False))
            if rng.random() < 0.3 and docs:
                docs.insert(int(rng.integers(0, len(docs))), docs[0])  # a duplicate: first one kept
            scale = float(rng.choice([1.0, 1e-9]))
            for rank, d in enumerate(docs):
                score = round(float(rng.integers(0, 6)) * 0.25, 2) if rng.random() < 0.5 else float(rng.random())
                if rng.random() < 0.1:
                    score = 0.5 + 1e-12 * rank  # distinct doubles, equal as float32
                score *= scale
                run_lines.append(f"{qid} Q0 {d} {rank} {score!r} tag{seed}")
    rng.shuffle(run_lines)
    for line in run_lines:  # the oracle keeps the first line of a repeated document, as cranfield does
        qid, _, d, _, score, _ = line.split()
        run.setdefault(qid, {}).setdefault(d, float(score))
    return "\n".join(qrels_lines) + "\n", "\n".join(run_lines) + "\n", qrels, run


@pytest.mark.parametrize("seed", range(200))
def test_random_case(seed, write):
    qrels_text, run_text, qrels, run = random_case(seed)
    qrels_path = write("q.txt", qrels_text)
    run_path = write("r.txt", run_text)
    compare(qrels_path, run_path, qrels, run)
    compare(qrels_path, run_path, qrels, run, rel=2)


def test_only_negative_labels(write):
    """A topic judged only with negative labels has no relevant document: every measure is 0
    (trec_eval itself crashes on it, so this is checked by hand)."""
    qrels = write("q.txt", "1 0 a -2\n1 0 b -1\n2 0 a 1\n")
    run = write("r.txt", "1 Q0 a 1 2.0 t\n1 Q0 c 2 1.0 t\n2 Q0 a 1 1.0 t\n")
    with pytest.warns(cranfield.EvaluationWarning, match="no relevant documents"):
        df = cranfield.evaluate(qrels, run, list(MEASURES.values()))
    one = df[df.topic == "1"].set_index("measure").value
    assert one["NumRet"] == 2 and one["NumRel"] == 0 and one["NumQ"] == 1
    assert one["utility"] == -2  # two non-relevant documents retrieved, worth -1 each
    assert (one.drop(["NumRet", "NumQ", "utility"]) == 0).all()


def test_random_cases_cover_the_hard_parts():
    """The generator really produces ties, float32-only ties, duplicates and missing topics."""
    ties = f32 = dups = missing = 0
    for seed in range(200):
        _, run_text, qrels, run = random_case(seed)
        lines = [line.split() for line in run_text.split("\n") if line]
        pairs = [(q, d) for q, _, d, _, _, _ in lines]
        dups += len(pairs) != len(set(pairs))
        scores = [(q, float(s)) for q, _, _, _, s, _ in lines]
        ties += len(scores) != len(set(scores))
        f32 += len({(q, np.float32(s)) for q, s in scores}) < len(set(scores))
        missing += bool(set(qrels) - set(run))
    assert min(ties, f32, dups, missing) >= 10, (ties, f32, dups, missing)


# --------------------------------------------------------------------------- trec_eval options
OPTION_MEASURES = {"map": "AP", "P_5": "P@5", "P_10": "P@10", "ndcg": "nDCG", "ndcg_cut_10": "nDCG@10",
                   "recip_rank": "RR", "bpref": "Bpref", "num_ret": "NumRet", "num_rel_ret": "NumRelRet",
                   "Rprec": "Rprec"}


def _options_case(qrels: dict, run: dict, qrels_path, run_path, *, judged_only=False, depth=None):
    ranked = {q: dict(sorted(d.items(), key=lambda x: (-np.float32(x[1]), [-b for b in x[0].encode()])))
              for q, d in run.items()}
    if depth is not None:
        ranked = {q: dict(list(d.items())[:depth]) for q, d in ranked.items()}
    ref = pytrec_eval.RelevanceEvaluator(qrels, set(OPTION_MEASURES),
                                         judged_docs_only_flag=judged_only).evaluate(ranked)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = cranfield.Evaluator(qrels_path, list(OPTION_MEASURES.values()), missing="skip", depth=depth,
                                  judged_only=judged_only).evaluate([run_path], on_duplicate="first")
    got = {(t, m): v for t_i, t in enumerate(res.topics) for m_i, m in enumerate(res.measures)
           if not np.isnan(v := res.values[0, m_i, t_i])}
    for topic, values in ref.items():
        for trec, ours in OPTION_MEASURES.items():
            assert got[(topic, ours)] == pytest.approx(values[trec], abs=1e-9), (topic, trec)


@pytest.mark.parametrize("judged_only, depth", [(True, None), (False, 10), (True, 25)])
def test_options_on_real_runs(judged_only, depth):
    qrels_path, run_path = DATA / "web2012" / "qrels.adhoc.txt", DATA / "web2012" / "ql-filtered.run.gz"
    _options_case(qrels_dict(qrels_path), run_dict(run_path), qrels_path, run_path,
                  judged_only=judged_only, depth=depth)


@pytest.mark.parametrize("seed", range(0, 200, 4))
def test_options_on_random_cases(seed, write):
    qrels_text, run_text, qrels, run = random_case(seed)
    qrels_path, run_path = write("q.txt", qrels_text), write("r.txt", run_text)
    _options_case(qrels, run, qrels_path, run_path, judged_only=True)
    _options_case(qrels, run, qrels_path, run_path, depth=3)


def test_trec_eval_names(capsys):
    from cranfield.cli.main import main

    qrels_path, run_path = DATA / "web2012" / "qrels.adhoc.txt", DATA / "web2012" / "ql-filtered.run.gz"
    assert main(["eval", str(qrels_path), str(run_path), "-m", "map", "-m", "P.5,10", "-m", "ndcg_cut.10",
                 "-m", "iprec_at_recall", "--format", "json", "-q", "-c", "-l", "2"]) == 0
    import json

    rows = json.loads(capsys.readouterr().out)
    labels = list(dict.fromkeys(r["measure"] for r in rows))
    assert labels[:4] == ["map", "P_5", "P_10", "ndcg_cut_10"] and "iprec_at_recall_0.50" in labels
    ref = pytrec_eval.RelevanceEvaluator(qrels_dict(qrels_path), {"map", "P_10"}, relevance_level=2).evaluate(
        run_dict(run_path))
    got = {(r["topic"], r["measure"]): r["value"] for r in rows}
    for topic, values in ref.items():
        assert got[(topic, "map")] == pytest.approx(values["map"], abs=1e-9)
        assert got[(topic, "P_10")] == pytest.approx(values["P_10"], abs=1e-9)


def test_gm_map_is_the_geometric_average_of_ap():
    """trec_eval's gm_map: exp(mean(log(max(AP, 1e-5)))) over topics (pytrec_eval reports the logs)."""
    qrels_path, run_path = DATA / "robust03" / "qrels.txt.gz", DATA / "robust03" / "input.NLPR03vb10.gz"
    ref = pytrec_eval.RelevanceEvaluator(qrels_dict(qrels_path), {"gm_map"}).evaluate(run_dict(run_path))
    expected = math.exp(np.mean([v["gm_map"] for v in ref.values()]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = cranfield.evaluate(qrels_path, run_path, ["AP"], missing="skip", average="geom", per_topic=False)
    assert df.value.iloc[0] == pytest.approx(expected, abs=1e-12)
    assert any(v["gm_map"] == pytest.approx(math.log(1e-5)) for v in ref.values())  # a topic with AP = 0


@pytest.mark.parametrize("pairs", ["1=3,2=7", "1=5,2=1", "2=10"])
def test_custom_ndcg_gains(capsys, pairs):
    """trec_eval ``-m ndcg.1=3,2=7``: listed levels take the given gain, the others keep gain =
    level, the ideal list is sorted by gain. pytrec_eval cannot take gain pairs, so its oracle
    is trec_eval's ``ndcg`` on qrels relabelled with the (integer) gains, as ir_measures does."""
    from cranfield.cli.main import main

    qrels_path, run_path = DATA / "web2012" / "qrels.adhoc.txt", DATA / "web2012" / "rm-filtered.run.gz"
    gains = {int(k): int(v) for k, v in (p.split("=") for p in pairs.split(","))}
    qrels = qrels_dict(qrels_path)
    relabelled = {q: {d: gains.get(r, r) for d, r in docs.items()} for q, docs in qrels.items()}
    ref = pytrec_eval.RelevanceEvaluator(relabelled, {"ndcg"}).evaluate(run_dict(run_path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["eval", str(qrels_path), str(run_path), "-m", f"ndcg.{pairs}", "--format", "json", "-q",
                     "--missing", "skip"]) == 0
    import json

    rows = json.loads(capsys.readouterr().out)
    assert {r["measure"] for r in rows} == {f"ndcg_{pairs}"}
    got = {r["topic"]: r["value"] for r in rows if r["topic"] != "all"}
    assert set(got) == set(ref)
    for topic, values in ref.items():
        assert got[topic] == pytest.approx(values["ndcg"], abs=1e-9), topic
