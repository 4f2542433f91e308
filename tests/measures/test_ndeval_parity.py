"""cranfield's ndeval family agrees with ndeval 4.5 (through pyndeval) to 1e-6 per topic.

Real data: TREC 2012 Web diversity qrels with the organisers' baseline runs, and TREC 2009 and
2013 diversity qrels (intent 0 as an ordinary intent; single-facet topics) with seeded runs
drawn from their pools. Random data: 200 cases with graded per-intent labels, documents
relevant to several intents, intents without relevant documents, truncated rankings, ties and
topics missing from the run.

Oracle caveat (docs/conventions.md#ndeval): pyndeval sorts by score with ties broken by docno *ascending*, so it is
fed runs whose scores already encode cranfield's (trec_eval's) order.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import cranfield
from conftest import DATA, read_text
from cranfield.io.examples import example_files

pyndeval = pytest.importorskip("pyndeval")

MEASURES = {
    "ERR-IA@5": "ERR_IA@5", "ERR-IA@10": "ERR_IA@10", "ERR-IA@20": "ERR_IA@20",
    "nERR-IA@5": "nERR_IA@5", "nERR-IA@10": "nERR_IA@10", "nERR-IA@20": "nERR_IA@20",
    "alpha-DCG@5": "alpha_DCG@5", "alpha-DCG@10": "alpha_DCG@10", "alpha-DCG@20": "alpha_DCG@20",
    "alpha-nDCG@5": "alpha_nDCG@5", "alpha-nDCG@10": "alpha_nDCG@10", "alpha-nDCG@20": "alpha_nDCG@20",
    "NRBP": "NRBP", "nNRBP": "nNRBP", "MAP-IA": "AP_IA",
    "P-IA@5": "P_IA@5", "P-IA@10": "P_IA@10", "P-IA@20": "P_IA@20",
    "strec@5": "StRecall@5", "strec@10": "StRecall@10", "strec@20": "StRecall@20",
    "ERR-IA@1": "ERR_IA@1", "alpha-DCG@1": "alpha_DCG@1", "alpha-nDCG@1": "alpha_nDCG@1", "P-IA@3": "P_IA@3",
}


def qrels_rows(text: str):
    return [(q, i, d, int(r)) for q, i, d, r in (line.split() for line in text.splitlines() if line.strip())]


def oracle_run(run) -> list[tuple[str, str, float]]:
    """The run with scores that encode cranfield's (trec_eval's) order, for pyndeval's own sort."""
    rows = []
    for t, q in enumerate(run.topic_ids):
        docs = run.docno[run.offsets[t]:run.offsets[t + 1]].tolist()
        rows += [(q, d.decode(), float(len(docs) - k)) for k, d in enumerate(docs)]
    return rows


def compare(qrels_path, run_path, *, alpha=0.5, beta=0.5, qrels_text=None) -> int:
    qrels = qrels_rows(qrels_text if qrels_text is not None else read_text(qrels_path))
    params = "" if (alpha, beta) == (0.5, 0.5) else f"(alpha={alpha},beta={beta})"
    names = {k: _with(v, alpha, beta) for k, v in MEASURES.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cranfield.EvaluationWarning)
        run = cranfield.read_run(run_path)
        df = cranfield.evaluate(qrels_path, run, list(names.values()), diversity=True, missing="skip")
    ref = pyndeval.ndeval(qrels, oracle_run(run), list(MEASURES), alpha=alpha, beta=beta)
    got = {(r.topic, r.measure): r.value for r in df.itertuples() if r.topic != "all"}
    assert {t for t, _ in got} == set(ref)
    n = 0
    for topic, values in ref.items():
        for nd, ours in names.items():
            expected = values[nd]
            if np.isnan(expected):  # ndeval's 0/0 for nNRBP on a topic without relevant documents
                assert nd == "nNRBP" and got[(topic, ours)] == 0.0
            else:
                assert got[(topic, ours)] == pytest.approx(expected, abs=1e-6, rel=0), (topic, nd)
            n += 1
    return n, params


def _with(name: str, alpha: float, beta: float) -> str:
    if (alpha, beta) == (0.5, 0.5) or name.startswith(("P_IA", "AP_IA", "StRecall")):
        return name
    base, _, cut = name.partition("@")
    args = f"alpha={alpha}" + (f",beta={beta}" if base in ("NRBP", "nNRBP") else "")
    return f"{base}({args})" + (f"@{cut}" if cut else "")


@pytest.mark.parametrize("run", ["ql", "rm"])
def test_web2012_baselines(run):
    path = example_files()["runs"][0 if run == "ql" else 1]
    n, _ = compare(DATA / "web2012" / "qrels-for-ndeval.txt.gz", path)
    assert n == 50 * len(MEASURES)


def test_web2012_other_alpha_beta():
    path = example_files()["runs"][0]
    compare(DATA / "web2012" / "qrels-for-ndeval.txt.gz", path, alpha=0.3, beta=0.8)


