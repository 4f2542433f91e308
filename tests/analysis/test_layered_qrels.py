"""Layered qrels (``judges --fill``): the reference's labels plus a judge's for the documents the
reference left unjudged, each with its source in a fifth column; ``Judged@k(source=NAME)``."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield.analysis.judges import filled_qrels
from cranfield.errors import CranfieldError
from cranfield.evaluation.evaluator import Evaluator
from cranfield.io import qrels_from_dict, read_qrels

REFERENCE = "1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 a 1\n"
JUDGE = "1 0 a 0\n1 0 d 1\n1 0 e 0\n2 0 b 2\n3 0 a 1\n"
RUN = "1 Q0 d 1 5 r\n1 Q0 a 2 4 r\n1 Q0 x 3 3 r\n1 Q0 e 4 2 r\n2 Q0 b 1 3 r\n2 Q0 y 2 2 r\n"
# by hand: the reference's four labels, then the judge's d, e (topic 1) and b (topic 2); not its
# label of a (the reference judged a) nor topic 3 (not a reference topic)
LAYERED = ("1 0 a 2 nist\n1 0 b 0 nist\n1 0 c 1 nist\n2 0 a 1 nist\n"
           "1 0 d 1 llm\n1 0 e 0 llm\n2 0 b 2 llm\n")


@pytest.fixture
def files(tmp_path):
    out = {}
    for name, text in (("nist", REFERENCE), ("llm", JUDGE), ("run", RUN), ("hand", LAYERED)):
        out[name] = tmp_path / f"{name}.txt"
        out[name].write_text(text)
    return out


def test_cli_fill_equals_the_file_built_by_hand(capsys, files, tmp_path):
    from cranfield.cli.main import main

    filled = tmp_path / "filled.qrels"
    assert main(["judges", f"{files['nist']}", f"llm={files['llm']}", "--fill", str(filled)]) == 0
    assert filled.read_text() == LAYERED.replace(" nist\n", " nist.txt\n")


def test_judged_by_source_worked_by_hand(files):
    """Topic 1 ranks d (llm), a (nist), x (unjudged), e (llm): Judged@4 = 3/4, by llm 2/4, by
    nist 1/4. Topic 2 ranks b (llm), y (unjudged), two documents: 1/2, 1/2, 0."""
    r = Evaluator(files["hand"], ["Judged@4", "Judged(source=llm)@4", "Judged(source=nist)@4"]).evaluate(
        str(files["run"]))
    assert r.topics == ["1", "2"]
    assert r.values[0].tolist() == [[0.75, 0.5], [0.5, 0.5], [0.25, 0.0]]


def test_eval_on_filled_equals_eval_on_hand_built_qrels(capsys, files, tmp_path):
    """``eval`` on the layered qrels prints what it prints on the same labels written as plain
    qrels by hand: the fifth column changes no score."""
    from cranfield.cli.main import main

    plain = tmp_path / "plain.qrels"
    plain.write_text("".join(" ".join(line.split()[:4]) + "\n" for line in LAYERED.splitlines()))
    outputs = []
    for qrels in (files["hand"], plain):
        assert main(["eval", str(qrels), str(files["run"]), "-q", "-m", "AP,nDCG@4,P@2,Judged@4", "--format",
                     "csv"]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    ap = {line.split(",")[1]: float(line.split(",")[3]) for line in outputs[0].splitlines() if ",AP," in line}
    assert math.isclose(ap["1"], (1 / 1 + 2 / 2) / 3) and ap["2"] == 0.5  # relevant: a, c, d; a, b


def test_filled_keeps_the_sources_of_a_layered_reference(files):
    """Filling layered qrels again adds a third layer; the first two keep their names."""
    third = filled_qrels(read_qrels(files["hand"]), qrels_from_dict({"1": {"z": 1, "a": 0}}), ("x", "crowd"))
    assert third.judges == ("nist", "llm", "crowd")
    assert [third.judges[j] for j in third.judged_by].count("crowd") == 1


def test_errors(files, tmp_path):
    from cranfield.errors import InputError, MeasureError

    with pytest.raises(MeasureError, match="the qrels name no source 'crowd'; theirs are nist, llm"):
        Evaluator(files["hand"], ["Judged(source=crowd)@4"]).evaluate(str(files["run"]))
    with pytest.raises(MeasureError, match=r"Judged\(source=llm\) needs layered qrels"):
        Evaluator(files["nist"], ["Judged(source=llm)@4"]).evaluate(str(files["run"]))
    mixed = tmp_path / "mixed.qrels"
    mixed.write_text("1 0 a 1 nist\n1 0 b 0\n")
    with pytest.raises(InputError, match=r"mixed\.qrels:2: expected 5 columns \(qid iter docno rel source\)"):
        read_qrels(mixed)
    with pytest.raises(CranfieldError, match="must be one word"):
        filled_qrels(read_qrels(files["nist"]), read_qrels(files["llm"]), ("my judge", "llm"))
    with pytest.raises(CranfieldError, match="not a fraction"):
        filled_qrels(read_qrels(files["nist"]), read_qrels(files["llm"]), ("nist", "0.5"))
    prels = tmp_path / "prels.txt"  # qid docno rel method prob: not layered qrels
    prels.write_text("1 d1 1 1 1\n1 d2 0 1 0.25\n")
    with pytest.raises(InputError, match=r"prels\.txt:2: .* got the fraction '0\.25' \(a prels file"):
        read_qrels(prels)
    assessors = tmp_path / "assessors.qrels"  # assessor numbers are names
    assessors.write_text("1 0 d1 1 7\n1 0 d2 0 12\n")
    assert read_qrels(assessors).judges == ("7", "12")


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_the_sources_share_out_judged(seed):
    """Property: over the sources of layered qrels, Judged@k(source=s) adds up to Judged@k."""
    rng = np.random.default_rng(seed)
    docs = [f"d{k}" for k in range(15)]
    layers = [qrels_from_dict({t: {d: int(rng.integers(0, 3)) for d in rng.choice(docs, 5, replace=False)}
                               for t in ("1", "2")}) for _ in range(3)]
    qrels = filled_qrels(filled_qrels(layers[0], layers[1], ("a", "b")), layers[2], ("x", "c"))
    run = {t: {d: float(k) for k, d in enumerate(rng.choice(docs, 10, replace=False))} for t in ("1", "2")}
    names = ["Judged@7", *(f"Judged(source={s})@7" for s in qrels.judges)]
    values = Evaluator(qrels, names).evaluate(run).values[0]
    assert np.allclose(values[1:].sum(axis=0), values[0], rtol=0, atol=1e-12)
