"""trec_eval's printing order: its measure table (trec_eval 9.0.x ``measures.c``) and the sort
key that puts measure labels in that order; shared by the trec layout
(:mod:`cranfield.compat.formats`) and the trec_eval presets (:mod:`cranfield.compat.presets`)."""

from __future__ import annotations

RELSTRING = "relstring"  # the first labels as text (trec_eval format only): see presets.relstrings

# trec_eval 9.0.x prints measures in the order of its measure table (measures.c)
TABLE_ORDER: tuple[str, ...] = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
    "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg",
    "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success",
    "set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret",
    "yaap", "rbp", "rbp_resid", "unj",  # after the prefs and avgjg measures cranfield does not compute
)


def trec_eval_key(label: str, position: int) -> tuple[int, float, int]:
    """Sort key that puts labels in trec_eval's printing order: its measure table, cutoffs
    ascending; labels that are not trec_eval's keep their ``position`` after those."""
    best = ""
    for name in TABLE_ORDER:
        if (label == name or label.startswith(name + "_")) and len(name) > len(best):
            best = name
    if not best:
        return (len(TABLE_ORDER), 0.0, position)
    rest = label[len(best) + 1:]
    try:
        cutoff = float(rest) if rest else 0.0
    except ValueError:  # parameters that are not a cutoff (utility_1,-1,0,0; G_1=3,2=7)
        cutoff = 0.0
    return (TABLE_ORDER.index(best), cutoff, position)
