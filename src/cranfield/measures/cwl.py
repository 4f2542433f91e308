"""The C/W/L framework's measures, as cwl_eval computes them (docs/cwl.md).

The C/W/L framework (Moffat, Bailey, Scholer & Thomas, ADCS 2015; TOIS 35(3) 2017) describes a
metric by its continuation probabilities C(i), the chance that a user who has read the item at
rank i reads the next one. From C follow the weights and the stopping probabilities
(Azzopardi, Thomas & Moffat, SIGIR 2019, "cwl_eval"), over the ranks i = 1..n::

    V(i) = Π_{j<i} C(j)            (the probability of reaching rank i)
    W(i) = V(i) / Σ_k V(k)         (the weight of rank i)
    L(i) = V(i)·(1 − C(i))          (the probability of stopping at rank i)

and the five quantities cwl_eval prints, in its column order (EU, ETU, EC, ETC, ED): the
expected utility per item EU = Σ W(i)·g(i), the expected total utility ETU = Σ L(i)·G(i)
(G the cumulative gain), the expected cost per item EC = Σ W(i)·c(i), the expected total
cost ETC = Σ L(i)·K(i) (K the cumulative cost) and the expected depth ED = 1/W(1) = Σ V(i).

As cwl_eval does, every ranking is read to depth n exactly (``depth``, its ``--max_depth``,
default 1000): cut at n, or padded with items of gain 0; an unjudged item has gain 0 (its
"worst case"); every item costs 1 (cwl_eval without a cost file), so EC = 1 and ETC is the
expected number of items read at the stop. Gains are the labels (cwl_eval reads the qrels'
last column as the gain), through an optional gain map, and clipped to [0, max_gain]: a gain
above ``max_gain`` counts as ``max_gain`` (cwl_eval refuses a qrels file with such a gain),
a negative one as 0 (likewise refused). The measures, by their C(i):

- CWL-P@k: 1 for i < k, else 0 (precision at k).
- CWL-RBP: p (Moffat & Zobel, TOIS 2008).
- SDCG@k: log2(i+1)/log2(i+2) for i < k, else 0 — the weights of DCG@k scaled to sum to 1.
- INST: ((i + T + T_i − 1)/(i + T + T_i))², T_i = T − G(i) (Moffat et al., ADCS 2015; TOIS 2017).
- INSQ: ((i + 2T − 1)/(i + 2T))² (Moffat, Scholer & Thomas, ADCS 2012).
- BPM, BPM-D: 1 while G(i) < T_i and K(i) < K_i, else 0, the bounds static or moved by each
  item's gain (Zhang, Liu, Li, Zhang, Xu & Ma, SIGIR 2017, the Bejeweled Player Model).
- NERR8@k, NERR9@k, NERR10, NERR11: ERR's cascade as C/W/L metrics (Azzopardi, Mackenzie & Moffat,
  ICTIR 2021, Eqs. 8–11): C(i) = 1 − g(i) for i < k; (i/(i+1))·(1 − g(i)) for i < k;
  φ·(1 − g(i)); ((i + 2T − 1)/(i + 2T))²·(1 − g(i)).
- TBG: time-biased gain (Smucker & Clarke, SIGIR 2012) with every item costing 1: W(i) ∝
  2^(−(i−1)/H), and C(n) = 0 at the last rank read.
- U-measure: W(i) ∝ max(0, 1 − (i−1)/L) for i < n, W(n) = 0 (Sakai & Dou, SIGIR 2013).

The measures that ir_measures reads with ``max_rel`` (and ``min_rel``, default 0) scale the gains
as its cwl_eval provider does: a label l gains (clip(max(l, 0), min_rel, max_rel) − min_rel) /
(max_rel − min_rel), in [0, 1] (docs/cwl.md#ir_measures).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from cranfield._numeric import ordered_dot
from cranfield.batch import Batch
from cranfield.errors import MeasureError
from cranfield.measures._common import gain, ranks
from cranfield.measures.registry import MeasureSpec, Param, cutoff_param, register

OUTPUTS = ("eu", "etu", "ec", "etc", "ed")
"""cwl_eval's columns EU, ETU, EC, ETC, ED, in its order."""


