"""trec_eval's measure names and output order, kept apart from cranfield's own grammar
(STYLE: one native grammar, a separate compatibility table).

``-m map -m P.5,10 -m ndcg_cut.10`` work as in trec_eval 9.0.x: each name maps to cranfield
measures, labelled as trec_eval prints them (``map``, ``P_5``, ``ndcg_cut_10``). ``official``
is trec_eval's default set; ``runid`` asks for the ``runid all <tag>`` line. ``gm_map`` and
``gm_bpref`` are AP and bpref averaged geometrically (floor 1e-5), in the same command as
``map``. :func:`trec_eval_key` orders labels as trec_eval prints them (its measure table, then
each measure's cutoffs ascending). :class:`TrecTopics` renders the trec layout with what
trec_eval prints per topic besides the scores: ``relstring`` rows and, for ``--compat
trec_eval``, its rules for which topics get rows and for its undefined (0/0) values.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cranfield.compat.formats import format_trec
from cranfield.compat.trec_order import RELSTRING
from cranfield.evaluation.evaluator import Results
from cranfield.io import Run, as_run
from cranfield.measures.adhoc import ELEVEN_POINTS, recall_counts
from cranfield.measures.registry import Measure, parse_measure

CUTOFFS = "5,10,15,20,30,100,200,500,1000"
# trec_eval name -> (cranfield template, default parameters)
TREC_EVAL: dict[str, tuple[str, str | None]] = {
    "map": ("AP", None), "map_cut": ("AP@{}", CUTOFFS), "P": ("P@{}", CUTOFFS), "recall": ("R@{}", CUTOFFS),
    "ndcg": ("nDCG", None), "ndcg_cut": ("nDCG@{}", CUTOFFS), "recip_rank": ("RR", None),
    "Rprec": ("Rprec", None),
    "Rprec_mult": ("Rprec(mult={})", "0.20,0.40,0.60,0.80,1.00,1.20,1.40,1.60,1.80,2.00"), "bpref": ("Bpref", None),
    "infAP": ("infAP", None), "success": ("Success@{}", "1,5,10"),
    "set_P": ("SetP", None), "set_recall": ("SetR", None), "set_map": ("SetAP", None), "set_F": ("F", None),
    "num_ret": ("NumRet", None), "num_rel": ("NumRel", None), "num_rel_ret": ("NumRelRet", None),
    "num_q": ("NumQ", None), "11pt_avg": ("11pt", None), "gm_map": ("AP", None), "gm_bpref": ("Bpref", None),
    "iprec_at_recall": ("IPrec@{}", "0.00,0.10,0.20,0.30,0.40,0.50,0.60,0.70,0.80,0.90,1.00"),
    "relative_P": ("relative_P@{}", CUTOFFS), "set_relative_P": ("set_relative_P", None),
    "num_nonrel_judged_ret": ("num_nonrel_judged_ret", None), "utility": ("utility", None),
    "binG": ("binG", None), "G": ("G", None), "ndcg_rel": ("ndcg_rel", None), "Rndcg": ("Rndcg", None),
}
# trec_eval 10.0's new measures (measures/trec_eval10.py; yaap is in 9.0.x too)
TREC_EVAL10: dict[str, tuple[str, str | None]] = {
    "rbp": ("rbp", None), "rbp_resid": ("rbp_resid", None), "unj": ("unj@{}", "5,10,20"), "yaap": ("yaap", None),
}
TREC_EVAL.update(TREC_EVAL10)
PERSISTENCE_MEASURES = ("rbp", "rbp_resid")  # take trec_eval's p=value parameter
GAIN_PAIR_MEASURES = {"ndcg": "nDCG", "G": "G", "ndcg_rel": "ndcg_rel", "Rndcg": "Rndcg"}  # take level=gain pairs
GEOMETRIC = frozenset({"gm_map", "gm_bpref"})  # trec_eval names averaged geometrically
RUNID = "runid"

# trec_eval's nicknames for measure sets (measures.c); only sets cranfield computes in full
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult",
                 "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut",
                 "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
                 "num_nonrel_judged_ret"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"),
}
# trec_eval 10.0 adds unj (5, 10, 20), rbp and rbp_resid to all_trec (measures.c)
NICKNAMES10: dict[str, tuple[str, ...]] = {**NICKNAMES, "all_trec": (*NICKNAMES["all_trec"], "unj", "rbp", "rbp_resid")}


@dataclass(frozen=True)
class Relstring:
    """trec_eval's ``relstring`` measure: how many labels it prints, under which name (as
    ``m_relstring.c`` names it: ``relstring``, or ``relstring_`` + the parameter text as given,
    ``relstring_20``)."""

    length: int
    label: str


@dataclass(frozen=True)
class Request:
    """What ``-m`` asked for: display labels, measures, the topic average of each (None: the
    ``--average`` option; ``"geom"`` for trec_eval's gm_ measures) and whether a ``runid`` line
    was asked for, and ``relstring``'s length and name."""

    labels: list[str]
    measures: list[Measure]
    averages: list[str | None]
    runid: bool = False
    relstring: Relstring | None = None  # trec_eval's relstring, when asked for


# NTCIREVAL ``compute``'s output, in its order (pyNTCIREVAL main.py): name -> cranfield measure;
# then, per cutoff l, ``name@%04d``. Gains come from -g, as NTCIREVAL's do.
NTCIREVAL_WHOLE: tuple[tuple[str, str], ...] = (
    ("RR", "RR"), ("O-measure", "O-measure"), ("P-measure", "P-measure"), ("P-plus", "P+"), ("AP", "AP"),
    ("Q-measure", "Q"), ("NCUgu,P", "NCU(stop=gu,beta=0)"), ("NCUgu,BR", "NCU(stop=gu)"),
    ("NCUrb,P", "NCU(stop=rb,beta=0)"), ("NCUrb,BR", "NCU(stop=rb)"), ("RBP", "RBP(p=0.95)"), ("ERR", "ERR(sat=ntcir)"),
)
NTCIREVAL_AT: tuple[tuple[str, str], ...] = (
    ("AP", "NCU(stop=u,beta=0)"), ("Q", "Q"), ("nDCG", "nDCG(discount=jk)"), ("MSnDCG", "nDCG"), ("P", "P"),
    ("nERR", "nERR"), ("Hit", "Hit"),
)


def gdeval_request(k: int) -> Request:
    """gdeval.pl's two measures under its names ``ndcg@k`` and ``err@k`` (exp gains, ERR's
    stop probability over 2^4: TREC Web's maximum grade)."""
    pairs = [(f"ndcg@{k}", f"nDCG(gains=exp)@{k}"), (f"err@{k}", f"ERR(max_rel=4)@{k}")]
    return Request([label for label, _ in pairs], [parse_measure(m) for _, m in pairs], [None, None])


def ntcireval_request(cutoffs: list[int]) -> Request:
    """NTCIREVAL ``compute``'s measures under its names (``Q-measure``, ``NCUgu,P``,
    ``nDCG@0010``, ...) for the given cutoffs (its default: 1000)."""
    pairs = list(NTCIREVAL_WHOLE) + [(f"{name}@{k:04d}", f"{measure}@{k}")
                                     for k in cutoffs for name, measure in NTCIREVAL_AT]
    return Request([label for label, _ in pairs], [parse_measure(m) for _, m in pairs], [None] * len(pairs))


def with_gains(measure: Measure, gains: str) -> Measure:
    """The measure with ``gains`` set when it has that parameter (NTCIREVAL ``-g 1:2:3``)."""
    return measure.with_params(gains=gains) if any(p.name == "gains" for p in measure.spec.params) else measure


def from_trec_eval(text: str) -> list[tuple[str, str]] | None:
    """[(trec_eval's printed label, cranfield measure)] for a trec_eval measure name such as
    ``P.5,10`` or ``ndcg_cut``; None when the text is not a trec_eval name. As in trec_eval, the
    name ends at the first ``.``. Cutoffs are printed as trec_eval prints them: integers for ranks
    (``P_5``), two decimals otherwise; other parameters as given (``set_F_0.5``, ``11pt_avg_.2,.8``)."""
    name, _, params = text.partition(".")
    if name not in TREC_EVAL:
        return None
    template, default = TREC_EVAL[name]
    if name in GAIN_PAIR_MEASURES and params:  # gain pairs level=gain, unlisted levels keeping gain = level
        return _gain_pairs(name, params)
    if name == "utility" and params:  # utility.a,b,c,d
        return _utility(params)
    if name == "set_F" and params:
        return _set_f(params)
    if name == "11pt_avg" and params:
        return _eleven_point(params)
    if name in PERSISTENCE_MEASURES and params:
        return _persistence(name, params)
    if "{}" not in template:
        return [(name, template)] if not params else None
    values = [v.strip() for v in (params or default or "").split(",") if v.strip()]
    try:
        numbers = sorted({float(v) for v in values})
    except ValueError:
        return None
    shown = [f"{v:.2f}" if "." in (default or "") else f"{int(v)}" for v in numbers]
    return [(f"{name}_{s}", template.format(s)) for s in shown]


def _gain_pairs(name: str, params: str) -> list[tuple[str, str]] | None:
    """trec_eval's ``ndcg.1=3,2=7`` as ``nDCG(gains=0:0,1:3,2:7)``, labelled ``ndcg_1=3,2=7``."""
    pairs = [p.partition("=") for p in params.split(",")]
    try:
        levels = [(int(level), float(value)) for level, eq, value in pairs if eq]
    except ValueError:
        return None
    if len(levels) != len(pairs):
        return None
    if 0 not in dict(levels):  # a pair list, never read as NTCIREVAL's per-level vector 2:10
        levels.insert(0, (0, 0.0))
    gains = ",".join(f"{k}:{v:g}" for k, v in levels)
    return [(f"{name}_{params}", f"{GAIN_PAIR_MEASURES[name]}(gains={gains})")]


def _persistence(name: str, params: str) -> list[tuple[str, str]] | None:
    """trec_eval 10's ``rbp.p=0.8`` as ``rbp(p=0.8)``, labelled ``rbp_p=0.8`` (gain pairs such as
    ``rbp.1=0.5`` are not read: None)."""
    key, eq, value = params.partition("=")
    if key != "p" or not eq:
        return None
    return [(f"{name}_{params}", f"{name}(p={value})")]


def _utility(params: str) -> list[tuple[str, str]] | None:
    """trec_eval's ``utility.1,-1,0,0`` (the four contingency-table weights)."""
    try:
        weights = [float(v) for v in params.split(",")]
    except ValueError:
        return None
    if len(weights) != 4:
        return None
    return [(f"utility_{params}", "utility(" + ",".join(f"{k}={w:g}" for k, w in zip("abcd", weights)) + ")")]


def _set_f(params: str) -> list[tuple[str, str]]:
    """trec_eval's ``set_F.x``: (x + 1)·P·R / (x·P + R) (``m_set_F.c``), F_β with β² = x, so
    ``F(beta=√x)``, labelled ``set_F_x``."""
    from cranfield.errors import MeasureError

    try:
        x = float(params)
    except ValueError:
        x = math.nan
    if not (math.isfinite(x) and x >= 0):
        raise MeasureError(f"trec_eval's set_F.x takes one number x >= 0, the weight β² of recall (set_F.1.0: "
                           f"F1, set_F.0.25: F0.5); got set_F.{params}")
    return [(f"set_F_{params}", f"F(beta={math.sqrt(x)!r})")]


def _eleven_point(params: str) -> list[tuple[str, str]]:
    """trec_eval's ``11pt_avg.0.2,0.5,0.8``: interpolated precision averaged over those recall
    levels (``m_11pt_avg.c``, which walks them in ascending order), labelled ``11pt_avg_0.2,0.5,0.8``."""
    from cranfield.errors import MeasureError

    try:
        levels = [float(v) for v in params.split(",")]
    except ValueError:
        levels = []
    if not levels or any(b < a for a, b in itertools.pairwise(levels)):
        raise MeasureError(f"trec_eval's 11pt_avg takes recall levels in ascending order separated by commas, "
                           f"e.g. 11pt_avg.0.2,0.5,0.8; got 11pt_avg.{params}")
    return [(f"11pt_avg_{params}", "11pt(levels=" + ",".join(map(repr, levels)) + ")")]


def as_trec_eval10(measure: Measure) -> Measure:
    """The measure as trec_eval 10.0 computes it: recall levels turned into counts of relevant
    documents by rounding (IPrec, 11pt: ``rounding=trec_eval10``, its ``lround``); others unchanged."""
    return measure.with_params(rounding="trec_eval10") if any(p.name == "rounding" for p in measure.spec.params) \
        else measure


def with_relevance_level(measure: Measure, level: int) -> Measure:
    """The measure with ``rel=level`` when it has that parameter (trec_eval ``-l``)."""
    names = {p.name for p in measure.spec.params}
    return measure.with_params(rel=level) if "rel" in names else measure


# trec_eval's other nicknames hold measures cranfield does not compute
PARTIAL_NICKNAMES: dict[str, str] = {
    "prefs": "the prefs_* measures", "all_prefs": "the prefs_* measures",
    "qrels_jg": "map_avgjg, P_avgjg, Rprec_mult_avgjg",
}


def _expand(texts: list[str], nicknames: dict[str, tuple[str, ...]] = NICKNAMES) -> list[tuple[str, bool]]:
    """(name, whether it came from a trec_eval nickname) for each ``-m`` value."""
    from cranfield.errors import MeasureError

    out: list[tuple[str, bool]] = []
    for text in texts:
        if text in PARTIAL_NICKNAMES:
            raise MeasureError(f"trec_eval's measure set {text!r} includes measures cranfield does not compute "
                               f"({PARTIAL_NICKNAMES[text]}); name the measures you need, or use 'official'")
        if text in nicknames:
            out.extend((name, True) for name in nicknames[text])
        else:
            out.append((text, False))
    return out


def _pairs(text: str, trec_eval_first: bool) -> list[tuple[str, Measure]]:
    """(label, measure) for one name: cranfield's grammar first, then trec_eval's table (the
    other way round for names from a trec_eval nickname: its ``recall`` is ``recall.5,...``)."""
    from cranfield.errors import MeasureError

    mapped = from_trec_eval(text) if trec_eval_first else None
    if mapped is None:
        try:
            return [(text, parse_measure(text))]
        except MeasureError:
            mapped = from_trec_eval(text)
            if mapped is None:
                raise
    return [(label, parse_measure(name)) for label, name in mapped]


def resolve(texts: list[str], nicknames: dict[str, tuple[str, ...]] = NICKNAMES) -> Request:
    """Labels and measures for ``-m`` values: cranfield names, else trec_eval names and
    nicknames (``official``, ``all_trec``, ``set``; trec_eval 10.0's with ``nicknames=NICKNAMES10``);
    a measure asked for twice is kept once."""
    labels: list[str] = []
    measures: list[Measure] = []
    averages: list[str | None] = []
    runid = False
    relstring = None
    for text, from_nickname in _expand(texts, nicknames):
        if text == RUNID:
            runid = True
            continue
        name, _, params = text.partition(".")
        if name == RELSTRING:
            if relstring is None or (params and relstring.label == RELSTRING):  # trec_eval: the first parameters
                relstring = _relstring(params)
            continue
        for label, measure in _pairs(text, from_nickname):
            if label not in labels:
                labels.append(label)
                measures.append(measure)
                averages.append("geom" if label in GEOMETRIC else None)
    return Request(labels, measures, averages, runid, relstring)


def _relstring(params: str) -> Relstring:
    """``relstring`` (10 labels) or ``relstring.N``: N labels, printed as ``relstring_N``."""
    from cranfield.errors import MeasureError

    try:
        value = float(params) if params else 10.0
    except ValueError:
        value = -1.0
    if value < 0 or not value.is_integer():
        raise MeasureError(f"relstring takes the number of documents, e.g. relstring.10; got {params!r}")
    return Relstring(int(value), f"{RELSTRING}_{params}" if params else RELSTRING)


def relstring_chars(labels: np.ndarray, judged: np.ndarray) -> np.ndarray:
    """trec_eval's relstring characters (``m_relstring.c`` after ``form_res_rels.c``): each label
    0–9 as its digit, ``>`` above 9, ``.`` for any negative label (in the pool but unjudged:
    trec_eval reads every negative label as RELVALUE_UNJUDGED), ``-`` for a document outside the
    qrels (RELVALUE_NONPOOL). trec_eval's ``<`` (any other value) cannot occur."""
    digit = np.array(list("0123456789"))[np.clip(labels, 0, 9)]
    return np.select([~judged, labels < 0, labels > 9], ["-", ".", ">"], digit)


def relstrings(evaluator: Any, run: Any, length: int, every_topic: bool = False) -> dict[str, str]:
    """{topic: relstring} of a run prepared by the evaluator (its ``-M``/``-J``/prefix rules,
    :meth:`~cranfield.evaluation.evaluator.Evaluator.prepare`) as trec_eval prints it (``-m relstring.N``):
    for the topics of the run the evaluator scores (``''`` when ``-J`` leaves a ranking empty),
    none for the qrels topics the run lacks, even with ``-c`` (``trec_eval.c`` prints only the
    topics it evaluates); with ``every_topic`` (trec_eval 10.0 with ``-c``), ``''`` for those."""
    coll = evaluator.collection
    where = coll.topic_index(run)
    scored = where[(where >= 0) & evaluator.topic_mask[np.maximum(where, 0)]]
    if every_topic:
        scored = np.flatnonzero(evaluator.topic_mask)
    out = {coll.topic_ids[t]: "" for t in scored.tolist()}
    sizes = np.diff(run.offsets)
    topic = np.repeat(where, sizes)
    rank = np.arange(topic.size) - np.repeat(run.offsets[:-1], sizes)
    keep = np.flatnonzero((rank < length) & (topic >= 0) & evaluator.topic_mask[np.maximum(topic, 0)])
    found = coll.lookup(topic[keep], run.doc_key[keep], run.docno[keep])
    chars = relstring_chars(coll.labels[np.maximum(found, 0)], found >= 0)
    starts = np.flatnonzero(np.r_[True, topic[keep][1:] != topic[keep][:-1]]) if keep.size else np.zeros(0, int)
    for a, b in zip(starts.tolist(), [*starts[1:].tolist(), keep.size]):
        out[coll.topic_ids[int(topic[keep[a]])]] = "".join(chars[a:b].tolist())
    return out


# --------------------------------------------------------------------------- trec_eval's per-topic rules
C_NAN = "  -nan"  # C's printf("%6.4f") of the NaN that 0.0 / 0.0 gives (x86-64, glibc): trec_eval's undefined value


@dataclass(frozen=True)
class TrecEvalResults(Results):
    """:class:`~cranfield.evaluation.evaluator.Results` printed as trec_eval prints them
    (:func:`trec_eval_results`): ``shown`` (S, T) marks the topics each run has, ``undefined``
    (S, M, T) the values trec_eval computes as 0/0."""

    shown: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=bool))
    undefined: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 0), dtype=bool))
    totals: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """(M,): the ``all`` row of a measure whose trec_eval total is not the sum of its rows, NaN elsewhere."""

    def summary(self) -> np.ndarray:
        """The ``all`` rows; NaN where a topic's value is NaN (trec_eval sums the values), without
        the warning of a NaN left out of a mean."""
        defined = dataclasses.replace(self, values=np.where(self.undefined, 0.0, self.values))
        summary = np.where(np.isnan(self.totals), Results.summary(defined), self.totals)
        return np.where(self.undefined.any(axis=2), np.nan, summary)

    def rows(self, per_topic: bool = True) -> Iterator[tuple[str, str, str, float]]:
        """(run, topic, measure, value) rows: per topic for the topics the run has, NaN values
        included, then ``all`` per run."""
        means = self.summary()
        values = np.where(self.undefined, np.nan, self.values)
        for s, run in enumerate(self.runs):
            for t in np.flatnonzero(self.shown[s]) if per_topic else ():
                for m, measure in enumerate(self.measures):
                    yield run, self.topics[t], measure, float(values[s, m, t])
            for m, measure in enumerate(self.measures):
                yield run, "all", measure, float(means[s, m])


