"""Issue #14, measure kernels and the Python API: no silent wrong number, no traceback.

One rule per class of problem, each tested on a family of cases:

1. exponential gains stay finite (and exact where they always were) for any label;
2. gain maps: no negative or non-finite gain, no label twice;
3. every parameter's documented range is its declared range;
4. the greedy α-ideal is built only as deep as a measure reads it;
5. the public constructors of batch.py and registry.py check shapes, types and values;
6. integers beyond 64 bits in measure parameters are refused in the one message template;
7. no numpy RuntimeWarning from any kernel on edge batches, and correct values there.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield import Batch, MeasureError, Topics, parse_measure
from cranfield.measures import _common
from cranfield.measures.diversity import greedy_alpha_ideal, nrbp_ideal_depth
from cranfield.measures.registry import INT_MAX, Measure, iter_specs, lookup

ASPECT_WRAPPERS = ("TOMA", "CAM", "MM")  # need judgments on several aspects (cranfield aspects)
HUGE = "99999999999999999999"  # > 2^64


def _cut(spec) -> str:
    return "@0.5" if spec.name == "IPrec" else "@5" if spec.cutoff == "required" else ""


def _base_name(spec) -> str:
    return "IA(nDCG@5)" if spec.name == "IA" else spec.name + _cut(spec)


def variants() -> list[str]:
    """Every registered measure with its defaults, at the bounds of each numeric parameter, with
    each choice, with exp gains, and at cutoffs 1 and 1000."""
    names = []
    for spec in iter_specs():
        if spec.name in ASPECT_WRAPPERS:
            continue
        cut = _cut(spec)
        names.append(_base_name(spec))
        if spec.name == "IA":
            names += ["IA(AP)", "IA(nDCG(gains=exp)@3)", "IA(RBP(p=0.5))"]
            continue
        for p in spec.params:
            if p.kind in ("int", "float") and p.name not in ("cutoff", "collection"):
                for v in (p.low, p.high):
                    if v is not None:
                        nudge = 1e-9 if v == p.low else -1e-9
                        open_ = p.open_low if v == p.low else p.open_high
                        names.append(f"{spec.name}({p.name}={v + nudge if open_ else v!r}){cut}")
            elif p.kind == "choice":
                names += [f"{spec.name}({p.name}={c}){cut}" for c in p.choices]
            elif p.kind == "gains":
                names.append(f"{spec.name}({p.name}=exp){cut}")
        if spec.cutoff != "none" and spec.name != "IPrec":
            names += [f"{spec.name}@1", f"{spec.name}@1000"]
    return sorted(set(names))


VARIANTS = {name: parse_measure(name) for name in variants()}


def score(measure: Measure, batch: Batch) -> np.ndarray:
    """The measure's values, failing on any warning (numpy's RuntimeWarning included)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return measure(batch)


# Interpolated precision at a recall level that asks for no relevant document is 0/0 on an empty
# ranking (trec_eval's NaN; docs/conventions.md#judged-only): NaN there, finite everywhere else.
UNDEFINED_ON_EMPTY = ("11pt", "IPrec")


def assert_valid(name: str, measure: Measure, batch: Batch) -> None:
    values = score(measure, batch)
    lo, hi = measure.spec.value_range
    assert values.shape == batch.length.shape, name
    may_be_nan = (batch.length == 0) & (measure.spec.name in UNDEFINED_ON_EMPTY)
    assert (np.isfinite(values) | (may_be_nan & np.isnan(values))).all(), (name, values)
    values = np.where(np.isnan(values), lo, values)
    assert ((values >= lo - 1e-9) & (values <= hi + 1e-9)).all(), (name, values, measure.spec.value_range)


