"""gdeval (TREC Web 2010-2014 ad hoc: nDCG@k and ERR@k) through ``--compat gdeval``, against an
independent transcription of gdeval.pl 1.2a's rules: positive judgments only, runs sorted by
score as doubles then docno descending, gains 2^g − 1, ERR's stop probability (2^g − 1)/2^4, and
topics without positive judgments skipped."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from conftest import DATA, read_text
from cranfield.cli.main import main


def gdeval(qrels_text: str, run_text: str, k: int) -> dict[str, tuple[float, float]]:
    judged: dict = {}
    for line in qrels_text.splitlines():
        q, _, d, g = line.split()
        if int(g) > 0:
            judged.setdefault(q, {})[d] = int(g)
    rows: dict = {}
    for line in run_text.splitlines():
        q, _, d, _, s, _ = line.split()
        rows.setdefault(q, []).append((float(s), d))
    out = {}
    for q, docs in rows.items():
        if q not in judged:
            continue
        ranked = [d for _, d in sorted(docs, key=lambda x: (-x[0], [-c for c in x[1].encode()] + [1]))]
        gains = [judged[q].get(d, 0) for d in ranked][:k]
        ideal = sorted(judged[q].values(), reverse=True)[:k]
        dcg = sum((2**g - 1) / math.log(i + 2) for i, g in enumerate(gains))
        idcg = sum((2**g - 1) / math.log(i + 2) for i, g in enumerate(ideal))
        err, decay = 0.0, 1.0
        for i, g in enumerate(gains):
            r = (2**g - 1) / 16
            err += r * decay / (i + 1)
            decay *= 1 - r
        out[q] = (dcg / idcg, err)
    return out


def ours(capsys, qrels, run, *extra):
    assert main(["eval", str(qrels), str(run), "--compat", "gdeval", "-q", "--missing", "skip",
                 "--format", "json", *extra]) == 0
    rows = json.loads(capsys.readouterr().out)
    return {(r["topic"], r["measure"]): r["value"] for r in rows if r["topic"] != "all"}


def test_web2012_baseline(capsys):
    qrels, run = DATA / "web2012" / "qrels.adhoc.txt", DATA / "web2012" / "ql-filtered.run.gz"
    ref = gdeval(read_text(qrels), read_text(run), 20)
    got = ours(capsys, qrels, run)
    assert len(ref) > 40 and {t for t, _ in got} == set(ref)
    for q, (ndcg, err) in ref.items():
        assert got[(q, "ndcg@20")] == pytest.approx(ndcg, abs=1e-9)
        assert got[(q, "err@20")] == pytest.approx(err, abs=1e-9)


def gdeval_output(ref: dict[str, tuple[float, float]], runid: str, k: int) -> str:
    """gdeval.pl's standard output: its header, ``printf "%.5f"`` rows in numeric topic order
    (it sorts the run by topic), then the mean over those topics."""
    lines = [f"runid,topic,ndcg@{k},err@{k}"]
    topics = sorted(ref, key=int)
    lines += [f"{runid},{t},{ref[t][0]:.5f},{ref[t][1]:.5f}" for t in topics]
    lines.append(f"{runid},amean,{np.mean([ref[t][0] for t in topics]):.5f},{np.mean([ref[t][1] for t in topics]):.5f}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("k", [20, 10])
def test_output_is_gdevals(capsys, write, k):
    """``--compat gdeval`` prints gdeval.pl's CSV; topics the run lacks are not averaged."""
    qrels = DATA / "web2012" / "qrels.adhoc.txt"
    text = "".join(line + "\n" for line in read_text(DATA / "web2012" / "rm-filtered.run.gz").splitlines()
                   if not line.startswith(("151 ", "199 ")))
    run = write("run.txt", text)
    args = ["eval", str(qrels), str(run), "--compat", "gdeval"] + (["--cutoffs", str(k)] if k != 20 else [])
    assert main(args) == 0
    assert capsys.readouterr().out == gdeval_output(gdeval(read_text(qrels), text, k), "indri", k)


@pytest.mark.parametrize("seed", range(20))
def test_random_cases_with_double_only_ties(capsys, write, seed):
    rng = np.random.default_rng(seed)
    qrels_lines, run_lines = [], []
    for t in range(3):
        docs = [f"d{t}-{k:02d}" for k in range(15)]
        qrels_lines += [f"{t + 1} 0 {d} {int(rng.choice([-2, 0, 1, 2, 3, 4]))}" for d in docs[:10]]
        for rank, d in enumerate(rng.permutation(docs)[:12]):
            score = 0.5 + 1e-12 * int(rng.integers(0, 3)) if rng.random() < 0.4 else float(rng.integers(0, 4))
            run_lines.append(f"{t + 1} Q0 {d} {rank} {score!r} r")
    q, r = write("q.txt", "\n".join(qrels_lines) + "\n"), write("r.txt", "\n".join(run_lines) + "\n")
    ref = gdeval(read_text(q), read_text(r), 10)
    got = ours(capsys, q, r, "--cutoffs", "10")
    assert {t for t, _ in got} == set(ref)
    for topic, (ndcg, err) in ref.items():
        assert got[(topic, "ndcg@10")] == pytest.approx(ndcg, abs=1e-9)
        assert got[(topic, "err@10")] == pytest.approx(err, abs=1e-9)