def trec_eval_results(results: Results, evaluator: Any, runs: list[Run], version: int = 9) -> TrecEvalResults:
    """``results`` as trec_eval 9.0.x prints them, given the ``runs`` as the evaluator scored
    them (:meth:`~cranfield.evaluation.evaluator.Evaluator.prepare`). ``trec_eval.c`` evaluates and prints
    only the topics a run has: with ``-c`` the qrels topics it lacks count in the ``all`` rows
    (as 0) but get no rows of their own. Where trec_eval computes 0/0 the value is NaN: the
    interpolated precision (``iprec_at_recall``, ``11pt_avg``) of a ranking that ``-J`` left
    empty, at every recall level that asks for no relevant document (⌊level·R + 0.9⌋ = 0: level 0,
    and every level when R = 0); its ``all`` row is then NaN too. With ``-c``, ``num_rel``'s ``all``
    row counts the judgments of label > 0 of every qrels topic, whatever ``-l`` says
    (``m_num_rel.c``, ``te_calc_avg_num_rel``), and every other measure counts such a topic as 0,
    even one whose value on an empty ranking is not 0 (``yaap``, ``utility`` with c ≠ 0).
    trec_eval 10.0 (``version=10``)
    with ``-c`` prints every qrels topic: a topic the run lacks is scored as a ranking of one
    unjudged document with its counts cleared (``trec_eval.c``'s ``bogus_ranking``), which
    ``-J`` leaves empty."""
    coll = evaluator.collection
    shown = np.zeros((len(runs), coll.n_topics), dtype=bool)
    empty = np.zeros_like(shown)
    for s, run in enumerate(runs):
        where = coll.topic_index(run)
        inside = where >= 0
        shown[s, where[inside]] = True
        empty[s, where[inside]] = run.lengths[inside] == 0
        if version >= 10 and evaluator.missing == "empty":  # trec_eval 10 -c: the bogus ranking
            missing = ~shown[s]
            shown[s] = True
            empty[s, missing] = evaluator.judged_only
    asks_none = np.zeros((len(results.measures), coll.n_topics), dtype=bool)  # a level asking for 0 documents
    for m, measure in enumerate(results.measure_specs or []):
        if levels := _recall_levels(measure):
            counts = recall_counts(levels, coll.topics.num_rel(measure.params["rel"]), measure.params["rounding"])
            asks_none[m] = (counts == 0).any(axis=1)
    keep = np.flatnonzero(evaluator.topic_mask)
    complete = evaluator.missing != "skip"
    specs = results.measure_specs or [None] * len(results.measures)
    totals = np.array([float(coll.topics.num_rel(1).sum()) if complete and spec and spec.spec.name == "NumRel"
                       else np.nan for spec in specs])
    undefined = (shown & empty)[:, None, keep] & asks_none[None, :, keep]
    fields = {f.name: getattr(results, f.name) for f in dataclasses.fields(results)}
    if complete and version < 10:  # trec_eval 9 -c: a topic the run lacks counts 0 in every `all` row but num_q's
        counted = np.array([bool(spec) and spec.spec.name == "NumQ" for spec in specs])
        fields["values"] = np.where(shown[:, None, keep] | counted[None, :, None], results.values, 0.0)
    return TrecEvalResults(**fields, shown=shown[:, keep], undefined=undefined, totals=totals)