def consistent_batch(rel_docs: np.ndarray, rankings: list[list[list[int]]], nav=None) -> Batch:
    """A batch whose rankings hold the topics' own documents: ``rankings[s][t]`` lists indices
    into ``rel_docs[t]`` (-1, -2: judged non-relevant, -3: unjudged)."""
    n_topics, _, n_int = rel_docs.shape
    depth = max((len(r) for run in rankings for r in run), default=0)
    labels = np.zeros((len(rankings), n_topics, depth, n_int), dtype=rel_docs.dtype)
    judged = np.zeros((len(rankings), n_topics, depth), dtype=bool)
    length = np.zeros((len(rankings), n_topics), dtype=np.int64)
    for s, run in enumerate(rankings):
        for t, docs in enumerate(run):
            length[s, t] = len(docs)
            for r, d in enumerate(docs):
                labels[s, t, r] = rel_docs[t, d] if d >= 0 else 0
                judged[s, t, r] = d >= -2
    has = (rel_docs > 0).any(axis=1)
    weights = has / np.maximum(has.sum(axis=1, keepdims=True), 1)
    topics = Topics.from_intent_labels(rel_docs, weights=weights, nav=nav,
                                       num_judged=np.full(n_topics, rel_docs.shape[1] + 2))
    return Batch.from_labels(labels, topics, length=length, judged=judged)


SMALL_LABELS = st.integers(-2, 3)


@st.composite
def diversity_cases(draw, labels=SMALL_LABELS):
    n_topics, n_int, n_docs = draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(0, 5))
    rel_docs = np.array(draw(st.lists(labels, min_size=n_topics * n_docs * n_int, max_size=n_topics * n_docs * n_int)),
                        dtype=np.int64).reshape(n_topics, n_docs, n_int)
    pool = list(range(n_docs)) + [-1, -2, -3]
    rankings = [[draw(st.permutations(pool))[: draw(st.integers(0, len(pool)))] for _ in range(n_topics)]
                for _ in range(draw(st.integers(1, 2)))]
    nav = np.array(draw(st.lists(st.booleans(), min_size=n_topics * n_int, max_size=n_topics * n_int))).reshape(
        n_topics, n_int)
    return rel_docs, rankings, nav


# --------------------------------------------------------------------------- 1. exponential gains
HUGE_LABELS = st.one_of(st.integers(-2, 3), st.integers(1000, 1030), st.integers(4, 10**6), st.just(10**6))


@settings(max_examples=25, deadline=None)
@given(diversity_cases(labels=HUGE_LABELS))
def test_any_label_gives_finite_values_in_range(case):
    """Labels up to 10^6 (2^label − 1 overflows from 1024 on): every measure is finite and in its
    documented range, with no warning."""
    batch = consistent_batch(*case)
    for name, m in VARIANTS.items():
        assert_valid(name, m, batch)


EXP_MEASURES = ["D-nDCG@5", "D-Q", "D-ERR", "D-RBP", "DIN-nDCG", "DIN-Q@3", "D#-nDCG@5", "O-measure", "P-measure",
                "NCU", "NCU(stop=gu)", "NCU(stop=rb)", "NCU(stop=gu,stops=exp,gains=linear)", "alpha#-IA(gains=exp)@5",
                "alpha#-IA(gains=exp,subtopics=cascade)@5", "iRBU(gains=exp)", "NDCGT(gains=exp)", "ERRT", "ERRU",
                "RBU", "RBU(max_rel=topic)", "nDCG(gains=exp)", "Q", "P+@3", "ERR", "nERR@5", "RBP(gains=exp)"]