# --------------------------------------------------------------------------- gains and the C/W/L machinery
def cwl_gains(batch: Batch, gains: Any, max_gain: float, depth: int, min_rel: int = 0,
              max_rel: int = 0) -> np.ndarray:
    """g(i), shape (S, T, depth): each item's gain clipped to [0, max_gain], gain 0 for an
    unjudged item and for the padding past the end of a ranking (cwl_eval's worst case).

    ``gains``: ``linear`` (the label, as cwl_eval reads the qrels), ``exp`` (2^label − 1) or a
    map of labels to gains. Exponential gains are computed from labels capped at 1024, where
    2^label − 1 exceeds any finite ``max_gain``, so that they stay finite. With ``max_rel``, a
    label l gains (clip(max(l, 0), min_rel, max_rel) − min_rel) / (max_rel − min_rel): ir_measures'
    scaling of the labels into [0, 1] for its C/W/L measures (its cwl_eval provider); 0 leaves
    the gains as they are.
    """
    grades = batch.grades[..., :depth]
    if max_rel:
        g = _scaled(grades, gains, min_rel, max_rel)
    elif gains == "exp":
        x = np.minimum(np.maximum(grades, 0), 1024).astype(np.float64)
        g = np.where(x >= 1024, max_gain, np.exp2(np.minimum(x, 1023.0)) - 1.0)
    else:
        g = gain(grades, gains)
    g = np.where(batch.judged[..., :depth], np.minimum(g, max_gain), 0.0)
    if g.shape[-1] < depth:
        g = np.concatenate([g, np.zeros((*g.shape[:-1], depth - g.shape[-1]))], axis=-1)
    return g


def _scaled(grades: np.ndarray, gains: Any, min_rel: int, max_rel: int) -> np.ndarray:
    """ir_measures' gains of labels, (clip(max(l, 0), min_rel, max_rel) − min_rel) / (max_rel − min_rel)."""
    if gains != "linear" or min_rel >= max_rel:
        raise MeasureError(f"max_rel scales the labels themselves (ir_measures' C/W/L gains): it needs min_rel < "
                           f"max_rel and linear gains; got min_rel={min_rel}, max_rel={max_rel}, gains={gains!r}")
    x = np.clip(np.maximum(grades, 0), min_rel, max_rel).astype(np.float64)
    return (x - min_rel) / (max_rel - min_rel)


def cwl_outputs(c: np.ndarray, g: np.ndarray, out: str) -> np.ndarray:
    """One of cwl_eval's five quantities from the continuation probabilities C(i) and the gains
    g(i), both (S, T, n), every item of cost 1 (Azzopardi, Thomas & Moffat, SIGIR 2019)."""
    n = c.shape[-1]
    reach = np.ones_like(c)
    if n > 1:
        reach[..., 1:] = np.cumprod(c[..., :-1], axis=-1)  # V(i) = Π_{j<i} C(j)
    depth = reach.sum(axis=-1)  # ED = 1/W(1) = Σ V(i) >= 1
    if out == "ed":
        return depth
    weights = reach / depth[..., None]
    if out == "eu":
        return (weights * g).sum(axis=-1)
    if out == "ec":
        return weights.sum(axis=-1)
    stop = reach * (1.0 - c)  # L(i)
    if out == "etu":
        return (stop * np.cumsum(g, axis=-1)).sum(axis=-1)
    return ordered_dot(stop, ranks(n))  # etc: the cost of the first i items is i


def _shape(batch: Batch, depth: int) -> tuple[int, int, int]:
    s, t = batch.length.shape
    return s, t, depth


