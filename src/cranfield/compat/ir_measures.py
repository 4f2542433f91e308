"""cranfield as an ir_measures provider (docs/ir_measures.md).

`ir_measures <https://github.com/terrierteam/ir_measures>`_ (MacAvaney, Macdonald & Ounis,
ECIR 2022) computes each measure object (``nDCG@10``, ``AP(rel=2)``) with one of several
*providers* (pytrec_eval, gdeval, pyndeval, cwl_eval, ...), chosen by its default pipeline.
:func:`as_ir_measures_provider` returns cranfield as one more provider, registered in
``ir_measures.providers.registry`` under ``"cranfield"``:

- it computes every ir_measures measure cranfield has an equivalent of — the mapping of names
  and parameters is :mod:`cranfield.measures.ir_measures_names` — with ``judged_only=True``
  honoured as the evaluator's option (trec_eval ``-J``);
- it defines ir_measures measure classes for cranfield's own measures (``D_sharp_nDCG@10``,
  ``RBU(p=0.8)``, ``CT@5``, ... one per catalogue entry no ir_measures class covers), registered
  so that ``ir_measures.parse_measure`` reads them; :func:`ir_measure` builds one from a
  cranfield name (``ir_measure("D#-nDCG@10")``);
- with ``pipeline="append"`` (default) it is added last to ``ir_measures.DefaultPipeline``, so
  ``ir_measures.calc_aggregate``/``iter_calc`` and PyTerrier's ``pt.Experiment`` (which calls
  ``ir_measures.iter_calc``) compute with it the measures no other provider supports;
  ``"prepend"`` makes it compute every measure it supports; ``"none"`` leaves the pipeline as is.

Per topic the provider yields a value for every qrels topic (``missing="auto"``,
docs/conventions.md#missing: a topic absent from the run scores 0, or the empty ranking for
truncation-aware measures); a run none of whose topics is in the qrels yields nothing, and
ir_measures fills in each measure's default (0).
"""

from __future__ import annotations

import keyword
import warnings
from collections.abc import Iterable, Iterator
from typing import Any

from cranfield.errors import CranfieldError, EvaluationWarning, MeasureError
from cranfield.evaluation.evaluator import Evaluator
from cranfield.measures.ir_measures_names import SHARED, split_ir_measure
from cranfield.measures.registry import MeasureSpec, iter_specs, parse_measure

__all__ = ["as_ir_measures_provider", "ir_measure", "ir_measures_name"]

PIPELINES = ("append", "prepend", "none")
_STATE: dict[str, Any] = {}
_SKIPPED_KINDS = ("measure", "levels")  # wrapped measures (IA, TOMA, CAM, MM) and 11pt's level list


def _ir_measures() -> Any:
    try:
        import ir_measures
    except ImportError:  # pragma: no cover - the extra is installed in the test environment
        raise CranfieldError("cranfield's ir_measures provider needs ir_measures: "
                             "pip install 'cranfield[irmeasures]'") from None
    return ir_measures


def ir_measures_name(spec: MeasureSpec) -> str:
    """The Python identifier naming cranfield's measure ``spec`` in ir_measures: its name or
    first alias that is one (``alpha#-IA`` → ``alpha_sharp_IA``), else its name with ``#`` →
    ``_sharp``, ``+`` → ``plus``, ``-`` → ``_`` (``D#-nDCG`` → ``D_sharp_nDCG``, ``P+Q#`` →
    ``PplusQ_sharp``)."""
    for name in (spec.name, *spec.aliases):
        if name.isidentifier() and not keyword.iskeyword(name):
            return name
    text = spec.name.replace("#", "_sharp").replace("+", "plus").replace("-", "_")
    while "__" in text:
        text = text.replace("__", "_")
    return text.strip("_")


def _param_info(im: Any, p: Any) -> Any:
    dtypes = {"int": int, "float": (int, float), "choice": str, "gains": (str, dict, tuple), "bool": bool,
              "maxrel": (str, int)}
    info = {"dtype": dtypes.get(p.kind), "desc": p.doc}
    if p.kind == "choice":
        info["choices"] = list(p.choices)
    if p.default is not None and p.kind != "gains":
        info["default"] = p.default
    return im.measures.ParamInfo(**info)


def _own_measures(im: Any) -> dict[str, Any]:
    """ir_measures measure objects for cranfield's measures that no ir_measures class covers,
    keyed by cranfield name; each is registered with ir_measures under :func:`ir_measures_name`."""
    out: dict[str, Any] = {}
    for spec in iter_specs():
        ident = ir_measures_name(spec)
        if ident in im.measures.registry or any(p.kind in _SKIPPED_KINDS for p in spec.params):
            continue
        renames = {}
        params = {}
        for p in spec.params:
            if p.name == "cutoff":
                params["cutoff"] = im.measures.ParamInfo(dtype=int, desc=p.doc)
                continue
            key = p.name + "_" if keyword.iskeyword(p.name) else p.name
            renames[key] = p.name
            params[key] = _param_info(im, p)
        params["judged_only"] = im.measures.ParamInfo(dtype=bool, default=False,
                                                      desc="drop unjudged documents first (trec_eval -J)")
        aggregator = im.measures.SumAgg if spec.aggregate == "sum" else im.measures.MeanAgg
        cls = type(f"_{ident}", (im.measures.Measure,), {
            "__name__": ident, "NAME": ident, "__doc__": f"{spec.doc} ({spec.cite}); computed by cranfield.",
            "PRETTY_NAME": spec.name, "SHORT_DESC": spec.doc, "SUPPORTED_PARAMS": params,
            "CRANFIELD_NAME": spec.name, "CRANFIELD_PARAMS": renames, "aggregator": lambda self, a=aggregator: a(),
        })
        measure = cls()
        out[spec.name] = measure
        im.measures.register(measure, name=ident)
    return out


