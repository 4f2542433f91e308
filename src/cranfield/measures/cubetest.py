"""The Cube Test family (Luo, Wing, Yang & Hearst, CIKM 2013; Albahem et al., ADCS 2018, Eq. 7–8;
docs/conventions.md#cube-test): CT, nCT and ACT, as the TREC Dynamic Domain 2017 scorer
(``scorer/cubetest.py``) computes them.

Each intent i is a column of height at most MH (``height``, 5) and weight w_i (uniform over the
topic's subtopics). Going down the ranking, the k-th document relevant to i raises its column
by rating_i·γ^k, capped at MH (γ = ``gamma`` = 0.5; Albahem et al.'s Eq. 7 as printed differs:
only this form gives their §4.3 numbers). After r documents the cube holds G(r) = Σ_i w_i·height_i(r).

- ``CT@c`` = G after the first c iterations / MH / (number of those iterations); a run that stops
  earlier is divided by its own number of iterations, up to the last it reached within c.
- ``ACT@c`` = the mean over those documents of G(r)/MH/(iteration of r, 1-based).
- ``nCT@c`` = CT / B with B = max_{T=1..c} G*(T·b)/(MH·T), G*(n) = Σ_i w_i·min(MH, Σ_{j≤n} r_i(j)·γ^j)
  over intent i's ratings sorted descending and b documents per iteration (b = ∞, all judged
  documents, when a plain ranking is one iteration): an upper bound on CT, so nCT ≤ 1.
  ``bound="jig2017"`` uses the 2017 scorer's bound instead (discount from γ^0,
  5·c + 1 documents, always divided by c), which reproduces the official values but lets nCT
  exceed 1.

Iterations come from a DD run (missing iteration numbers are empty iterations); a plain ranking
is one iteration unless ``docs_per_iteration`` splits it. Repeated documents in DD runs earn
nothing (see :func:`cranfield.io.dd.read_dd_run`). ``@c`` counts iterations.

The 2017 scorer exactly (``--compat dd2017``; Yang, Tang & Soboroff, TREC 2017 DD overview) is
these kernels on the run as its reader reads it (``read_dd_run(compat="dd2017")``: each missing
iteration number below a topic's last becomes a non-relevant document, so CT's time is
min(c, last iteration + 1) and ACT counts those documents) with nCT's ``bound="jig2017"``
(:func:`as_dd2017`).
"""

from __future__ import annotations

import numpy as np

from cranfield._numeric import safe_div
from cranfield.batch import Batch
from cranfield.measures.registry import Measure, MeasureSpec, Param, cutoff_param, register

DD_ITERATION = 5  # documents per iteration in the TREC DD track