# --------------------------------------------------------------------------- kernels
def cwl_precision(batch: Batch, cutoff: int, gains: Any = "linear", max_gain: float = 1.0, depth: int = 1000,
                  out: str = "eu", min_rel: int = 0, max_rel: int = 0) -> np.ndarray:
    """P@k in the C/W/L framework: C(i) = 1 for i < k, else 0, so W(i) = 1/k on the first k ranks
    (van Rijsbergen 1979; cwl_eval ``PrecisionCWLMetric``). EU is graded precision at k, ETU
    the cumulative gain at k, ED = k (k at most the depth)."""
    c = np.zeros(_shape(batch, depth))
    c[..., : min(cutoff, depth + 1) - 1] = 1.0
    return cwl_outputs(c, cwl_gains(batch, gains, max_gain, depth, min_rel, max_rel), out)


def cwl_rbp(batch: Batch, p: float = 0.9, gains: Any = "linear", max_gain: float = 1.0, depth: int = 1000,
            out: str = "eu", min_rel: int = 0, max_rel: int = 0) -> np.ndarray:
    """Rank-biased precision in the C/W/L framework: C(i) = p (Moffat & Zobel, TOIS 2008; cwl_eval
    ``RBPCWLMetric``). EU is (1 − p)·Σ p^{i−1}·g(i) / (1 − p^n), RBP normalised over the n
    ranks read (for n = 1000 and p < 0.97 the two differ by less than 10^-12 relative)."""
    c = np.full(_shape(batch, depth), p)
    return cwl_outputs(c, cwl_gains(batch, gains, max_gain, depth, min_rel, max_rel), out)


def sdcg(batch: Batch, cutoff: int, gains: Any = "linear", max_gain: float = 1.0, depth: int = 1000,
         out: str = "eu", min_rel: int = 0, max_rel: int = 0) -> np.ndarray:
    """Scaled DCG@k: C(i) = log2(i+1)/log2(i+2) for i < k, else 0, so W(i) is the discount
    1/log2(i+1) of DCG@k (Järvelin & Kekäläinen, TOIS 2002) scaled to sum to 1 over the first k
    ranks (Moffat et al., TOIS 2017; cwl_eval ``NDCGCWLMetric``, named NDCG-k@k)."""
    c = np.zeros(_shape(batch, depth))
    m = min(cutoff, depth + 1) - 1
    i = ranks(m)
    c[..., :m] = np.log2(i + 1.0) / np.log2(i + 2.0)
    return cwl_outputs(c, cwl_gains(batch, gains, max_gain, depth, min_rel, max_rel), out)


def inst(batch: Batch, T: float = 1.0, gains: Any = "linear", max_gain: float = 1.0, depth: int = 1000,  # noqa: N803
         out: str = "eu", min_rel: int = 0, max_rel: int = 0) -> np.ndarray:
    """INST: C(i) = ((i + T + T_i − 1)/(i + T + T_i))², T_i = T − Σ_{j≤i} g(j), the gain still
    wanted after rank i (Moffat, Bailey, Scholer & Thomas, ADCS 2015; TOIS 35(3) 2017;
    cwl_eval ``INSTCWLMetric``). Gains are at most 1 (INST's assumption, which cwl_eval checks)
    and T >= 0.5, so that i + T + T_i >= 2T and C(i) is a probability."""
    g = cwl_gains(batch, gains, min(max_gain, 1.0), depth, min_rel, max_rel)
    x = ranks(depth) + 2.0 * T - np.cumsum(g, axis=-1)  # i + T + T_i >= 2T > 0
    return cwl_outputs(((x - 1.0) / x) ** 2, g, out)


def insq(batch: Batch, T: float = 1.0, gains: Any = "linear", max_gain: float = 1.0, depth: int = 1000,  # noqa: N803
         out: str = "eu", min_rel: int = 0, max_rel: int = 0) -> np.ndarray:
    """INSQ: C(i) = ((i + 2T − 1)/(i + 2T))², INST without its adaptation to the gain found
    (Moffat, Scholer & Thomas, ADCS 2012; Moffat et al., TOIS 2017; cwl_eval
    ``INSQCWLMetric``)."""
    x = ranks(depth) + 2.0 * T
    c = np.broadcast_to(((x - 1.0) / x) ** 2, _shape(batch, depth))
    return cwl_outputs(c, cwl_gains(batch, gains, max_gain, depth, min_rel, max_rel), out)


