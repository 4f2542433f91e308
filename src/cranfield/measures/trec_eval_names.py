"""trec_eval's printed measure names as cranfield measure names (docs/migration.md#printed-names).

trec_eval prints a measure with its parameter after an underscore: ``P_10``, ``ndcg_cut_10``,
``recall_100``, ``map_cut_5``, ``iprec_at_recall_0.50``, ``Rprec_mult_0.20``, ``success_1``,
``unj_5``, ``rbp_p=0.8``; and the others by their names (``map``, ``Rprec``, ``bpref``,
``recip_rank``, ``set_F``, ``num_rel_ret``, ...). Users paste these names from trec_eval's output,
so :func:`from_printed` reads them wherever cranfield reads a measure name. ``gm_map`` and
``gm_bpref`` are averages, not per-topic measures: :func:`printed_hint` says so.
"""

from __future__ import annotations

import re

# trec_eval's name -> cranfield's measure; "{}" takes the printed parameter (a rank or a level)
WHOLE: dict[str, str] = {
    "map": "AP", "ndcg": "nDCG", "recip_rank": "RR", "Rprec": "Rprec", "bpref": "Bpref", "infAP": "infAP",
    "set_P": "SetP", "set_recall": "SetR", "set_map": "SetAP", "set_F": "F", "num_ret": "NumRet",
    "num_rel": "NumRel", "num_rel_ret": "NumRelRet", "num_q": "NumQ", "11pt_avg": "11pt", "rbp": "rbp",
    "rbp_resid": "rbp_resid", "yaap": "yaap", "set_relative_P": "set_relative_P", "utility": "utility",
    "num_nonrel_judged_ret": "num_nonrel_judged_ret", "binG": "binG", "G": "G", "ndcg_rel": "ndcg_rel",
    "Rndcg": "Rndcg",
}
AT_RANK: dict[str, str] = {
    "P": "P@{}", "recall": "R@{}", "map_cut": "AP@{}", "ndcg_cut": "nDCG@{}", "success": "Success@{}",
    "relative_P": "relative_P@{}", "unj": "unj@{}",
}
AT_LEVEL: dict[str, str] = {"iprec_at_recall": "IPrec@{}", "Rprec_mult": "Rprec(mult={})"}
WITH_P: dict[str, str] = {"rbp": "rbp(p={})", "rbp_resid": "rbp_resid(p={})"}
AVERAGES: dict[str, str] = {"gm_map": "AP", "gm_bpref": "Bpref"}

_PRINTED = re.compile(r"(?P<name>[A-Za-z0-9_]+?)_(?:(?P<rank>[0-9]+)|(?P<level>[0-9]*\.[0-9]+)|p=(?P<p>[0-9.eE+-]+))")


def from_printed(text: str) -> str | None:
    """The cranfield measure trec_eval prints as ``text`` (``ndcg_cut_10`` → ``nDCG@10``,
    ``iprec_at_recall_0.50`` → ``IPrec@0.50``, ``rbp_p=0.8`` → ``rbp(p=0.8)``), or None when
    ``text`` is not one of trec_eval's printed names."""
    text = text.strip()
    if text in WHOLE:
        return WHOLE[text]
    match = _PRINTED.fullmatch(text)
    if match is None:
        return None
    name = match["name"]
    if match["rank"] is not None and name in AT_RANK:
        return AT_RANK[name].format(match["rank"])
    if match["level"] is not None and name in AT_LEVEL:
        return AT_LEVEL[name].format(match["level"])
    if match["p"] is not None and name in WITH_P:
        return WITH_P[name].format(match["p"])
    return None


def printed_hint(text: str) -> str | None:
    """What to write instead of a name that looks like trec_eval's but is none of its printed
    names (``ndcg_cut``, ``P_x``, ``gm_map``), or None when it does not look like one."""
    name = text.strip()
    if name in AVERAGES:
        return (f"trec_eval's {name} is {AVERAGES[name]} averaged geometrically: measure {AVERAGES[name]} and "
                "average with --average geom (or use -m gm_map with --compat trec_eval)")
    families = [f for f in (*AT_RANK, *AT_LEVEL) if name == f or name.startswith(f + "_")]
    if not families:
        return None
    family = max(families, key=len)
    example = "0.50" if family in AT_LEVEL else "10"
    template = {**AT_RANK, **AT_LEVEL}[family]
    return (f"trec_eval prints {family} with its parameter, e.g. {family}_{example} "
            f"(cranfield: {template.format(example)})")
