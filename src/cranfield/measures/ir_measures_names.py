"""ir_measures' measure objects read as cranfield measures (docs/ir_measures.md).

`ir_measures <https://github.com/terrierteam/ir_measures>`_ (MacAvaney, Macdonald & Ounis,
ECIR 2022) names a measure by an object such as ``nDCG@10`` or ``AP(rel=2)``: an instance of
one of its ``Measure`` classes, with ``NAME``, ``params`` (the parameters given) and
``SUPPORTED_PARAMS``. This module recognises such objects by those attributes — it does not
import ir_measures — and maps each to the cranfield :class:`~cranfield.measures.registry.Measure`
that computes the same quantity: names and parameters by the table :data:`SHARED`, the cutoff
(``@k``, ``AT_PARAM``) to ``@k``, and ``judged_only`` to the evaluator's option of the same
name (trec_eval ``-J``, docs/conventions.md#labels). A parameter cranfield cannot honour is a
:class:`~cranfield.errors.MeasureError` naming it; never a silently different number.

Objects of the measure classes :mod:`cranfield.compat.ir_measures` defines for cranfield's own
measures (``D_sharp_nDCG@10``, ``RBU(p=0.8)``, ...) carry ``CRANFIELD_NAME`` and
``CRANFIELD_PARAMS`` and are read through those.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from cranfield.errors import MeasureError
from cranfield.measures.registry import READERS, Measure, lookup

__all__ = ["SHARED", "UNSUPPORTED", "is_ir_measure", "from_ir_measure", "split_ir_measure"]

Rule = Callable[[Mapping[str, Any]], tuple[str, dict[str, Any]]]


def _same(name: str, *keys: str) -> Rule:
    """Map to cranfield's ``name``, passing ``keys`` through under the same names."""
    def rule(params: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        return name, {k: params[k] for k in keys if k in params}
    rule.keys = keys  # type: ignore[attr-defined]
    return rule


def _ndcg(params: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """nDCG: ``gains`` (a label → gain dict, unlisted labels keeping gain = label as in
    trec_eval) → ``gains``; ``dcg='exp-log2'`` (2^label − 1 over log2(rank + 1), Burges et al.,
    ICML 2005) → ``gains=exp``."""
    out: dict[str, Any] = {}
    if params.get("dcg", "log2") == "exp-log2":
        if "gains" in params:
            raise MeasureError("ir_measures' nDCG(dcg='exp-log2') already fixes the gains (2^label - 1); "
                               "it cannot be combined with gains=.")
        out["gains"] = "exp"
    elif params.get("dcg", "log2") != "log2":
        raise MeasureError(f"cranfield cannot honour the dcg parameter of ir_measures' nDCG: "
                           f"{params['dcg']!r} (it maps 'log2' and 'exp-log2').")
    if "gains" in params:
        out["gains"] = _gain_pairs(params["gains"])
    return "nDCG", out


_ndcg.keys = ("gains", "dcg")  # type: ignore[attr-defined]


def _gain_pairs(gains: Any) -> Any:
    if isinstance(gains, Mapping):
        return tuple((k, v) for k, v in gains.items())
    return gains


def _numret(params: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """NumRet counts retrieved documents; with ``rel`` (ir_measures' NumRelRet) the relevant ones."""
    return ("NumRelRet", {"rel": params["rel"]}) if "rel" in params else ("NumRet", {})


_numret.keys = ("rel",)  # type: ignore[attr-defined]


def _setp(params: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """SetP; ``relative=True`` (ir_measures' SetRelP) is trec_eval's set_relative_P."""
    rel = {"rel": params["rel"]} if "rel" in params else {}
    return ("set_relative_P" if params.get("relative") else "SetP"), rel


_setp.keys = ("rel", "relative")  # type: ignore[attr-defined]


def _rbp(params: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """RBP (Moffat & Zobel, TOIS 2008, Eq. 6) with graded gains relative to the highest label.
    ir_measures' ``rel`` binarises the labels at a threshold, which cranfield's RBP does not
    express (its gain map leaves unlisted labels at gain = label)."""
    if "rel" in params:
        raise MeasureError(f"cranfield cannot honour the rel parameter of ir_measures' RBP (rel={params['rel']!r}): "
                           "cranfield's RBP is graded (gain = label / highest label); binary RBP at a threshold "
                           "has no cranfield equivalent. Drop rel=, or use the cwl_eval provider.")
    return "RBP", {k: params[k] for k in ("p",) if k in params}


_rbp.keys = ("p", "rel")  # type: ignore[attr-defined]

def _cwl(name: str, *keys: str, renames: Mapping[str, str] | None = None, cutoff_as: str | None = None) -> Rule:
    """A C/W/L measure of ir_measures' cwl_eval provider: ``min_rel``/``max_rel`` (its scaling
    of labels into gains in [0, 1]) and ``keys`` passed through, ``renames`` applied (NERR10's
    ``p`` is cranfield's ``phi``); ``cutoff_as`` names the parameter ir_measures' cutoff is (BPM's
    ``@k`` is its cost bound K)."""
    table = dict(renames or {})

    def rule(params: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        return name, {table.get(k, k): params[k] for k in (*keys, "min_rel", "max_rel") if k in params}
    rule.keys = (*keys, "min_rel", "max_rel")  # type: ignore[attr-defined]
    rule.cutoff_as = cutoff_as  # type: ignore[attr-defined]
    return rule


#: ir_measures NAME → rule giving the cranfield measure name and its parameters. Every rule
#: passes ``rel`` (the lowest relevant label, trec_eval -l) through as ``rel``.
SHARED: dict[str, Rule] = {
    "P": _same("P", "rel"),
    "R": _same("R", "rel"),
    "AP": _same("AP", "rel"),
    "RR": _same("RR", "rel"),
    "nDCG": _ndcg,
    "Rprec": _same("Rprec", "rel"),
    "Bpref": _same("Bpref", "rel"),
    "infAP": _same("infAP", "rel"),
    "NumQ": _same("NumQ"),
    "NumRel": _same("NumRel", "rel"),
    "NumRet": _numret,
    "SetP": _setp,
    "SetR": _same("SetR", "rel"),
    "SetF": _same("F", "rel", "beta"),
    "SetAP": _same("SetAP", "rel"),
    "Success": _same("Success", "rel"),
    "IPrec": _same("IPrec", "rel"),
    "ERR": _same("ERR"),
    "RBP": _rbp,
    "Judged": _same("Judged"),
    "Compat": _same("Compat", "p", "normalize"),
    "StRecall": _same("StRecall", "rel"),
    "alpha_nDCG": _same("alpha_nDCG", "alpha", "rel"),
    "alpha_DCG": _same("alpha_DCG", "alpha", "rel"),
    "ERR_IA": _same("ERR_IA", "rel"),
    "nERR_IA": _same("nERR_IA", "rel"),
    "NRBP": _same("NRBP", "alpha", "beta", "rel"),
    "nNRBP": _same("nNRBP", "alpha", "beta", "rel"),
    "AP_IA": _same("AP_IA", "rel"),
    "P_IA": _same("P_IA", "rel"),
    "INST": _cwl("INST", "T"),
    "INSQ": _cwl("INSQ", "T"),
    "BPM": _cwl("BPM", "T", cutoff_as="K"),
    "SDCG": _cwl("SDCG", "dcg"),
    "NERR8": _cwl("NERR8"),
    "NERR9": _cwl("NERR9"),
    "NERR10": _cwl("NERR10", "p", renames={"p": "phi"}),
    "NERR11": _cwl("NERR11", "T"),
}

#: ir_measures measures cranfield has no equivalent of, with the reason.
UNSUPPORTED: dict[str, str] = {
    "Accuracy": "a measure of paired relevance predictions, not of rankings",
}


def is_ir_measure(obj: Any) -> bool:
    """Whether ``obj`` looks like an ir_measures measure object (duck typing: ``NAME``, a dict
    ``params`` and a mapping ``SUPPORTED_PARAMS``)."""
    return (isinstance(getattr(obj, "NAME", None), str) and isinstance(getattr(obj, "params", None), dict)
            and isinstance(getattr(obj, "SUPPORTED_PARAMS", None), Mapping))


def _given(obj: Any) -> dict[str, Any]:
    """The parameters of ``obj`` that were given and differ from ir_measures' default."""
    out = {}
    for key, value in obj.params.items():
        info = obj.SUPPORTED_PARAMS.get(key)
        default = getattr(info, "default", None)
        if info is not None and value is not None and not (type(value) is type(default) and value == default):
            out[key] = value
    return out


def split_ir_measure(obj: Any) -> tuple[Any, bool]:
    """The cranfield Measure for an ir_measures measure object, and its ``judged_only`` flag
    (for the evaluator: ``Evaluator(..., judged_only=True)``).

    Raises
    ------
    MeasureError
        For a measure cranfield does not have or a parameter it cannot honour, naming it.
    """
    name = obj.NAME
    given = _given(obj)
    judged_only = bool(given.pop("judged_only", False))
    at = getattr(obj, "AT_PARAM", "cutoff")
    cutoff = given.pop(at, None)
    own = getattr(obj, "CRANFIELD_NAME", None)
    if isinstance(own, str):
        renames = dict(getattr(obj, "CRANFIELD_PARAMS", {}))
        target, mapped = own, {renames.get(k, k): v for k, v in given.items()}
        known = set(renames)
    elif name in SHARED:
        rule = SHARED[name]
        target, mapped = rule(given)
        known = set(getattr(rule, "keys", ()))
        if getattr(rule, "cutoff_as", None) and cutoff is not None:  # BPM@k: its cost bound K
            mapped[rule.cutoff_as], cutoff = cutoff, None  # type: ignore[attr-defined]
    elif name in UNSUPPORTED:
        raise MeasureError(f"cranfield has no equivalent of ir_measures' {name}: {UNSUPPORTED[name]}.")
    else:
        raise MeasureError(f"cranfield has no equivalent of ir_measures' measure {name!r} ({obj!r}); "
                           "`cranfield measures` lists the measures cranfield computes.")
    extra = sorted(set(given) - known)
    if extra:
        shown = ", ".join(f"{k}={given[k]!r}" for k in extra)
        raise MeasureError(f"cranfield cannot honour the parameter{'s' if len(extra) > 1 else ''} {shown} of "
                           f"ir_measures' {obj!r} ({target} in cranfield has no such parameter).")
    spec = lookup(target)
    values = {p.name: p.default for p in spec.params}
    names = {p.name for p in spec.params}
    for key, value in mapped.items():
        if key not in names:
            raise MeasureError(f"cranfield cannot honour the parameter {key}={value!r} of ir_measures' {obj!r} "
                               f"({target} in cranfield has no such parameter).")
        values[key] = spec.param(key).convert(value, spec.name)
    if cutoff is not None:
        if spec.cutoff == "none":
            raise MeasureError(f"cranfield's {target} takes no cutoff; ir_measures' {obj!r} cannot be honoured.")
        values["cutoff"] = spec.param("cutoff").convert(cutoff, spec.name)
    return Measure(spec, tuple((p.name, values[p.name]) for p in spec.params)), judged_only


def from_ir_measure(obj: Any) -> Any:
    """The cranfield Measure for an ir_measures measure object (see :func:`split_ir_measure`).

    ``judged_only=True`` is refused here: it is a property of the evaluation (trec_eval ``-J``),
    given to :class:`~cranfield.evaluation.Evaluator` as ``judged_only=True``; the ir_measures
    provider (:func:`cranfield.as_ir_measures_provider`) honours it.
    """
    measure, judged_only = split_ir_measure(obj)
    if judged_only:
        raise MeasureError(f"cranfield cannot honour judged_only=True in {obj!r} as a measure parameter: it applies "
                           "to the whole evaluation. Pass judged_only=True to cranfield.evaluate / Evaluator "
                           "(trec_eval -J), or evaluate through cranfield's ir_measures provider.")
    return measure


READERS.append((is_ir_measure, from_ir_measure))  # parse_measure reads ir_measures' objects