def ir_measure(name: str) -> Any:
    """The ir_measures measure object for a cranfield measure name: ir_measures' own object where
    it has the measure (``"nDCG@10"`` → ``ir_measures.nDCG@10``), else the class defined for
    cranfield's measure (``"D#-nDCG@10"`` → ``D_sharp_nDCG@10``). Builds the provider first."""
    im = _ir_measures()
    as_ir_measures_provider(pipeline="none")
    measure = parse_measure(name)
    own = _STATE["measures"].get(measure.spec.name)
    if own is None:
        try:
            return im.parse_measure(str(measure))
        except (ValueError, NameError, SyntaxError):
            raise MeasureError(f"{name!r} has no ir_measures measure object; its ir_measures equivalent "
                               "takes other parameters (see docs/ir_measures.md)") from None
    args = {}
    back = {v: k for k, v in own.CRANFIELD_PARAMS.items()}
    for p in measure.spec.params:
        value = measure.params[p.name]
        if p.kind != "measure" and value != p.default:
            args["cutoff" if p.name == "cutoff" else back[p.name]] = value
    return own(**args)


def as_ir_measures_provider(*, pipeline: str = "append") -> Any:
    """cranfield as an ir_measures provider (``ir_measures.providers.registry["cranfield"]``).

    Parameters
    ----------
    pipeline : {"append", "prepend", "none"}
        Where in ``ir_measures.DefaultPipeline`` (used by ``ir_measures.iter_calc``,
        ``calc_aggregate`` and PyTerrier's ``pt.Experiment``) the provider goes: last (it computes
        the measures no other provider supports), first (it computes every measure it supports),
        or not at all (use ``provider.calc_aggregate(...)`` directly).

    Returns
    -------
    ir_measures.providers.Provider
        The one provider (the same object on every call).
    """
    if pipeline not in PIPELINES:
        raise CranfieldError(f"The pipeline must be one of {', '.join(map(repr, PIPELINES))}. "
                             f"Got {pipeline!r} instead.")
    im = _ir_measures()
    if "provider" not in _STATE:
        _STATE["measures"] = _own_measures(im)
        _STATE["provider"] = _provider_class(im)()
    provider = _STATE["provider"]
    im.providers.register(provider)
    chain = im.DefaultPipeline.providers
    if pipeline != "none":
        if provider in chain:
            chain.remove(provider)
        chain.insert(0 if pipeline == "prepend" else len(chain), provider)
    return provider


def _provider_class(im: Any) -> type:
    Any_ = im.providers.base.Any

    class CranfieldProvider(im.providers.Provider):
        """cranfield (exact, vectorised trec_eval/ndeval/NTCIREVAL measures) as an ir_measures provider."""

        NAME = "cranfield"
        SUPPORTED_MEASURES = [
            *(type(im.measures.registry[name])(**{k: Any_() for k in im.measures.registry[name].SUPPORTED_PARAMS})
              for name in SHARED if name in im.measures.registry),
            *(type(m)(**{k: Any_() for k in m.SUPPORTED_PARAMS}) for m in _STATE["measures"].values()),
        ]

        def supports(self, measure: Any) -> bool:
            try:
                split_ir_measure(measure)
            except (CranfieldError, AssertionError, KeyError):
                return False
            return True

        def install_instructions(self) -> str:
            return "pip install cranfield"

        def _evaluator(self, measures: Iterable[Any], qrels: Any) -> Any:
            measures = list(measures)
            frame = im.util.QrelsConverter(qrels).as_pd_dataframe()
            groups: dict[bool, list[tuple[Any, Any]]] = {}
            for m in measures:
                try:
                    converted, judged_only = split_ir_measure(m)
                except CranfieldError as e:
                    raise ValueError(f"Unsupported measure {m!r} for provider cranfield: {e}") from None
                groups.setdefault(judged_only, []).append((m, converted))
            return CranfieldEvaluator(measures, frame, groups)

    class CranfieldEvaluator(im.providers.Evaluator):
        def __init__(self, measures: list[Any], frame: Any, groups: dict[bool, list[tuple[Any, Any]]]) -> None:
            super().__init__(measures, set(frame["query_id"].astype(str)))
            intents = any(c.spec.needs_intents for g in groups.values() for _, c in g)
            varies = "iteration" in frame.columns and bool(
                (frame.groupby("query_id")["iteration"].nunique() > 1).any())
            if not (intents and varies):
                frame = frame.drop(columns=[c for c in ("iteration",) if c in frame.columns])
                frame = frame.groupby(["query_id", "doc_id"], as_index=False, sort=False)["relevance"].max()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", EvaluationWarning)
                self.evaluators = [
                    (Evaluator(frame, [c for _, c in group], judged_only=judged_only, diversity=intents and varies),
                     [m for m, _ in group])
                    for judged_only, group in groups.items()
                ]

        def _iter_calc(self, run: Any) -> Iterator[Any]:
            run = im.util.RunConverter(run).as_dict_of_dict()
            known = set(self.qrel_qids)
            run = {str(q): docs for q, docs in run.items() if docs and str(q) in known}
            if not run:
                return
            for evaluator, originals in self.evaluators:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", EvaluationWarning)
                    res = evaluator.evaluate(run, progress_bar=False)
                for t, topic in enumerate(res.topics):
                    for m, original in enumerate(originals):
                        yield im.Metric(query_id=topic, measure=original, value=float(res.values[0, m, t]))

    return CranfieldProvider