def _bpm(batch: Batch, T: float, K: float, hb: float, hc: float, gain_med: float, gains: Any,  # noqa: N803
         max_gain: float, depth: int, out: str, min_rel: int, max_rel: int) -> np.ndarray:
    """C(i) = 1 while both bounds hold up to rank i — G(j) < T_j and j < K_j for every j <= i —
    else 0, with T_j = T + hb·Σ_{l<j}(g(l) − gain_med) and K_j = K + hc·Σ_{l<j}(g(l) − gain_med)."""
    g = cwl_gains(batch, gains, max_gain, depth, min_rel, max_rel)
    ok = (np.cumsum(g, axis=-1) < _bound(T, hb, g, gain_med)) & (ranks(depth) < _bound(K, hc, g, gain_med))
    c = np.logical_and.accumulate(ok, axis=-1)
    return cwl_outputs(c.astype(np.float64), g, out)


def _bound(start: float, h: float, g: np.ndarray, gain_med: float) -> np.ndarray:
    """start + h·Σ_{l<j}(g(l) − gain_med) for each rank j, summed in rank order as cwl_eval does
    (the bound is compared with <, so its rounding must be the same)."""
    if h == 0:
        return np.full(g.shape, start)
    steps = np.concatenate([np.full((*g.shape[:-1], 1), start), h * (g[..., :-1] - gain_med)], axis=-1)
    return np.cumsum(steps, axis=-1)


def bpm(batch: Batch, T: float = 1.0, K: float = 10.0, gains: Any = "linear", max_gain: float = 1.0,  # noqa: N803
        depth: int = 1000, out: str = "eu", min_rel: int = 0, max_rel: int = 0) -> np.ndarray:
    """The static Bejeweled Player Model: the user reads on while the gain so far is below T
    and the cost so far (the items read) below K (Zhang, Liu, Li, Zhang, Xu & Ma, SIGIR 2017;
    cwl_eval ``BPMCWLMetric``, BPM-Static)."""
    return _bpm(batch, T, K, 0.0, 0.0, 0.0, gains, max_gain, depth, out, min_rel, max_rel)


def bpm_dynamic(batch: Batch, T: float = 1.0, K: float = 10.0, hb: float = 1.0, hc: float = 0.0,  # noqa: N803
                gain_med: float = 0.5, gains: Any = "linear", max_gain: float = 1.0, depth: int = 1000,
                out: str = "eu", min_rel: int = 0, max_rel: int = 0) -> np.ndarray:
    """The dynamic Bejeweled Player Model: after each item the bounds move by its gain against
    the median gain, T ← T + hb·(g(i) − gain_med), K ← K + hc·(g(i) − gain_med) (Zhang et al.,
    SIGIR 2017; cwl_eval ``BPMDCWLMetric``, BPM-Dynamic). cwl_eval 1.0 never moves K
    (its cost loop updates T), which is hc = 0, the default."""
    return _bpm(batch, T, K, hb, hc, gain_med, gains, max_gain, depth, out, min_rel, max_rel)


def _cascade(batch: Batch, c_of_rank: np.ndarray, gains: Any, max_gain: float, depth: int, out: str, min_rel: int,
             max_rel: int) -> np.ndarray:
    """The NERR family: C(i) = c_of_rank(i)·(1 − g(i)), gains in [0, 1] (a relevant item ends the
    search with the probability of its gain, as in ERR's cascade)."""
    g = cwl_gains(batch, gains, min(max_gain, 1.0), depth, min_rel, max_rel)
    return cwl_outputs(c_of_rank * (1.0 - g), g, out)


def _until(cutoff: int, depth: int, values: np.ndarray) -> np.ndarray:
    """values on the ranks i < k (1-based), 0 from rank k on, over ``depth`` ranks."""
    return np.where(ranks(depth) < cutoff, values, 0.0)