@pytest.mark.parametrize("labels", [[600, 599, 0, 3], [900, 1, 2, 880], [513, 513, 512, 1]])
@pytest.mark.parametrize("name", EXP_MEASURES)
def test_scaled_gains_are_the_exact_gains(name, labels, monkeypatch):
    """Where 2^label − 1 is still a finite double (labels < 1024), the per-topic scaling of large
    gains gives the values of the unscaled formula (scaling by a power of two is exact)."""
    rel_docs = np.array([[[g, 0] for g in labels] + [[0, 1]]])
    batch = consistent_batch(rel_docs, [[[3, 1, -1, 0]], [[4, 2]]])
    m = parse_measure(name)
    scaled = score(m, batch)
    monkeypatch.setattr(_common, "GAIN_HEADROOM", 10**6)  # never scale
    exact = m(consistent_batch(rel_docs, [[[3, 1, -1, 0]], [[4, 2]]]))
    assert np.isfinite(exact).all()
    assert scaled == pytest.approx(exact, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("top", [1024, 5000, 10**6])
def test_huge_labels_give_the_limit(top):
    """For huge labels the values are the limits: the first document of the top label takes all
    the gain (nDCG-like and ERR-like ratios), BR(r) = cg(r)/cg*(r) (Q-like)."""
    rel_docs = np.array([[[top], [top - 1], [1]]])
    batch = consistent_batch(rel_docs, [[[0, 1, 2]], [[1, 0, 2]], [[2, 0]]])
    disc = 1 / np.log2(3)
    expected = {
        "D-nDCG": [1.0, (0.5 + disc) / (1 + 0.5 * disc), disc / (1 + 0.5 * disc)],
        "alpha#-IA(gains=exp,lambda=0,alpha=0)@3": [1.0, (0.5 + disc) / (1 + 0.5 * disc), disc / (1 + 0.5 * disc)],
        "D-RBP": [0.2 * (1 + 0.8 * 0.5), 0.2 * (0.5 + 0.8), 0.2 * 0.8],
        "D-Q": [1.0, (0.5 + 1.0 + 1.0) / 3, (1.0 / 1.5) / 3],
        "P-measure": [1.0, 1.5 / 1.5, 1.0 / 1.5],
    }
    for name, values in expected.items():
        assert score(parse_measure(name), batch)[:, 0] == pytest.approx(values, rel=1e-9), name


def test_chapelle_stop_probability_is_exact_and_bounded():
    """(2^g − 1)/2^max_rel: exactly the textbook values for small labels, in [0, 1) for any label
    (a label above max_rel counts as max_rel), finite for labels beyond 1023."""
    g = np.array([-1, 0, 1, 2, 3, 4, 2000])
    assert _common.exp_stop(g, 3).tolist() == [0, 0, 1 / 8, 3 / 8, 7 / 8, 7 / 8, 7 / 8]
    assert _common.exp_stop(np.array([10**6, 10**6 - 1]), 10**6).tolist() == [1.0, 0.5]
    assert parse_measure("ERRT(max_rel=1)")(consistent_batch(np.array([[[3]]]), [[[0]]]))[0, 0] <= 1.0


# --------------------------------------------------------------------------- 2. gain maps
GAIN_SPECS = sorted({s.name for s in iter_specs() for p in s.params if p.kind == "gains"})


@pytest.mark.parametrize("gains", ["0:0,1:-5,2:1", "0:0,1:1,1:3", "1:-1,", "1:inf,", "1:nan,", "1:2:-3", "1:1e999,",
                                   f"{HUGE}:1,", "1:a,", "1:2:3,"])
@pytest.mark.parametrize("name", GAIN_SPECS)
def test_gain_maps_refuse_negative_gains_and_repeated_labels(name, gains):
    spec = lookup(name)
    param = next(p for p in spec.params if p.kind == "gains")
    text = f"{name}({param.name}={gains}){_cut(spec)}"
    pattern = rf"The '{param.name}' parameter of {re.escape(spec.name)} must be .*gains >= 0, each label once.*Got"
    with pytest.raises(MeasureError, match=pattern):
        parse_measure(text)


def test_gain_maps_read_from_python_values_are_checked_too():
    m = parse_measure("nDCG(gains=0:0,1:1,2:3)")
    assert m.with_params(gains=((1, 2.0), (2, 5))).params["gains"] == ((1, 2.0), (2, 5.0))
    for bad in [((1, -2.0),), ((1, 1.0), (1, 2.0)), ((1,),), (("x", 1),)]:
        with pytest.raises(MeasureError, match="gains >= 0, each label once"):
            m.with_params(gains=bad)


# --------------------------------------------------------------------------- 3. documented ranges
NUMBER = r"(-?\d+(?:\.\d+)?|-?inf)"


def documented_bounds(doc: str, name: str) -> list[tuple[str, float, bool]]:
    """The bounds a parameter's doc states: ("low" | "high", value, open) for every interval
    ``in [a, b)`` and every comparison of the parameter's name with a number."""
    out = []
    for left, lo, hi, right in re.findall(rf"\bin\s*([\[(])\s*{NUMBER}\s*,\s*{NUMBER}\s*([\])])", doc):
        out += [("low", float(lo), left == "("), ("high", float(hi), right == ")")]
    word = rf"(?<![\w^]){re.escape(name)}(?![\w^(])"
    for number, op in re.findall(rf"{NUMBER}\s*(<=|<|≤)\s*{word}", doc):
        out.append(("low", float(number), op == "<"))
    for op, number in re.findall(rf"{word}\s*(>=|>|≥)\s*{NUMBER}", doc):
        out.append(("low", float(number), op == ">"))
    for op, number in re.findall(rf"{word}\s*(<=|<|≤)\s*{NUMBER}", doc):
        out.append(("high", float(number), op == "<"))
    for number, op in re.findall(rf"{NUMBER}\s*(>=|>|≥)\s*{word}", doc):
        out.append(("high", float(number), op == ">"))
    return out


def test_the_bounds_reader_reads_ranges():
    assert documented_bounds("weight of H(S,G); 1 < beta", "beta") == [("low", 1.0, True)]
    assert documented_bounds("the recall level r in [0, 1)", "cutoff") == [("low", 0.0, False), ("high", 1.0, True)]
    assert documented_bounds("beta^(r-1) with beta <= 1, nCT <= 1", "beta") == [("high", 1.0, False)]


@pytest.mark.parametrize("spec", [s for s in iter_specs()], ids=lambda s: s.name)
def test_documented_ranges_are_the_declared_ranges(spec):
    """A range stated in a parameter's doc is its declaration (low/high/open_*); the valid values
    printed by ``cranfield measures`` and in errors come from the declaration (Param.describe)."""
    for p in spec.params:
        for side, value, open_ in documented_bounds(p.doc, p.name):
            declared = (p.low, p.open_low) if side == "low" else (p.high, p.open_high)
            assert declared == (value, open_) or (p.kind == "int" and declared[0] == value), (spec.name, p.name, p.doc)
        if p.kind in ("int", "float") and p.low is not None:
            below = p.low if p.open_low else p.low - (1 if p.kind == "int" else 1e-6)
            with pytest.raises(MeasureError, match=re.escape(p.describe())):
                p.convert(str(below), spec.name)


@pytest.mark.parametrize("beta", ["0", "0.5", "1", "-1", "inf", "nan"])
def test_oie_beta_above_one(beta):
    with pytest.raises(MeasureError, match=r"The 'beta' parameter of OIE must be a float in the range \(1, inf\)"):
        parse_measure(f"OIE(beta={beta})")


# --------------------------------------------------------------------------- 4. the greedy α-ideal
def random_topics(seed: int, n_topics: int = 3, n_docs: int = 12, n_int: int = 4) -> Topics:
    rng = np.random.default_rng(seed)
    return Topics.from_intent_labels(rng.choice([0, 0, 1, 2], size=(n_topics, n_docs, n_int)))


@pytest.mark.parametrize("name, depth", [("alpha_nDCG@3", 3), ("nERR_IA@2", 2), ("alpha_nDCG@1000", 12),
                                         ("alpha_nDCG", 12), ("nNRBP(beta=0)", 1)])
def test_greedy_ideal_is_built_only_as_deep_as_read(name, depth):
    topics = random_topics(1)
    m = parse_measure(name)
    m(Batch.from_labels(np.zeros((1, 3, 2, 4), dtype=int), topics))
    assert topics.cache[("alpha-ideal", m.params["alpha"], 1)].shape[1] == depth


@pytest.mark.parametrize("seed", range(20))
def test_a_shallow_greedy_ideal_is_the_prefix_of_the_deep_one(seed):
    topics = random_topics(seed, n_docs=15, n_int=int(seed % 5) + 1)
    batch = Batch.from_labels(np.zeros((1, 3, 1, topics.weights.shape[1]), dtype=int), topics)
    fresh = Batch.from_labels(batch.labels, random_topics(seed, n_docs=15, n_int=int(seed % 5) + 1))  # own cache
    for alpha in (0.0, 0.5, 1.0):
        assert np.array_equal(greedy_alpha_ideal(fresh, alpha, 1, 4), greedy_alpha_ideal(batch, alpha, 1)[:, :4])


@pytest.mark.parametrize("beta", [0.0, 0.1, 0.5, 0.8])
def test_nnrbp_ideal_depth_changes_nothing(beta):
    topics = random_topics(3, n_docs=300, n_int=3)
    batch = Batch.from_labels(np.zeros((1, 3, 1, 3), dtype=int), topics)
    full = greedy_alpha_ideal(batch, 0.5, 1)
    depth = nrbp_ideal_depth(beta, 3)
    assert depth < 300
    weights = beta ** np.arange(full.shape[1], dtype=np.float64)
    assert np.array_equal(full @ weights, full[:, :depth] @ weights[:depth])


def test_many_intents():
    """One topic with 300 intents, each with a few relevant documents: α-nDCG@5 reads a 5-rank
    ideal (the full greedy list of 300+ ranks would take minutes with 2,000 intents)."""
    rng = np.random.default_rng(0)
    rel_docs = np.zeros((1, 400, 300), dtype=np.int8)
    for i in range(300):
        rel_docs[0, rng.choice(400, size=2, replace=False), i] = 1
    topics = Topics.from_intent_labels(rel_docs)
    batch = Batch.from_labels(rel_docs[:, :10][None], topics)
    value = parse_measure("alpha_nDCG@5")(batch)[0, 0]
    assert 0 < value <= 1 and topics.cache[("alpha-ideal", 0.5, 1)].shape == (1, 5)


# --------------------------------------------------------------------------- 5. the Python API
T2 = Topics.from_ideal(np.array([[2, 1], [1, 0]]))
T1 = Topics.from_ideal(np.array([[2, 1]]))
T_INT = Topics.from_intent_labels(np.ones((1, 2, 2), dtype=int))
ONE = np.array([[[2, 1]]])

API_ERRORS = [
    # (call, exception, message)
    (lambda: Batch.from_labels(ONE, T2), ValueError, r"labels must be an array of shape \(S, T, D, I\) with T = 2"),
    (lambda: Batch.from_labels(np.array([[2, 1]]), T1), ValueError,
     r"labels must be an array of shape .* Got \(1, 2\)"),
    (lambda: Batch.from_labels(np.zeros((1, 1, 2, 1, 1), dtype=int), T1), ValueError,
     "labels must be an array of shape"),
    (lambda: Batch.from_labels(np.ones((1, 1, 2), dtype=int), T_INT), ValueError, r"I = 2 intents\. Got \(1, 1, 2\)"),
    (lambda: Batch.from_labels(np.ones((1, 1, 2, 3), dtype=int), T_INT), ValueError, r"I = 2 intents"),
    (lambda: Batch.from_labels(np.array([[["a", "b"]]]), T1), TypeError, "labels must be an array of integers"),
    (lambda: Batch.from_labels(np.array([[[0.5, 1.0]]]), T1), ValueError, r"labels must be integers\. Got 0\.5"),
    (lambda: Batch.from_labels(np.array([[[np.nan, 1.0]]]), T1), ValueError, r"labels must be integers\. Got nan"),
    (lambda: Batch.from_labels(np.array([[[np.inf, 1.0]]]), T1), ValueError, "labels must be integers"),
    (lambda: Batch.from_labels([[[1, 2], [1]]], T1), ValueError, "labels must be a rectangular array"),
    (lambda: Batch.from_labels(np.array([[[None, 1]]]), T1), TypeError, "labels must be an array of integers"),
    (lambda: Batch.from_labels(ONE, np.array([[1]])), TypeError, "topics must be a Topics"),
    (lambda: Batch.from_labels(ONE, T1, length=np.array([1, 2, 3])), ValueError,
     r"lengths must be an array of shape \(S, T\)"),
    (lambda: Batch.from_labels(ONE, T1, length=np.array([[-1]])), ValueError, "lengths must be integers >= 0"),
    (lambda: Batch.from_labels(ONE, T1, length=np.array([[1.5]])), ValueError, r"lengths must be integers\. Got 1\.5"),
    (lambda: Batch.from_labels(ONE, T1, length="3"), TypeError, "lengths must be an array of integers"),
    (lambda: Batch.from_labels(ONE, T1, judged=np.array([[["y", "n"]]])), TypeError,
     "judged flags must be an array of booleans"),
    (lambda: Batch.from_labels(ONE, T1, judged=np.array([[[2, 1]]])), ValueError,
     r"judged flags must be booleans \(or 0 and 1\)"),
    (lambda: Batch.from_labels(ONE, T1, judged=np.ones((1, 1, 3), dtype=bool)), ValueError,
     "judged flags must be an array of shape"),
    (lambda: Batch.from_labels(ONE, T1, iteration=np.array([[[0.5, 1]]])), ValueError, "iteration must be integers"),
    (lambda: Topics.from_ideal(np.zeros((1, 2, 3), dtype=int)), ValueError,
     r"ideal grades must be an array of shape \(T, K\)"),
    (lambda: Topics.from_ideal(np.array([1, 2])), ValueError, r"ideal grades must be an array of shape \(T, K\)"),
    (lambda: Topics.from_ideal(np.array([["1"]])), TypeError, "ideal grades must be an array of integers"),
    (lambda: Topics.from_ideal(np.array([[1.5]])), ValueError, "ideal grades must be integers"),
    (lambda: Topics.from_ideal(np.array([[1]]), num_judged=np.array([1, 2])), ValueError,
     r"num_judged must be an array of shape \(T,\)"),
    (lambda: Topics.from_ideal(np.array([[1]]), num_judged=np.array([-1])), ValueError,
     "num_judged must be integers >= 0"),
    (lambda: Topics.from_ideal(np.array([[1]]), max_rel=1.5), ValueError, "max_rel must be an integer"),
    (lambda: Topics.from_ideal(np.array([[1]]), max_rel="x"), ValueError, "max_rel must be an integer"),
    (lambda: Topics.from_ideal(np.array([[1]]), max_rel=10**30), ValueError,
     r"max_rel must be an integer in the range \[0, 9.22337e\+18\]"),
    (lambda: Topics.from_intent_labels(np.ones((1, 1, 1), dtype=int), max_rel=-1), ValueError,
     "max_rel must be an integer in the range"),
    (lambda: Topics.from_intent_labels(np.ones((2, 2), dtype=int)), ValueError,
     r"intent labels must be an array of shape \(T, J, I\)"),
    (lambda: Topics.from_intent_labels(np.ones((1, 2, 2)) * 0.5), ValueError, "intent labels must be integers"),
    (lambda: Topics.from_intent_labels(np.ones((1, 2, 2), dtype=int), weights=np.array([[np.nan, 1]])), ValueError,
     "intent weights must be finite numbers >= 0"),
    (lambda: Topics.from_intent_labels(np.ones((1, 2, 2), dtype=int), weights=np.array([[-1, 1]])), ValueError,
     "intent weights must be finite numbers >= 0"),
    (lambda: Topics.from_intent_labels(np.ones((1, 2, 2), dtype=int), weights=np.array([1, 1])), ValueError,
     r"intent weights must be an array of shape \(T, I\) = \(1, 2\)"),
    (lambda: Topics.from_intent_labels(np.ones((1, 2, 2), dtype=int), nav=np.array([[3, 0]])), ValueError,
     "navigational flags must be booleans"),
    (lambda: Topics.from_judgments(np.array([0, 5]), np.ones((2, 1), dtype=int), np.array([b"a", b"b"]),
                                   np.ones((2, 1)), np.zeros((2, 1), dtype=bool), 1), ValueError,
     r"document topics must be topic indices in \[0, 2\)"),
    (lambda: Topics.from_judgments(np.array([0, 1]), np.array([[1], [np.nan]]), np.array([b"a", b"b"]), np.ones((2, 1)),
                                   np.zeros((2, 1), dtype=bool), 1), ValueError, "grades must be finite numbers"),
    (lambda: Topics.from_judgments(np.array([0, 1]), np.ones((2, 2), dtype=int), np.array([b"a", b"b"]),
                                   np.ones((2, 1)), np.zeros((2, 1), dtype=bool), 1), ValueError,
     r"grades must be an array of shape \(J, I\)"),
    (lambda: Topics(np.zeros((2, 1)), np.zeros((2, 1, 1)), np.zeros(3), np.ones((2, 1)), 1, np.zeros((2, 1, 1)),
                    np.zeros((2, 1), dtype=bool)), ValueError, "Topics arrays must be"),
    (lambda: Batch(np.zeros((1, 2, 3)), np.zeros((1, 2, 3), dtype=bool), np.zeros((1, 2)), np.ones((1, 2), dtype=bool),
                   T2), ValueError, "Batch arrays must be"),
    (lambda: Batch(np.zeros((1, 2, 3, 1)), np.zeros((1, 2, 3), dtype=bool), np.zeros((1, 2)),
                   np.ones((1, 2), dtype=bool), "topics"), TypeError, "topics of a Batch must be a Topics"),
    (lambda: parse_measure(5), TypeError, r"A measure must be a name such as 'nDCG@10' \(a str\) or a Measure\. Got 5"),
    (lambda: parse_measure(None), TypeError, "A measure must be a name"),
    (lambda: parse_measure(b"P@5"), TypeError, "A measure must be a name"),
    (lambda: parse_measure(["P@5"]), TypeError, "A measure must be a name"),
    (lambda: lookup(3), TypeError, "A measure name must be a str"),
    (lambda: Measure("P", ()), TypeError, "A Measure's spec must be a MeasureSpec"),
    (lambda: Measure(lookup("P"), (("rel", 1),)), MeasureError, r"must be \(name, value\) pairs for cutoff, rel"),
    (lambda: Measure(lookup("P"), [("cutoff", 5), ("rel", 1)]), MeasureError, r"must be \(name, value\) pairs"),
    (lambda: Measure(lookup("P"), (("cutoff", 0), ("rel", 1))), MeasureError, "The 'cutoff' parameter of P must be"),
    (lambda: Measure(lookup("P"), (("cutoff", 2.5), ("rel", 1))), MeasureError, "The 'cutoff' parameter of P must be"),
    (lambda: Measure(lookup("P"), (("cutoff", None), ("rel", 1))), MeasureError, "P needs a cutoff"),
    (lambda: Measure(lookup("RBP"), (("cutoff", None), ("p", float("nan")), ("max_rel", None), ("part", "base"),
                                     ("gains", "linear"))), MeasureError, "The 'p' parameter of RBP must be"),
    (lambda: Measure(lookup("IA"), (("cutoff", None), ("measure", None))), MeasureError, "measure"),
    (lambda: parse_measure("P@5")(np.zeros((1, 1, 5))), TypeError, "A measure scores a Batch"),
    (lambda: parse_measure("nDCG_IA").per_intent([[1]]), TypeError,
     "A measure scores a Batch"),
    (lambda: parse_measure("CT").per_iteration(None), TypeError, "A measure scores a Batch"),
]


@pytest.mark.parametrize("call, error, message", API_ERRORS, ids=[str(i) for i in range(len(API_ERRORS))])
def test_public_constructors_say_what_was_expected(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_valid_python_values_are_accepted_and_normalised():
    batch = Batch.from_labels(np.array([[[2.0, True]]]), T1, length=2, judged=np.array([[[1, 0]]]))
    assert batch.labels.dtype.kind == "i" and batch.judged.tolist() == [[[True, False]]]
    assert Measure(lookup("P"), (("cutoff", 5.0), ("rel", np.int64(1)))) == parse_measure("P@5")
    assert str(parse_measure("P@1e3")) == "P@1000"


# --------------------------------------------------------------------------- 6. integers beyond int64
INT_PARAMS = sorted({(s.name, p.name) for s in iter_specs() for p in s.params
                     if p.kind in ("int", "maxrel") and (s.name, p.name) != ("IA", "cutoff")})  # IA(X)@k is X@k


@pytest.mark.parametrize("name, param", INT_PARAMS)
@pytest.mark.parametrize("value", [HUGE, "-" + HUGE, str(INT_MAX + 1), "1e30"])
def test_integers_beyond_64_bits_are_refused(name, param, value):
    spec = lookup(name)
    text = f"{name}@{value}" if param == "cutoff" else f"{name}({param}={value}){_cut(spec)}"
    with pytest.raises(MeasureError, match=rf"The '{param}' parameter of {re.escape(spec.name)} must be .*\. Got "):
        parse_measure(text)


def test_the_largest_64_bit_cutoff_is_a_cutoff():
    m = parse_measure(f"P@{INT_MAX}")
    assert m.cutoff == INT_MAX and score(m, Batch.from_labels(ONE, T1))[0, 0] == 2 / INT_MAX


def test_integer_parameters_are_read_exactly():
    """Not through a double (which would make 1234567890123456789 into ...768)."""
    assert parse_measure("P@1234567890123456789").cutoff == 1234567890123456789


# --------------------------------------------------------------------------- 7. edge batches
def edge_batches() -> dict[str, Batch]:
    two = np.array([[[1, 0], [0, 2], [1, 1]]])
    none = Topics.from_intent_labels(np.zeros((1, 0, 2), dtype=int), num_judged=np.array([3]))
    out = {
        "no relevant documents": Batch.from_labels(np.zeros((2, 1, 3, 2), dtype=int), none),
        "depth 0": Batch.from_labels(np.zeros((2, 1, 0, 2), dtype=int), Topics.from_intent_labels(two),
                                     length=np.zeros((2, 1), dtype=int)),
        "empty rankings": Batch.from_labels(np.zeros((2, 1, 3, 2), dtype=int), Topics.from_intent_labels(two),
                                            length=np.zeros((2, 1), dtype=int)),
        "depth 0, no relevant": Batch.from_labels(np.zeros((1, 1, 0, 2), dtype=int), none,
                                                  length=np.zeros((1, 1), dtype=int)),
        "all labels negative": Batch.from_labels(np.full((2, 1, 3, 2), -1),
                                                 Topics.from_intent_labels(np.full((1, 2, 2), -2),
                                                                           num_judged=np.array([2]))),
        "an empty intent": consistent_batch(np.array([[[1, 0], [2, 0]]]), [[[0, 1]], [[1, -1]]]),
        "no topics": Batch.from_labels(np.zeros((2, 0, 3, 2), dtype=int),
                                       Topics.from_intent_labels(np.zeros((0, 0, 2), dtype=int))),
        "no runs": Batch.from_labels(np.zeros((0, 1, 3, 2), dtype=int), Topics.from_intent_labels(two)),
        "truncated batch": Batch.from_labels(np.array([[[[1, 0], [0, 2]]]]), Topics.from_intent_labels(two),
                                             length=np.array([[9]])),
        "ad hoc, nothing judged": Batch.from_labels(np.zeros((1, 1, 2), dtype=int),
                                                    Topics.from_ideal(np.zeros((1, 0), dtype=int),
                                                                      num_judged=np.array([0]))),
    }
    return out


@pytest.mark.parametrize("case, batch", list(edge_batches().items()), ids=list(edge_batches()))
def test_every_measure_on_edge_batches(case, batch):
    """Topics without relevant documents, empty rankings, depth 0, negative labels, no topics, no
    runs: every measure and parameter variant scores, finite, in range, without a warning."""
    for name, m in VARIANTS.items():
        assert_valid(name, m, batch)


def test_edge_values_are_right():
    batches = edge_batches()
    for name in ["nDCG", "AP", "alpha_nDCG@5", "nERR_IA@5", "nNRBP", "D-nDCG", "Q", "NCU", "StRecall@5"]:
        m = parse_measure(name)
        assert (m(batches["no relevant documents"]) == 0).all(), name
        assert (m(batches["depth 0"]) <= 0).all(), name
    assert parse_measure("RBU")(batches["empty rankings"]).tolist() == [[0.0], [0.0]]
    assert parse_measure("nDCG_IA")(batches["no topics"]).shape == (2, 0)
