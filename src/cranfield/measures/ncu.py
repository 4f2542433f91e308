"""Sakai's measures for finding one highly relevant document and normalised cumulative
utility, as NTCIREVAL computes them (pyNTCIREVAL 0.0.3: ``OMeasure``, ``PMeasure``, ``NCU*``).

- O-measure (Sakai, IPSJ TOD 48(SIG9), 2007): the blended ratio at the first relevant rank r1,
  with the document's own gain: (1 + β·g(r1)) / (r1 + β·cg*(r1)).
- P-measure (same paper): the blended ratio BR(rp) at rp, the first rank holding the highest
  label in the list.
- NCU (Sakai & Robertson, EVIA 2008): Σ_r Pr(r)·NU(r), the expected utility NU = BR (β > 0) or
  precision (β = 0) at the rank where the user stops, with stop probability Pr uniform over the
  relevant documents (``stop=u``: 1/R, 1/min(R, l) with @l — NCU(u, β=0) is AP, and NTCIREVAL's
  AP@l), graded-uniform (``stop=gu``: stops(L)/Σ_d stops(L_d) over the judged relevant
  documents; the stop values default to the gains) or rank-biased (``stop=rb``:
  γ^(C(r)−1) / Σ_{i<R} γ^i).

Gains are NTCIREVAL's per-level gain vector (``gains=1:3:7``) or ``exp`` (2^L − 1), as for Q.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cranfield._numeric import safe_div
from cranfield.batch import Batch
from cranfield.measures._common import (
    at_rank,
    blend_weights,
    blended_ratio,
    cut,
    first_true,
    gain,
    gain_shift,
    ideal_cumulative,
    ideal_gains,
)
from cranfield.measures.registry import MeasureSpec, Param, cutoff_param, register

NTCIREVAL = "NTCIREVAL (pyNTCIREVAL 0.0.3)"


def o_measure(batch: Batch, *, cutoff: int | None, beta: float = 1.0, gains: Any = "exp") -> np.ndarray:
    """O-measure (Sakai 2007; NTCIREVAL ``OMeasure``): (1 + β·g(r1)) / (r1 + β·cg*(r1)) at the
    first relevant rank r1 of the top l; 0 without a relevant document there."""
    grades = cut(batch.grades, cutoff)
    r1, found = first_true(grades > 0)
    shift = gain_shift(batch, gains)
    unit, weight = blend_weights(beta, shift)  # counts and scaled gains (see gain_shift)
    icg = ideal_cumulative(ideal_gains(batch.topics.ideal, gains, shift[:, None]), grades.shape[-1])
    icg_r1 = at_rank(np.broadcast_to(icg, grades.shape), r1)
    value = safe_div(unit + weight * at_rank(gain(grades, gains, shift[:, None]), r1),
                     (r1 + 1.0) * unit + weight * icg_r1)
    return np.where(found, value, 0.0)


def _blended(batch: Batch, grades: np.ndarray, gains: Any, beta: float) -> np.ndarray:
    """BR(r) at every rank (Sakai, WWW 2012, Eq. 3), shape (S, T, D), gains scaled per topic."""
    shift = gain_shift(batch, gains)[:, None]
    return blended_ratio(grades > 0, gain(grades, gains, shift), ideal_gains(batch.topics.ideal, gains, shift),
                         beta, shift)


def p_measure(batch: Batch, *, cutoff: int | None, beta: float = 1.0, gains: Any = "exp") -> np.ndarray:
    """P-measure (Sakai 2007; NTCIREVAL ``PMeasure``): the blended ratio BR(rp) at rp, the first
    rank of the top l holding the highest label there; 0 without a relevant document."""
    grades = cut(batch.grades, cutoff)
    j = grades > 0
    br = _blended(batch, grades, gains, beta)
    best = np.where(j, grades, 0).max(axis=-1, initial=0)
    rp, found = first_true(j & (grades == best[..., None]))
    return np.where(found, at_rank(br, rp), 0.0)


def ncu(batch: Batch, *, cutoff: int | None, stop: str = "u", beta: float = 1.0, gamma: float = 0.95,
        gains: Any = "exp", stops: Any = None) -> np.ndarray:
    """NCU (Sakai & Robertson, EVIA 2008; NTCIREVAL ``NCUguP``, ``NCUguBR``, ``NCUrbP``,
    ``NCUrbBR``, and ``AP``/``AP@l`` as ``stop=u, beta=0``): Σ_{r≤l} Pr(r)·NU(r) with NU the
    blended ratio (precision for β = 0) and Pr the stop distribution (module docstring)."""
    grades = cut(batch.grades, cutoff)
    j = grades > 0
    nu = _blended(batch, grades, gains, beta)
    num_rel = batch.topics.num_rel(1).astype(np.float64)
    if stop == "u":
        total = num_rel if cutoff is None else np.minimum(num_rel, cutoff)
        prob = safe_div(j, total[..., None])
    elif stop == "gu":
        weight = gains if stops is None else stops
        shift = gain_shift(batch, weight)[:, None]
        prob = safe_div(np.where(j, gain(grades, weight, shift), 0.0),
                        gain(batch.topics.ideal, weight, shift).sum(axis=-1)[..., None])
    else:  # rank-biased
        mass = safe_div(1.0 - gamma ** num_rel, 1.0 - gamma) if gamma < 1 else num_rel
        prob = safe_div(np.where(j, gamma ** np.maximum(np.cumsum(j, axis=-1) - 1.0, 0.0), 0.0), mass[..., None])
    return (prob * nu).sum(axis=-1) if grades.shape[-1] else np.zeros(grades.shape[:-1])


CUT = cutoff_param("rank cutoff l")
BETA = Param("beta", "float", 1.0, "weight of graded gain in the blended ratio (0: precision)", low=0)
EXP = Param("gains", "gains", "exp", "gain of each label: exp (2^L - 1), linear, or NTCIREVAL's vector 1:3:7")

register(MeasureSpec(
    "O-measure", o_measure, (CUT, BETA, EXP), cite="Sakai, IPSJ TOD 48(SIG9) 2007 (NTCIREVAL O-measure)",
    doc="blended ratio at the first relevant document, with its own gain", aliases=("OMeasure",),
    normalised=True, reference=f"{NTCIREVAL}: OMeasure",
))
register(MeasureSpec(
    "P-measure", p_measure, (CUT, BETA, EXP), cite="Sakai, IPSJ TOD 48(SIG9) 2007 (NTCIREVAL P-measure)",
    doc="blended ratio at the first document of the highest label retrieved", aliases=("PMeasure",),
    normalised=True, reference=f"{NTCIREVAL}: PMeasure",
))
register(MeasureSpec(
    "NCU", ncu, (CUT, Param("stop", "choice", "u", "stop distribution: u (uniform over relevant documents), gu "
                            "(graded-uniform) or rb (rank-biased)", choices=("u", "gu", "rb")),
                 BETA, Param("gamma", "float", 0.95, "rank-biased stop: weight of each further relevant document",
                             low=0, high=1), EXP,
                 Param("stops", "gains", None, "graded-uniform stop value of each label (default: the gains)")),
    cite="Sakai & Robertson, EVIA 2008 (NTCIREVAL NCU)", doc="normalised cumulative utility",
    normalised=True, reference=f"{NTCIREVAL}: NCUguP, NCUguBR, NCUrbP, NCUrbBR, AP@l",
))