def nerr8(batch: Batch, cutoff: int, gains: Any = "linear", max_gain: float = 1.0, depth: int = 1000,
          out: str = "eu", min_rel: int = 0, max_rel: int = 0) -> np.ndarray:
    """NERR, Eq. 8 of Azzopardi, Mackenzie & Moffat (ICTIR 2021, "ERR is not C/W/L"): C(i) =
    1 − g(i) for i < k, else 0 (cwl_eval ``NERReq8CWLMetric``, NERR-EQ8@k)."""
    return _cascade(batch, _until(cutoff, depth, np.ones(depth)), gains, max_gain, depth, out, min_rel, max_rel)


def nerr9(batch: Batch, cutoff: int, gains: Any = "linear", max_gain: float = 1.0, depth: int = 1000,
          out: str = "eu", min_rel: int = 0, max_rel: int = 0) -> np.ndarray:
    """NERR, Eq. 9 (Azzopardi, Mackenzie & Moffat, ICTIR 2021): C(i) = (i/(i+1))·(1 − g(i)) for
    i < k, else 0, ERR's 1/i discount and its cascade (cwl_eval ``NERReq9CWLMetric``, NERR-EQ9@k)."""
    i = ranks(depth).astype(np.float64)
    return _cascade(batch, _until(cutoff, depth, i / (i + 1.0)), gains, max_gain, depth, out, min_rel, max_rel)


def nerr10(batch: Batch, phi: float = 0.9, gains: Any = "linear", max_gain: float = 1.0, depth: int = 1000,
           out: str = "eu", min_rel: int = 0, max_rel: int = 0) -> np.ndarray:
    """NERR, Eq. 10 (Azzopardi, Mackenzie & Moffat, ICTIR 2021): C(i) = φ·(1 − g(i)), RBP's
    patience and ERR's cascade (cwl_eval ``NERReq10CWLMetric``, NERR-EQ10@phi)."""
    return _cascade(batch, np.full(depth, phi), gains, max_gain, depth, out, min_rel, max_rel)


def nerr11(batch: Batch, T: float = 1.0, gains: Any = "linear", max_gain: float = 1.0, depth: int = 1000,  # noqa: N803
           out: str = "eu", min_rel: int = 0, max_rel: int = 0) -> np.ndarray:
    """NERR, Eq. 11 (Azzopardi, Mackenzie & Moffat, ICTIR 2021): C(i) = ((i + 2T − 1)/(i + 2T))²·
    (1 − g(i)), INSQ's patience and ERR's cascade (cwl_eval ``NERReq11CWLMetric``, NERR-EQ11@T)."""
    x = ranks(depth) + 2.0 * T
    return _cascade(batch, ((x - 1.0) / x) ** 2, gains, max_gain, depth, out, min_rel, max_rel)


def continuation(w: np.ndarray) -> np.ndarray:
    """C(i) = W(i+1)/W(i) (0 where W(i) = 0) and C(n) = 0: the continuation probabilities of a
    metric given by its weights, as cwl_eval derives them (``TBGCWLMetric.c_vector``)."""
    here, after = w[:-1], w[1:]
    return np.r_[np.where(here > 0, after / np.where(here > 0, here, 1.0), 0.0), 0.0]


def tbg(batch: Batch, halflife: float = 224.0, gains: Any = "linear", max_gain: float = 1.0, depth: int = 1000,
        out: str = "eu", min_rel: int = 0, max_rel: int = 0) -> np.ndarray:
    """Time-biased gain (Smucker & Clarke, SIGIR 2012) with every item costing 1: the weight of
    rank i is the decay D(t) = H·2^(−t/H)/ln 2 at the time t = i − 1 spent before it, scaled to
    sum to 1 (cwl_eval ``TBGCWLMetric``, TBG-H@H); C(n) = 0 at the last rank read."""
    decay = halflife * np.exp2(-(ranks(depth) - 1.0) / halflife) / np.log(2.0)
    c = np.broadcast_to(continuation(decay / decay.sum()), _shape(batch, depth))
    return cwl_outputs(c, cwl_gains(batch, gains, max_gain, depth, min_rel, max_rel), out)