def iterations(batch: Batch, docs_per_iteration: int | None) -> np.ndarray:
    """0-based iteration of each ranked document, shape (S, T, D); -1 past the end."""
    d = batch.labels.shape[2]
    inside = np.arange(d) < batch.length[..., None]
    if docs_per_iteration:
        it = np.broadcast_to(np.arange(d) // docs_per_iteration, inside.shape)
    elif batch.iteration is not None:
        it = batch.iteration
    else:
        it = np.zeros(inside.shape, dtype=int)
    return np.where(inside, it, -1)


def cube_gain(batch: Batch, gamma: float, height: float) -> np.ndarray:
    """G(r) = Σ_i w_i·min(MH, Σ_{s≤r} rating_i(d_s)·γ^{k_i(s)}), k_i(s) counting the documents
    relevant to i up to s; shape (S, T, D). Capping the running sum equals the scorer's
    per-document cap because every raise is non-negative."""
    ratings = np.maximum(batch.labels, 0).astype(np.float64)  # (S, T, D, I)
    relevant = ratings > 0
    raise_by = np.where(relevant, ratings * gamma ** np.cumsum(relevant, axis=2), 0.0)
    columns = np.minimum(height, np.cumsum(raise_by, axis=2))
    return (columns * batch.topics.weights[None, :, None, :]).sum(axis=3)


def _within(batch: Batch, cutoff: int | None, docs_per_iteration: int | None) -> tuple[np.ndarray, np.ndarray]:
    it = iterations(batch, docs_per_iteration)
    inside = (it >= 0) if cutoff is None else (it >= 0) & (it < cutoff)
    return it, inside


def _ct(batch: Batch, cutoff: int | None, gamma: float, height: float, docs_per_iteration: int | None):
    gain = cube_gain(batch, gamma, height)
    it, inside = _within(batch, cutoff, docs_per_iteration)
    count = inside.sum(axis=-1)  # the documents of the first c iterations form a prefix
    last = np.take_along_axis(gain, np.maximum(count - 1, 0)[..., None], axis=-1)[..., 0] if gain.shape[-1] else 0.0
    n_iter = np.where(inside, it, -1).max(axis=-1, initial=-1) + 1
    return safe_div(np.where(count > 0, last, 0.0) / height, n_iter), n_iter, gain, it, inside


def cube_test(batch: Batch, *, cutoff: int | None, gamma: float = 0.5, height: float = 5.0,
              docs_per_iteration: int | None = None) -> np.ndarray:
    """CT@c (Albahem et al., ADCS 2018, Eq. 7, as the TREC DD 2017 scorer computes it): gain / MH / iterations."""
    return _ct(batch, cutoff, gamma, height, docs_per_iteration)[0]


def average_cube_test(batch: Batch, *, cutoff: int | None, gamma: float = 0.5, height: float = 5.0,
                      docs_per_iteration: int | None = None) -> np.ndarray:
    """ACT@c (Albahem et al., ADCS 2018, Eq. 8; TREC DD 2017 scorer): mean over the documents of
    G(r)/MH/iteration(r)."""
    _, _, gain, it, inside = _ct(batch, cutoff, gamma, height, docs_per_iteration)
    per_doc = np.where(inside, gain / height / np.maximum(it + 1, 1), 0.0)
    return safe_div(per_doc.sum(axis=-1), inside.sum(axis=-1))


def _ideal_gain(batch: Batch, gamma: float, height: float, first_power: int) -> np.ndarray:
    """G*(n) for n = 0..K per topic, shape (T, K + 1), K the most relevant documents of an
    intent: each intent's best ratings in order, discounted from γ^first_power. G*(n) = G*(K)
    for n > K, so the arrays never depend on the number of iterations."""
    ratings = np.maximum(batch.topics.ideal_intent, 0).astype(np.float64)  # (T, I, K)
    k = ratings.shape[2]
    discounted = ratings * gamma ** np.arange(first_power, first_power + k)
    columns = np.zeros(ratings.shape[:2] + (k + 1,))
    columns[:, :, 1:] = np.minimum(height, np.cumsum(discounted, axis=2))
    return (columns * batch.topics.weights[:, :, None]).sum(axis=1)


def normalised_cube_test(batch: Batch, *, cutoff: int | None, gamma: float = 0.5, height: float = 5.0,
                         docs_per_iteration: int | None = None, bound: str = "exact") -> np.ndarray:
    """nCT@c = CT@c / B (see the module docstring); ``bound="jig2017"`` is the 2017 scorer's."""
    ct, n_iter, *_ = _ct(batch, cutoff, gamma, height, docs_per_iteration)
    c = np.broadcast_to(n_iter if cutoff is None else np.full_like(n_iter, cutoff), ct.shape)
    if bound == "jig2017":  # ct_bound_per_topic: 5c + 1 documents from γ^0, ÷ MH ÷ c
        ideal = _ideal_gain(batch, gamma, height, 0)  # (T, K + 1)
        k = ideal.shape[1] - 1
        docs = np.minimum(DD_ITERATION * np.minimum(c, k) + 1, k)
        b = np.take_along_axis(np.broadcast_to(ideal, ct.shape + ideal.shape[1:]), docs[..., None], axis=-1)[..., 0]
        return safe_div(ct, b / height / np.maximum(c, 1))
    ideal = _ideal_gain(batch, gamma, height, 1)  # (T, K + 1)
    per = docs_per_iteration or (DD_ITERATION if batch.iteration is not None else None)
    if per is None:  # the whole ranking is one iteration of any length: b = ∞, every judged document
        return safe_div(ct, ideal[:, -1][None] / height)
    # past T = ceil(K/b) iterations G*(T·b) stops growing, so later T only lower G*(T·b)/(MH·T)
    k = ideal.shape[1] - 1
    steps = np.arange(1, min(int(c.max(initial=0)), -(-k // per)) + 1)
    best = ideal[:, np.minimum(per * steps, k)] / (height * steps)  # (T, steps): G*(T·b)/(MH·T)
    allowed = steps <= c[..., None]  # (S, T, steps)
    b = np.where(allowed, best[None], 0.0).max(axis=-1, initial=0.0)
    return safe_div(ct, b)


def as_dd2017(measure: Measure) -> Measure:
    """``measure`` as the TREC DD 2017 scorer computes it (``--compat dd2017``): nCT over the
    scorer's bound (``bound=jig2017``; trec-dd-jig ``scorer/cubetest.py``, ``ct_bound_per_topic``).
    CT and ACT are unchanged: they need only the run read as the scorer reads it
    (:func:`cranfield.io.dd.read_dd_run` with ``compat="dd2017"``)."""
    return measure.with_params(bound="jig2017") if measure.name == "nCT" else measure


def steps_of(kernel):  # noqa: ANN001, ANN201
    """The kernel after each iteration 1..c: (S, T, C), NaN past a ranking's last iteration."""
    def per_iteration(batch: Batch, *, cutoff: int | None, **params) -> np.ndarray:  # noqa: ANN003
        it = iterations(batch, params.get("docs_per_iteration"))
        last = it.max(axis=-1, initial=-1) + 1  # (S, T)
        c = int(last.max(initial=0)) if cutoff is None else cutoff
        out = np.stack([kernel(batch, cutoff=k, **params) for k in range(1, c + 1)], axis=-1) if c else \
            np.zeros(last.shape + (0,))
        return np.where(np.arange(1, out.shape[-1] + 1) <= np.maximum(last, 1)[..., None], out, np.nan)

    return per_iteration


CUT = cutoff_param("iterations: only the first c iterations count")
GAMMA = Param("gamma", "float", 0.5, "discount of each further document relevant to a subtopic", low=0, high=1,
              open_low=True)
HEIGHT = Param("height", "float", 5.0, "MH, the maximum height of a subtopic's column", low=0, open_low=True)
PER_ITERATION = Param("docs_per_iteration", "int", None,
                      "split a plain ranking into iterations of this many documents (default: DD run iterations, "
                      "else one iteration)", low=1)
TRACK = "the TREC DD 2017 scorer (trec-dd-jig scorer/cubetest.py) with --compat dd2017"

for name, kernel, extra, doc in [
    ("CT", cube_test, (), "Cube Test: how full the cube is per unit of time"),
    ("ACT", average_cube_test, (), "Average Cube Test: the Cube Test averaged over the documents"),
    ("nCT", normalised_cube_test,
     (Param("bound", "choice", "exact", "exact: a true bound (nCT <= 1); jig2017: the 2017 scorer's",
            choices=("exact", "jig2017")),),
     "Cube Test over its upper bound"),
]:
    register(MeasureSpec(
        name, kernel, (CUT, GAMMA, HEIGHT, PER_ITERATION, *extra),
        cite="Luo et al., CIKM 2013; Albahem et al., ADCS 2018, Eq. 7-8 (docs/conventions.md#cube-test)", doc=doc,
        needs_intents=True,
        truncation_aware=True, depth=lambda p: None, reference=TRACK,
        normalised=False, per_iteration=steps_of(kernel),
    ))
