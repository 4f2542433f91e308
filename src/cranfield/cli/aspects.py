"""``cranfield aspects order`` and ``cranfield aspects eval``: multi-aspect evaluation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from cranfield._choices import DISTANCES, MISSING_RULES
from cranfield.errors import CranfieldError, check_float, check_int, invalid

if TYPE_CHECKING:
    from cranfield.measures.aspects import AspectSpace


def _pairs(values: Sequence[str] | None, what: str, form: str = "NAME=v1,v2,...") -> dict[str, list[str]]:
    """``NAME=v1,v2,...`` options as {NAME: [v1, v2, ...]} (``NAME=FILE``: {NAME: [FILE]}); each
    NAME once."""
    out: dict[str, list[str]] = {}
    for text in values or []:
        name, _, rest = (x.strip() for x in text.partition("="))
        items = [v.strip() for v in rest.split(",")] if form.endswith("...") else [rest]
        if not name or not all(items) or name in out:
            raise invalid(f"value of {what}", f"{form} with each NAME given once", text)
        out[name] = items
    return out


def _space_from(args: Any, config: Mapping[str, Any]) -> AspectSpace:
    """The aspect space of the options and the configuration file (options win)."""
    from cranfield.measures.aspects import AspectSpace

    labels = {a: tuple(str(x) for x in v) for a, v in config.get("labels", {}).items()}
    labels.update({a: tuple(v) for a, v in _pairs(args.labels, "--labels").items()})
    embed = {**config.get("embed", {}), **_pairs(args.embed, "--embed")}
    if not labels:
        raise CranfieldError("declare each aspect's labels, worst first: --labels relevance=nr,mr,fr,hr")
    missing = getattr(args, "missing_aspect", None) or config.get("missing", "lowest")
    return AspectSpace(labels, embed, gate=args.gate or config.get("gate"), missing=missing)


def add_parser(sub: Any) -> None:
    """``cranfield aspects order`` and ``cranfield aspects eval``."""
    import argparse

    from cranfield.cli.options import add_output_option

    p = sub.add_parser("aspects", help="multi-aspect evaluation: TOMA, CAM, MM",
                       description="Evaluate rankings judged on several aspects (Maistro et al., CIKM 2021).")
    inner = p.add_subparsers(dest="aspects_command", metavar="ACTION", required=True)
    for name, doc in (("order", "print the order of label tuples TOMA induces (Maistro et al., CIKM 2021, Table 1)"),
                      ("eval", "evaluate runs with TOMA, CAM and MM side by side")):
        q = inner.add_parser(name, help=doc, description=doc, formatter_class=argparse.RawDescriptionHelpFormatter,
                             epilog="example: cranfield aspects eval --aspect relevance=rel.qrels --aspect "
                                    "correctness=corr.qrels --labels relevance=nr,mr,fr,hr --labels "
                                    "correctness=nc,pc,c --gate relevance run.txt -m 'TOMA(nDCG@10,dist=manhattan)' "
                                    "-m 'CAM(nDCG@10)' -m 'MM(nDCG@10)'")
        q.add_argument("--labels", action="append", metavar="ASPECT=l0,l1,...", help="an aspect's labels, worst first")
        q.add_argument("--embed", action="append", metavar="ASPECT=v0,v1,...", help="non-decreasing coordinates")
        q.add_argument("--gate", metavar="ASPECT", help="at its lowest label, every aspect is at its lowest label")
        q.add_argument("--config", metavar="FILE", help="labels, embed, gate, grades and missing as JSON or TOML")
        add_output_option(q)
        if name == "order":
            q.add_argument("--dist", choices=(*DISTANCES[:3], "all"), default="all")
            q.set_defaults(handler=_run_order)
        else:
            _add_eval_options(q)


def _add_eval_options(q: Any) -> None:
    """The options of ``aspects eval``: the judgments per aspect, the measures, the studies."""
    from cranfield.cli.options import add_format_option, add_run_options

    q.add_argument("runs", nargs="+", metavar="run")
    q.add_argument("--aspect", action="append", metavar="NAME=FILE",
                   help="an aspect's qrels (qid iter docno label)")
    q.add_argument("--aspect-qrels", metavar="FILE", help="one file: qid iter docno label_1 .. label_A")
    q.add_argument("--aspect-names", metavar="A1,A2,...", help="the aspects of --aspect-qrels' label columns")
    q.add_argument("--missing-aspect", choices=MISSING_RULES,
                   help="a document not judged on an aspect: lowest label (default), lowest only when "
                        "the gate aspect is at its lowest (Maistro et al., CIKM 2021, §4.1), or an error")
    q.add_argument("--grades", action="append", metavar="ASPECT=g0,g1,...",
                   help="CAM/MM: each label's grade for the per-aspect measure (default: the label index)")
    q.add_argument("-m", "--measure", action="append", required=True, metavar="MEASURE")
    q.add_argument("--per-topic", "-q", action="store_true")
    add_format_option(q, "aspects", note="--report and --study print with table or json")
    q.add_argument("--report", action="store_true",
                   help="also the upper bound of each CAM/MM measure per topic: its best score over "
                        "the candidate ideal rankings (recursive per aspect order, sum, squared, max)")
    q.add_argument("--class-weights", metavar="W1,W2,...",
                   help="TOMA: explicit weight of each equivalence class, best first (integers >= 0, "
                        "non-increasing); replaces the measures' weight=")
    q.add_argument("--aspect-weights", action="append", metavar="ASPECT=P,...",
                   help="CAM/MM: the weight p_a of each aspect (numbers >= 0, not all 0; default 1/A each)")
    q.add_argument("--study", action="append", choices=STUDIES,
                   help="also a Maistro et al., CIKM 2021, §4.3 analysis of the measures (repeatable): "
                        "tau: per-topic Kendall's tau between the run orderings of each pair of measures, "
                        "averaged over topics (Table 4, top); aspect-tau: the same between the run orderings "
                        "of each pair of aspects, each aspect scored alone by the measures' single-aspect "
                        "measure (Table 4, middle); zero: documents whose aspect labels sum to 0 at "
                        "ranks 1..--zero-depth of each topic's best run (Table 5); bands: mean sum of "
                        "aspect labels per band of ranks of each topic's best run (Table 6)")
    q.add_argument("--zero-depth", default="5", metavar="K", help="--study zero: ranks 1..K (default 5)")
    q.add_argument("--bands", default="25,50,75,100", metavar="E1,E2,...",
                   help="--study bands: last rank of each band (default 25,50,75,100)")
    q.add_argument("--plot", metavar="FILE",
                   help="with --report: box-plots per topic (Maistro et al., CIKM 2021, Figure 2)")
    add_run_options(q.add_argument_group("reading the runs (as in `cranfield eval`)"))
    q.set_defaults(handler=_run_eval)


def _run_order(args: Any) -> int:
    from cranfield.cli.options import check_output, emit
    from cranfield.io.aspects import load_config
    from cranfield.measures.aspects import order

    check_output(args)
    sp = _space_from(args, load_config(args.config) if args.config else {})
    lines: list[str] = []
    for dist in (DISTANCES[:3] if args.dist == "all" else (args.dist,)):
        tuples, classes = order(sp, dist)
        groups = [" = ".join(sp.name(t) for t, c in zip(tuples.tolist(), classes) if c == k)
                  for k in range(int(classes.max()) + 1)]
        lines.append(f"{dist} ({len(groups)} classes, best first): " + "  >  ".join(groups) + "\n")
    emit("".join(lines), args.output)
    return 0


def _run_eval(args: Any) -> int:
    from cranfield.analysis.aspects import aspect_correlation, band_quality, topic_correlation, zero_aspect_documents
    from cranfield.cli.options import check_output, chosen_format, emit, render_result, run_options_from, split_measures
    from cranfield.io import as_run
    from cranfield.io.aspects import load_config
    from cranfield.measures.aspects import check_grades, multi_aspect_measure
    from cranfield.measures.registry import parse_measure

    config = load_config(args.config) if args.config else {}
    sp = _space_from(args, config)
    grades = check_grades(sp, {**config.get("grades", {}), **_pairs(args.grades, "--grades")})
    weights = _weights(args, config)
    studies = list(dict.fromkeys(args.study or []))
    depth = check_int(args.zero_depth, "--zero-depth", low=1)
    bands = [check_int(b, "last rank of a band (--bands)", low=1) for b in args.bands.split(",")]
    if (args.report or studies) and chosen_format(args) not in ("table", "json"):
        raise CranfieldError("--report and --study print with --format table or json")
    names = list(dict.fromkeys(split_measures(args.measure)))
    measures = [multi_aspect_measure(n) for n in names]
    _check_report(args, measures)
    check_output(args)
    judgments = _read_judgments(args, sp.labels)
    runs = [as_run(r, order=args.order, on_duplicate=args.on_duplicate) for r in args.runs]  # read once
    merged = _score(sp, judgments, runs, names, grades, weights, run_options_from(args))
    extra: dict[str, Any] = {}
    if args.report:
        extra["upper_bounds"] = _report(sp, judgments, names, grades, args.plot, weights.get("aspect_weights"))
    if studies:
        scores = {n: merged.values[:, k, :] for k, n in enumerate(names)}
        topics = list(merged.topics)
        bases = [str(parse_measure(n).params["measure"]) for n in names]
        made = {"tau": lambda: topic_correlation(scores, topics),
                "aspect-tau": lambda: aspect_correlation(sp, judgments, runs, bases, grades, **run_options_from(args)),
                "zero": lambda: zero_aspect_documents(sp, judgments, runs, scores, topics, depth),
                "bands": lambda: band_quality(sp, judgments, runs, scores, topics, bands)}
        extra.update({s: made[s]() for s in studies})
    if chosen_format(args) == "json" and extra:
        import json

        from cranfield.render.outputs import rows_of

        document = {"results": rows_of("aspects", merged, {"per_topic": args.per_topic}),
                    "runs": [r.name for r in runs] if studies else None, **{k: v.to_dict() for k, v in extra.items()}}
        text = json.dumps({k: v for k, v in document.items() if v is not None}, indent=1) + "\n"
    else:
        text = render_result(args, merged, per_topic=args.per_topic) + "".join(_study_text(k, v)
                                                                               for k, v in extra.items())
    emit(text, args.output)
    return 0


STUDIES = ("tau", "aspect-tau", "zero", "bands")


def _score(sp: AspectSpace, judgments: Mapping, runs: list[Any], names: list[str], grades: Mapping,
           weights: Mapping[str, Any], options: Mapping[str, Any]) -> Any:
    """The runs scored by each TOMA/CAM/MM measure, as one Results (measures in order)."""
    import numpy as np

    from cranfield.analysis.aspects import evaluate_named

    results = [evaluate_named(sp, judgments, runs, n, grades=grades, **weights, **options) for n in names]
    first = results[0]
    return type(first)(**{**first.__dict__, "measures": names, "aggregate": ["mean"] * len(names),
                          "measure_specs": None, "values": np.concatenate([r.values for r in results], axis=1)})


def aspect_results(args: Any, measures: list[str]) -> Any:
    """``cranfield discpower`` and ``correlate`` with ``--aspects CONFIG``: the runs scored by TOMA/CAM/MM
    measures. ``args.qrels`` is then one multi-aspect qrels file ``qid iter docno label_1 .. label_A`` whose label
    columns are the aspects of the configuration's ``labels``, in that order; the configuration gives ``embed``,
    ``gate``, ``grades``, ``missing``, ``class_weights`` and ``aspect_weights`` as for ``aspects eval``."""
    from types import SimpleNamespace

    from cranfield.cli.options import run_options_from
    from cranfield.io import as_run
    from cranfield.io.aspects import load_config, read_multi_aspect_qrels
    from cranfield.measures.aspects import check_grades

    config = load_config(args.aspects)
    sp = _space_from(SimpleNamespace(labels=None, embed=None, gate=None), config)
    grades = check_grades(sp, config.get("grades", {}))
    weights = _weights(SimpleNamespace(class_weights=None, aspect_weights=None), config)
    names = list(measures)  # evaluate_named refuses a measure that is not TOMA, CAM or MM
    judgments = read_multi_aspect_qrels(args.qrels, sp.aspects, sp.labels)
    runs = [as_run(r, order=args.order, on_duplicate=args.on_duplicate) for r in args.runs]
    return _score(sp, judgments, runs, names, grades, weights, run_options_from(args))


def _weights(args: Any, config: Mapping[str, Any]) -> dict[str, Any]:
    """``class_weights`` and ``aspect_weights`` of the options and the configuration file (options win),
    checked as numbers here and as a whole by the measures."""
    out: dict[str, Any] = {}
    if args.class_weights is not None:
        out["class_weights"] = [check_int(w, "class weight (--class-weights)", low=0)
                                for w in args.class_weights.split(",")]
    elif "class_weights" in config:
        out["class_weights"] = [check_int(w, "class weight (class_weights)", low=0) for w in config["class_weights"]]
    given = {a: check_float(w, f"weight of aspect {a!r} (aspect_weights)", low=0)
             for a, w in config.get("aspect_weights", {}).items()}
    if args.aspect_weights:
        given = {}
        for text in args.aspect_weights:
            for item in text.split(","):
                name, sep, value = (x.strip() for x in item.partition("="))
                if not name or not sep or name in given:
                    raise invalid("value of --aspect-weights", "ASPECT=P,... with each ASPECT given once", text)
                given[name] = check_float(value, f"weight of aspect {name!r} (--aspect-weights)", low=0)
    if given:
        out["aspect_weights"] = given
    return out


def _study_text(key: str, result: Any) -> str:
    """A --report or --study result as aligned text (Maistro et al., CIKM 2021, Tables 4–6)."""
    from cranfield.render.tables import aligned

    if key == "upper_bounds":
        return str(result.text)
    rows = result.to_dict()["rows"]

    def num(v: Any, digits: int = 4) -> str:
        return "nan" if v is None else f"{v:.{digits}f}"

    if key == "tau":
        title = "mean per-topic Kendall's tau between the run orderings (Maistro et al., CIKM 2021, Table 4)"
        head, body = ["a", "b", "tau", "topics"], [[r["a"], r["b"], num(r["tau"]), str(r["topics"])] for r in rows]
        return f"\n{title}\n" + "".join(line + "\n" for line in aligned(head, body, [True, True, False, False]))
    if key == "aspect-tau":
        title = ("mean per-topic Kendall's tau between the run orderings of two aspects, each scored alone "
                 "(Maistro et al., CIKM 2021, Table 4, middle)")
        head = ["measure", "a", "b", "tau", "topics"]
        body = [[r["measure"], r["a"], r["b"], num(r["tau"]), str(r["topics"])] for r in rows]
        return f"\n{title}\n" + "".join(line + "\n" for line in aligned(head, body, [True] * 3 + [False] * 2))
    measures = result.measures
    grid: dict[str, list[str]] = {}
    for r in rows:
        cell = (f"{r['count']} ({num(r['percent'], 2)}%)" if key == "zero" else num(r["mean"], 2))
        grid.setdefault(r["rank" if key == "zero" else "ranks"], []).append(cell)
    if key == "zero":
        title = (f"documents whose aspect labels sum to 0 at ranks 1-{result.depth} of each topic's best run "
                 "(Maistro et al., CIKM 2021, Table 5)")
    else:
        title = ("mean sum of aspect labels per band of ranks of each topic's best run "
                 "(Maistro et al., CIKM 2021, Table 6)")
    body = [[k, *v] for k, v in grid.items()]
    lines = aligned(["rank", *measures], body, [True] + [False] * len(measures))
    return f"\n{title}\n" + "".join(line + "\n" for line in lines)


def _check_report(args: Any, measures: list[Any]) -> None:
    """--report and --plot, before any work: --plot draws --report's upper bounds of CAM/MM
    measures, into a file that can be written."""
    from cranfield.render.plots import check_plot_path

    if not args.plot:
        return
    if not args.report or not any(m.name in ("CAM", "MM") for m in measures):
        raise CranfieldError("--plot draws the upper bounds of --report for CAM and MM measures: add --report and "
                             "a CAM(...) or MM(...) measure")
    check_plot_path(args.plot)


def _read_judgments(args: Any, labels: Mapping[str, Sequence[str]]) -> dict[str, dict[str, dict[str, str]]]:
    """The judgments of --aspect NAME=FILE (one file per aspect) or --aspect-qrels FILE with
    --aspect-names (one column per aspect), never both; each label one of ``labels`` (by file and line)."""
    from cranfield.io.aspects import read_aspect_judgments, read_multi_aspect_qrels

    if args.aspect_qrels and args.aspect:
        raise CranfieldError("give the judgments either with --aspect NAME=FILE or with --aspect-qrels, not both")
    if args.aspect_names and not args.aspect_qrels:
        raise CranfieldError("--aspect-names names the label columns of --aspect-qrels: add --aspect-qrels FILE")
    if args.aspect_qrels:
        if not args.aspect_names:
            raise CranfieldError("--aspect-qrels needs --aspect-names a1,a2,...")
        return read_multi_aspect_qrels(args.aspect_qrels, [a.strip() for a in args.aspect_names.split(",")], labels)
    if args.aspect:
        return read_aspect_judgments({a: v[0] for a, v in _pairs(args.aspect, "--aspect", "NAME=FILE").items()},
                                     labels)
    raise CranfieldError("give the judgments: --aspect NAME=FILE per aspect, or --aspect-qrels FILE --aspect-names")


class _Report(NamedTuple):
    """--report: the upper bounds of each CAM/MM measure and their text."""

    bounds: dict[str, Any]
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {name: b.to_dict() for name, b in self.bounds.items()}


def _report(sp: AspectSpace, judgments: Mapping, names: list[str], grades: Mapping, plot: str | None,
            aspect_weights: Mapping[str, float] | None = None) -> _Report:
    """The upper bounds of the CAM and MM measures per topic (Maistro et al., CIKM 2021, §4.2) and their text;
    their box-plots to ``plot``."""
    from cranfield.analysis.aspects import upper_bounds
    from cranfield.measures.registry import parse_measure
    from cranfield.render.plots import plot_upper_bounds

    boxes, bounds = {}, {}
    lines: list[str] = []
    for name in names:
        m = parse_measure(name)
        if m.name not in ("CAM", "MM"):
            continue
        bounds[name] = upper_bounds(sp, judgments, str(m.params["measure"]), method=m.name.lower(), grades=grades,
                                    variant=m.params.get("variant", "eq6"), aspect_weights=aspect_weights)
        strategies, topics, values = bounds[name]
        best = values.max(axis=0)
        lines.append(f"\nupper bound of {name} per topic (best of {len(strategies)} candidate ideal rankings)")
        for t, topic in enumerate(topics):
            arg = strategies[int(values[:, t].argmax())]
            lines.append(f"  {topic}\t{best[t]:.4f}\t{arg}" + ("\t< 1" if best[t] < 1 - 1e-12 else ""))
        boxes[name] = values
    if plot and boxes:
        plot_upper_bounds(topics, boxes, plot)
    return _Report(bounds, "".join(line + "\n" for line in lines))