def u_measure(batch: Batch, L: float = 1000.0, gains: Any = "linear", max_gain: float = 1.0,  # noqa: N803
              depth: int = 1000, out: str = "eu", min_rel: int = 0, max_rel: int = 0) -> np.ndarray:
    """U-measure (Sakai & Dou, SIGIR 2013) with every item costing 1: the weight of rank i < n is
    max(0, 1 − (i − 1)/L), the reader's position decaying linearly to L, and of rank n 0, scaled to
    sum to 1 (cwl_eval ``UMeasureCWLMetric``, U-L@L)."""
    position = ranks(depth).astype(np.float64) - 1.0
    w = np.where(position < depth - 1, np.maximum(0.0, 1.0 - position / L), 0.0)
    c = np.broadcast_to(continuation(w / w.sum() if w.sum() > 0 else w), _shape(batch, depth))
    return cwl_outputs(c, cwl_gains(batch, gains, max_gain, depth, min_rel, max_rel), out)


# --------------------------------------------------------------------------- registration
GAINS = Param("gains", "gains", "linear",
              "gain of each label: linear (the label, as cwl_eval reads the qrels), exp (2^l - 1) or a map")
MAX_GAIN = Param("max_gain", "float", 1.0, "the largest gain (cwl_eval --max_gain); a larger gain counts as it",
                 low=0, open_low=True)
DEPTH = Param("depth", "int", 1000, "ranks read: rankings are cut or padded with gain 0 to this depth "
              "(cwl_eval --max_depth)", low=1, high=100_000)
OUT = Param("out", "choice", "eu", "eu: expected utility per item; etu: expected total utility; ec: expected "
            "cost per item; etc: expected total cost; ed: expected depth (cwl_eval's EU, ETU, EC, ETC, ED)",
            choices=OUTPUTS)
MIN_REL = Param("min_rel", "int", 0, "with max_rel: the label of gain 0 (ir_measures' min_rel)")
MAX_REL = Param("max_rel", "int", 0, "the label of gain 1: a label l gains (clip(l, min_rel, max_rel) − min_rel)"
                "/(max_rel − min_rel) (ir_measures' max_rel; 0: no scaling, the gains above)", low=0)
COMMON = (GAINS, MAX_GAIN, DEPTH, OUT, MIN_REL, MAX_REL)
CWL_EVAL = "cwl_eval 1.0 (Azzopardi, Thomas & Moffat, SIGIR 2019)"
T_GAIN = "T, the gain the user wants"
CITE_CWL = "Moffat, Bailey, Scholer & Thomas, TOIS 35(3) 2017; Azzopardi, Thomas & Moffat, SIGIR 2019 (cwl_eval)"


def _depth(p: Mapping[str, Any]) -> int:
    return int(p["depth"])


def _register(name: str, kernel: Callable[..., np.ndarray], params: tuple[Param, ...], cite: str, doc: str,
              reference: str, aliases: tuple[str, ...] = (), cutoff: str = "none") -> None:
    register(MeasureSpec(
        name, kernel, params + COMMON, cite=cite, doc=doc + " (C/W/L; out= picks EU, ETU, EC, ETC or ED)",
        aliases=aliases, cutoff=cutoff, value_range=(0.0, float("inf")), truncation_aware=False,
        depth=_depth, reference=f"{CWL_EVAL}: {reference}",
    ))


_register("CWL-P", cwl_precision, (cutoff_param("k: the user reads exactly the first k items"),),
          cite=f"van Rijsbergen 1979; {CITE_CWL}", doc="precision at k", reference="P@k", cutoff="required")
_register("CWL-RBP", cwl_rbp,
          (Param("p", "float", 0.9, "persistence: the probability of reading the next item", low=0, high=1),),
          cite=f"Moffat & Zobel, TOIS 2008; {CITE_CWL}", doc="rank-biased precision over the first depth ranks",
          reference="RBP@p")
