"""trec_eval's measure names, kept apart from cranfield's own grammar (STYLE: one native
grammar, a separate compatibility table). ``gm_map`` is AP with the geometric topic average
(``--average geom``); the per-topic values are AP's.

``-m map -m P.5,10 -m ndcg_cut.10`` work as in trec_eval: each name maps to cranfield
measures, labelled as trec_eval prints them (``map``, ``P_5``, ``ndcg_cut_10``).
"""

from __future__ import annotations

from .registry import Measure, parse_measure

CUTOFFS = "5,10,15,20,30,100,200,500,1000"
# trec_eval name -> (cranfield template, default parameters)
TREC_EVAL: dict[str, tuple[str, str | None]] = {
    "map": ("AP", None), "map_cut": ("AP@{}", CUTOFFS), "P": ("P@{}", CUTOFFS), "recall": ("R@{}", CUTOFFS),
    "ndcg": ("nDCG", None), "ndcg_cut": ("nDCG@{}", CUTOFFS), "recip_rank": ("RR", None),
    "Rprec": ("Rprec", None),
    "Rprec_mult": ("Rprec(mult={})", "0.20,0.40,0.60,0.80,1.00,1.20,1.40,1.60,1.80,2.00"), "bpref": ("Bpref", None), "infAP": ("infAP", None), "success": ("Success@{}", "1,5,10"),
    "set_P": ("SetP", None), "set_recall": ("SetR", None), "set_map": ("SetAP", None), "set_F": ("F", None),
    "num_ret": ("NumRet", None), "num_rel": ("NumRel", None), "num_rel_ret": ("NumRelRet", None),
    "num_q": ("NumQ", None), "11pt_avg": ("11pt", None), "gm_map": ("AP", None),
    "iprec_at_recall": ("IPrec@{}", "0.00,0.10,0.20,0.30,0.40,0.50,0.60,0.70,0.80,0.90,1.00"),
}


def from_trec_eval(text: str) -> list[tuple[str, str]] | None:
    """[(trec_eval's printed label, cranfield measure)] for a trec_eval measure name such as
    ``P.5,10`` or ``ndcg_cut``; None when the text is not a trec_eval name."""
    name, _, params = text.partition(".")
    if name not in TREC_EVAL:
        return None
    template, default = TREC_EVAL[name]
    if "{}" not in template:
        return [(name, template)] if not params else None
    values = [v.strip() for v in (params or default or "").split(",") if v.strip()]
    return [(f"{name}_{v}", template.format(v)) for v in values]


def with_relevance_level(measure: Measure, level: int) -> Measure:
    """The measure with ``rel=level`` when it has that parameter (trec_eval ``-l``)."""
    names = {p.name for p in measure.spec.params}
    return measure.with_params(rel=level) if "rel" in names else measure


def resolve(texts: list[str]) -> tuple[list[str], list[Measure]]:
    """Display names and measures for ``-m`` values: cranfield names, else trec_eval names."""
    from .errors import MeasureError

    labels, measures = [], []
    for text in texts:
        try:
            measures.append(parse_measure(text))
            labels.append(text)
        except MeasureError:
            mapped = from_trec_eval(text)
            if mapped is None:
                raise
            for label, name in mapped:
                labels.append(label)
                measures.append(parse_measure(name))
    return labels, measures