def _recall_levels(measure: Measure) -> tuple[float, ...]:
    """The recall levels of the interpolated-precision measures (IPrec@r, 11pt); () for others."""
    if measure.spec.name == "IPrec":
        return (float(measure.params["cutoff"]),)
    if measure.spec.name == "11pt":
        return measure.params["levels"] or ELEVEN_POINTS
    return ()


@dataclass(frozen=True)
class TrecTopics:
    """The runs of one ``eval`` command, kept for what the trec layout prints per topic besides
    the scores: trec_eval's ``relstring`` rows (when asked for) and, with ``--compat trec_eval``,
    its rules for which topics it prints and for its undefined values (:func:`trec_eval_results`)."""

    evaluator: Any
    runs: list[Any]
    relstring: Relstring | None = None
    version: int = 9  # trec_eval 9.0.x, or 10 (10.0: -c prints the topics a run lacks)

    def render(self, results: Results, per_topic: bool, *, header: bool, runid: bool) -> str:
        """:func:`~cranfield.render.tables.format_trec`'s text, relstring rows under trec_eval's name
        (``relstring_20``); without ``header`` (``--compat trec_eval``) trec_eval's own text."""

        trec_eval = not header
        may_be_nan = self.evaluator.judged_only and any(map(_recall_levels, results.measure_specs or []))
        topic_rules = trec_eval and (may_be_nan or self.evaluator.missing != "skip")
        runs = self._prepared(results) if topic_rules or self.relstring is not None else []
        if topic_rules:
            results = trec_eval_results(results, self.evaluator, runs, self.version)
        every_topic = trec_eval and self.version >= 10 and self.evaluator.missing == "empty"
        texts = None if self.relstring is None else [relstrings(self.evaluator, run, self.relstring.length,
                                                                every_topic) for run in runs]
        label = RELSTRING if self.relstring is None else self.relstring.label
        return format_trec(results, per_topic, header=header, runid=runid, relstrings=texts, relstring_label=label,
                           undefined=C_NAN if trec_eval else "nan")

    def _prepared(self, results: Results) -> list[Run]:
        """The runs as the evaluator scored them (the CLI reads them once and passes the Run objects;
        a run given as a path is read with the settings of ``results``, their provenance)."""
        settings = {k: results.provenance[k] for k in ("order", "on_duplicate", "score_dtype")}
        return [self.evaluator.prepare(as_run(run, **settings)) for run in self.runs]