def pooled_run(qrels_text: str, seed: int, depth: int = 60) -> str:
    """A seeded run over each topic's judged documents plus unjudged ones."""
    rng = np.random.default_rng(seed)
    pools: dict[str, list[str]] = {}
    for q, _, d, _ in qrels_rows(qrels_text):
        pools.setdefault(q, []).append(d)
    lines = []
    for q, docs in pools.items():
        docs = sorted(set(docs)) + [f"unjudged-{q}-{k}" for k in range(10)]
        picked = rng.choice(docs, size=min(depth, len(docs)), replace=False)
        for rank, d in enumerate(picked):
            lines.append(f"{q} Q0 {d} {rank + 1} {round(float(rng.random()), 2)} seeded")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("qrels", ["web2009/qrels.diversity.gz", "web2013/qrels.ndeval.gz"])
def test_real_qrels_with_seeded_runs(qrels, write):
    text = read_text(DATA / qrels)
    run = write("run.txt", pooled_run(text, 7))
    n, _ = compare(DATA / qrels, run)
    assert n >= 50 * len(MEASURES)


def random_case(seed: int):
    rng = np.random.default_rng(seed)
    qrels_lines, run_lines = [], []
    for t in range(int(rng.integers(1, 5))):
        qid = str(t + 1)
        n_int = int(rng.integers(1, 6))
        docs = [f"d{seed}-{t}-{k:02d}" for k in range(int(rng.integers(2, 30)))]
        for i in range(n_int):
            if rng.random() < 0.15:  # an intent judged but with no relevant document
                qrels_lines.append(f"{qid} {i} {docs[0]} 0")
                continue
            for d in rng.choice(docs, size=int(rng.integers(1, len(docs) + 1)), replace=False):
                qrels_lines.append(f"{qid} {i} {d} {int(rng.choice([0, 1, 1, 2, 3]))}")
        if rng.random() < 0.9:  # sometimes the run misses the topic
            pool = docs + [f"u{k}" for k in range(8)]
            ranked = rng.choice(pool, size=int(rng.integers(1, len(pool) + 1)), replace=False)
            for rank, d in enumerate(ranked):
                score = float(rng.integers(0, 4)) if rng.random() < 0.4 else float(rng.random())
                run_lines.append(f"{qid} Q0 {d} {rank} {score!r} r{seed}")
    if not run_lines:
        run_lines.append(f"1 Q0 d{seed}-0-00 1 1.0 r{seed}")
    return "\n".join(qrels_lines) + "\n", "\n".join(run_lines) + "\n"


@pytest.mark.parametrize("seed", range(200))
def test_random_case(seed, write):
    qrels_text, run_text = random_case(seed)
    compare(write("q.txt", qrels_text), write("r.txt", run_text), qrels_text=qrels_text)


def test_ndeval_layout_and_topic_prefixes(capsys, write):
    """--format ndeval prints ndeval's CSV (runid,topic,measures..., then amean); run topics such
    as wt09-1 match qrels topic 1 with --strip-topic-prefix."""
    from cranfield.cli.main import main

    qrels = write("q.txt", "1 1 a 1\n1 2 b 1\n2 1 c 1\n")
    run = write("r.txt", "wt09-1 Q0 a 1 2 r\nwt09-1 Q0 b 2 1 r\nwt09-2 Q0 x 1 1 r\n")
    assert main(["eval", str(qrels), str(run), "-m", "alpha-nDCG@5,strec@5", "--format", "ndeval",
                 "--strip-topic-prefix", "--diversity"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "runid,topic,alpha-nDCG@5,strec@5"
    assert lines[1] == "r,1,1.000000,1.000000" and lines[2] == "r,2,0.000000,0.000000"
    assert lines[3] == "r,amean,0.500000,0.500000"


def test_compat_ndeval_prints_ndevals_default_table(capsys):
    """``--compat ndeval``: ndeval's 21 default columns under its names, its CSV, its numbers."""
    from cranfield.cli.evaluate import NDEVAL_MEASURES
    from cranfield.cli.main import main

    qrels_path, run_path = DATA / "web2012" / "qrels-for-ndeval.txt.gz", DATA / "web2012" / "rm-filtered.run.gz"
    assert main(["eval", "--compat", "ndeval", str(qrels_path), str(run_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "runid,topic," + ",".join(pyndeval.DEFAULT_MEASURES)
    assert NDEVAL_MEASURES == list(pyndeval.DEFAULT_MEASURES)
    ref = pyndeval.ndeval(qrels_rows(read_text(qrels_path)), oracle_run(cranfield.read_run(run_path)),
                          list(pyndeval.DEFAULT_MEASURES))
    rows = [line.split(",") for line in lines[1:]]
    per_topic = {r[1]: [float(v) for v in r[2:]] for r in rows if r[1] != "amean"}
    assert set(per_topic) == set(ref) and rows[-1][1] == "amean"
    for topic, values in per_topic.items():
        assert values == pytest.approx([ref[topic][m] for m in pyndeval.DEFAULT_MEASURES], abs=1e-6), topic


def test_compat_ndeval_strips_topic_prefixes(capsys, write):
    from cranfield.cli.main import main

    qrels = write("q.txt", "1 1 a 1\n1 2 b 1\n")
    run = write("r.txt", "wt09-1 Q0 a 1 2 r\nwt09-1 Q0 b 2 1 r\n")
    assert main(["eval", "--compat", "ndeval", "-m", "strec@5", str(qrels), str(run)]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == ["r,1,1.000000", "r,amean,1.000000"]
