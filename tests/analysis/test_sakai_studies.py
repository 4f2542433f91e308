"""Sakai, WWW 2012 (Tables 1 and 4) and Golbus, Aslam & Clarke, Inf. Retr. 2013 (§7, Table 10):
named non-uniform intent probabilities, the overlap of significantly different run pairs between
measures, and the geometric mean's floor in document selection sensitivity."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from cranfield.evaluation.collection import nonuniform_probabilities
from cranfield.evaluation.evaluator import Evaluator, evaluate


# --------------------------------------------------------------- Table 1: non-uniform intents
@pytest.mark.parametrize("n, expected", [
    (2, ["4/6", "2/6"]),
    (3, ["8/14", "4/14", "2/14"]),
    (4, ["16/30", "8/30", "4/30", "2/30"]),
    (5, ["32/62", "16/62", "8/62", "4/62", "2/62"]),
    (6, ["64/126", "32/126", "16/126", "8/126", "4/126", "2/126"]),
])
def test_nonuniform_probabilities_by_hand(n: int, expected: list[str]) -> None:
    # Sakai, WWW 2012, Table 1: the j-th intent of n has probability 2^(n-j+1) / sum_{k=1}^n 2^k
    assert nonuniform_probabilities(n) == pytest.approx([float(Fraction(x)) for x in expected], abs=1e-15)
    assert nonuniform_probabilities(n).sum() == pytest.approx(1.0)


def _tiny(tmp_path):
    # topic 1: intents 1, 2 and 10 (natural order 1 < 2 < 10; as text "10" would come second);
    # d1 is relevant to intent 10 only, d2 to intent 1 only; topic 2: intents 1 and 2, d3 relevant to 2.
    qrels = tmp_path / "div.qrels"
    qrels.write_text("1 1 d2 1\n1 2 d9 1\n1 10 d1 1\n2 1 d8 1\n2 2 d3 1\n")
    run = tmp_path / "a.run"
    run.write_text("1 Q0 d1 1 2 a\n1 Q0 d5 2 1 a\n2 Q0 d3 1 2 a\n2 Q0 d6 2 1 a\n")
    return qrels, run


def test_nonuniform_intents_in_a_measure(tmp_path) -> None:
    qrels, run = _tiny(tmp_path)
    df = evaluate(qrels, run, ["P-IA@2"], intents="nonuniform", diversity=True)
    values = dict(zip(df.topic, df.value))
    # topic 1: P@2 is 1/2 for intent 10 only, the third of three: 2/14 * 1/2
    assert values["1"] == pytest.approx(2 / 14 * 0.5)
    # topic 2: P@2 is 1/2 for intent 2, the second of two: 2/6 * 1/2
    assert values["2"] == pytest.approx(2 / 6 * 0.5)
    uniform = evaluate(qrels, run, ["P-IA@2"], intents="uniform", diversity=True)
    assert dict(zip(uniform.topic, uniform.value))["1"] == pytest.approx(0.5 / 3)
    default = evaluate(qrels, run, ["P-IA@2"], diversity=True)
    assert list(default.value) == pytest.approx(list(uniform.value))


def test_nonuniform_weights_of_the_collection(tmp_path) -> None:
    qrels, _ = _tiny(tmp_path)
    ev = Evaluator(qrels, ["P-IA@2"], intents="nonuniform", diversity=True)
    assert ev.collection.intent_ids[0] == ("1", "2", "10")
    assert ev.collection.weights[0, :3] == pytest.approx([8 / 14, 4 / 14, 2 / 14])


def test_intent_scheme_is_validated(tmp_path) -> None:
    from cranfield.errors import CranfieldError
    from cranfield.evaluation.collection import Collection
    from cranfield.io import as_qrels

    qrels, _ = _tiny(tmp_path)
    with pytest.raises(CranfieldError, match="intents"):
        Collection.from_qrels(as_qrels(qrels, diversity=True), intents="skewed")


def test_cli_intents_nonuniform(tmp_path, capsys) -> None:
    from cranfield.cli.main import main

    qrels, run = _tiny(tmp_path)
    assert main(["eval", str(qrels), str(run), "-m", "P-IA@2", "--intents", "nonuniform", "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert f"{(2 / 14 * 0.5 + 2 / 6 * 0.5) / 2:.4f}"[:5] in out
    assert main(["eval", str(qrels), str(run), "-m", "P-IA@2", "--intents", "nonuniform"]) == 0
    assert " intents=nonuniform" in capsys.readouterr().out.splitlines()[0]


# --------------------------------------------------------------- Table 4: overlap of significant pairs
def _designed_scores() -> tuple[np.ndarray, np.ndarray]:
    # 10 topics x 3 runs; a constant difference of 0.5 with noise of +-0.01 is significant by the
    # t test, a zero-mean noise is not (t = 0). Measure A separates run 1 from 0 and 2; measure B
    # separates run 2 from 0 and 1. Significant pairs: A {(0,1), (1,2)}, B {(0,2), (1,2)}.
    base = np.arange(10) / 10
    alt = np.array([1, -1] * 5) * 0.01
    alt2 = np.array([1, -1, -1, 1, 1, -1, -1, 1, 1, -1]) * 0.01
    a = np.column_stack([base, base + 0.5 + alt, base + alt2])
    b = np.column_stack([base, base + alt, base + 0.5 + alt2])
    return a, b


def test_significance_overlap_on_designed_scores() -> None:
    from cranfield.meta.power import discriminative_power, significance_overlap

    a, b = _designed_scores()
    powers = [discriminative_power(x, test="t") for x in (a, b)]
    assert [p.n_significant for p in powers] == [2, 2]
    (o,) = significance_overlap(powers)
    assert (o.both, o.only_1, o.only_2, o.neither, o.n_pairs) == (1, 1, 1, 0, 3)
    assert o.to_dict()["both"] == 1


def test_significance_overlap_of_three_measures_by_seeded_bootstrap() -> None:
    from cranfield.meta.power import discriminative_power, significance_overlap

    a, b = _designed_scores()
    powers = [discriminative_power(x, test="bootstrap", n_resamples=500, rng=1) for x in (a, b, a)]
    overlaps = significance_overlap(powers)
    assert [(o.both, o.only_1, o.only_2) for o in overlaps] == [(1, 1, 1), (2, 0, 0), (1, 1, 1)]


def test_significance_overlap_needs_the_same_pairs() -> None:
    from cranfield.errors import CranfieldError
    from cranfield.meta.power import discriminative_power, significance_overlap

    a, _ = _designed_scores()
    powers = [discriminative_power(a, test="t"), discriminative_power(a[:, :2], test="t")]
    with pytest.raises(CranfieldError, match="different run pairs"):
        significance_overlap(powers)


def test_cli_discpower_overlap(capsys) -> None:
    import json
    from pathlib import Path

    from cranfield.cli.main import main

    data = Path(__file__).parent.parent / "data" / "robust03"
    runs = sorted(str(p) for p in data.glob("input.*"))
    common = ["discpower", str(data / "qrels.txt.gz"), *runs, "-m", "P@10", "-m", "AP", "-m", "RR",
              "--test", "t", "--correction", "none", "--format", "json"]  # the counts below are uncorrected
    assert main(common) == 0
    powers = {r["measure"]: r["significant"] for r in json.loads(capsys.readouterr().out)}
    assert main([*common, "--overlap"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["measure_1"], r["measure_2"]) for r in rows] == [("P@10", "AP"), ("P@10", "RR"), ("AP", "RR")]
    assert [(r["both"], r["only_1"], r["only_2"]) for r in rows] == [(4, 1, 1), (1, 4, 0), (1, 4, 0)]
    for r in rows:
        assert r["both"] + r["only_1"] == powers[r["measure_1"]]
        assert r["both"] + r["only_2"] == powers[r["measure_2"]]
        assert r["both"] + r["only_1"] + r["only_2"] + r["neither"] == r["pairs"] == 6


# --------------------------------------------------------------- Golbus et al. Table 10: the geom floor
# topic 1: intents x, y, z; a {x}, b {y}, c {x, z}: S-recall@2 varies over the permutations;
# topic 2: one relevant document, so every permutation scores the same and DSS is 0.
DSS_QRELS = {"1": {"a": {"x": 1}, "b": {"y": 1}, "c": {"x": 1, "z": 1}}, "2": {"d": {"x": 1}}}


def test_dss_geom_floor_changes_the_geometric_mean() -> None:
    from cranfield.analysis.dss import dss

    results = {eps: dss(DSS_QRELS, ["StRecall"], k=[2], n=500, seed=1, average="geom", eps=eps)
               for eps in (1e-5, 1e-3)}
    base = results[1e-5]
    first, second = base.values[0, 0]
    assert first > 0.1 and second == 0.0
    for eps, res in results.items():
        # the geometric mean of max(DSS, eps) over the two topics
        assert res.averaged[0, 0] == pytest.approx(np.sqrt(first * eps))
        assert res.eps == eps
        assert res.to_dict()["geom_floor"] == eps
        assert f"geom_floor={eps:g}" in res.provenance()
    assert results[1e-3].averaged[0, 0] == pytest.approx(10 * base.averaged[0, 0])
    # the default is trec_eval's gm_map floor; avg does not use it
    assert dss(DSS_QRELS, ["StRecall"], k=[2], n=500, seed=1, average="geom").eps == 1e-5
    avg = dss(DSS_QRELS, ["StRecall"], k=[2], n=500, seed=1, eps=0.5)
    assert avg.averaged[0, 0] == pytest.approx(first / 2)
    assert "geom_floor" not in avg.provenance()


@pytest.mark.parametrize("eps", [0, -1e-5, float("nan"), "x"])
def test_dss_geom_floor_is_validated(eps) -> None:
    from cranfield.analysis.dss import dss
    from cranfield.errors import CranfieldError

    with pytest.raises(CranfieldError, match="floor"):
        dss(DSS_QRELS, ["StRecall"], k=[2], n=10, average="geom", eps=eps)


def test_cli_dss_geom_floor(tmp_path, capsys) -> None:
    from cranfield.cli.main import main

    qrels = tmp_path / "div.qrels"
    qrels.write_text("1 x a 1\n1 y b 1\n1 x c 1\n1 z c 1\n2 x d 1\n")
    assert main(["dss", str(qrels), "-m", "StRecall", "--k", "2", "--n", "500", "--seed", "1", "--diversity",
                 "--average", "geom", "--geom-floor", "1e-3"]) == 0
    out = capsys.readouterr().out
    assert "geom_floor=0.001" in out.splitlines()[0]
    assert main(["dss", str(qrels), "-m", "StRecall", "--k", "2", "--n", "10", "--diversity",
                 "--average", "geom", "--geom-floor", "0"]) != 0
    assert "--geom-floor" in capsys.readouterr().err