_register("SDCG", sdcg, (cutoff_param("k: the DCG@k discount, scaled to sum to 1"),),
          cite=f"Järvelin & Kekäläinen, TOIS 2002; {CITE_CWL}", doc="scaled DCG@k", reference="NDCG-k@k",
          aliases=("NDCG-k",), cutoff="required")
_register("INST", inst, (Param("T", "float", 1.0, T_GAIN, low=0.5),),
          cite="Moffat, Bailey, Scholer & Thomas, ADCS 2015; " + CITE_CWL,
          doc="adaptive, target-driven user model", reference="INST-T=T")
_register("INSQ", insq, (Param("T", "float", 1.0, T_GAIN, low=0, open_low=True),),
          cite=f"Moffat, Scholer & Thomas, ADCS 2012; {CITE_CWL}", doc="INST's fixed-target predecessor",
          reference="INSQ-T=T")
BPM_T = Param("T", "float", 1.0, "T, the gain that satisfies the user (E_b)", low=0, open_low=True)
BPM_K = Param("K", "float", 10.0, "K, the cost the user will spend (E_c), here items", low=0, open_low=True)
_register("BPM", bpm, (BPM_T, BPM_K), cite=f"Zhang, Liu, Li, Zhang, Xu & Ma, SIGIR 2017; {CITE_CWL}",
          doc="static Bejeweled Player Model", reference="BPM-Static-T=T-K=K", aliases=("BPM-Static",))
_register("BPM-D", bpm_dynamic,
          (BPM_T, BPM_K, Param("hb", "float", 1.0, "how far each item's gain moves the gain bound T", low=0),
           Param("hc", "float", 0.0, "how far each item's gain moves the cost bound K (cwl_eval: never)", low=0),
           Param("gain_med", "float", 0.5, "the median gain: a larger gain raises the bounds", low=0)),
          cite=f"Zhang, Liu, Li, Zhang, Xu & Ma, SIGIR 2017; {CITE_CWL}",
          doc="dynamic Bejeweled Player Model", reference="BPM-Dynamic-T=T-K=K-hb=hb-hc=hc",
          aliases=("BPM-Dynamic",))
NERR_CITE = "Azzopardi, Mackenzie & Moffat, ICTIR 2021 (ERR is not C/W/L), Eq. {}; " + CITE_CWL
_register("NERR8", nerr8, (cutoff_param("k: the user stops at rank k at the latest"),), cite=NERR_CITE.format(8),
          doc="ERR's cascade, truncated at k", reference="NERR-EQ8@k", cutoff="required")
_register("NERR9", nerr9, (cutoff_param("k: the user stops at rank k at the latest"),), cite=NERR_CITE.format(9),
          doc="ERR's cascade with its 1/i discount, truncated at k", reference="NERR-EQ9@k", cutoff="required")
_register("NERR10", nerr10, (Param("phi", "float", 0.9, "φ, RBP's persistence", low=0, high=1),),
          cite=NERR_CITE.format(10), doc="ERR's cascade with RBP's patience", reference="NERR-EQ10@phi")
_register("NERR11", nerr11, (Param("T", "float", 1.0, T_GAIN, low=0, open_low=True),),
          cite=NERR_CITE.format(11), doc="ERR's cascade with INSQ's patience", reference="NERR-EQ11@T")
_register("TBG", tbg, (Param("halflife", "float", 224.0, "H, the half-life of the decay, in items read", low=0,
                             open_low=True),),
          cite=f"Smucker & Clarke, SIGIR 2012; {CITE_CWL}", doc="time-biased gain, one unit of time per item",
          reference="TBG-H@H")
_register("U-measure", u_measure, (Param("L", "float", 1000.0, "L, where the linear decay reaches 0, in items read",
                                         low=0, open_low=True),),
          cite=f"Sakai & Dou, SIGIR 2013; {CITE_CWL}", doc="U-measure, one unit of text per item", reference="U-L@L",
          aliases=("U",))
