"""``cranfield axioms``: which formal properties does a measure satisfy?"""

from __future__ import annotations

import argparse
from typing import Any

from cranfield.analysis.options import MAX_ASPECTS, MAX_RANKINGS, MAX_RELEVANT, PAPER_000
from cranfield.analysis.options import PROPERTIES as PAPER_002
from cranfield.errors import CranfieldError, check_choice

# what a row's applicable/violations count ("counted" in the output): Albahem et al.'s relations count pairs (S, T);
# Induction counts induced pairs (S, T), T reachable through the relations but not directly related to S; the
# universal properties of Amigó, Mizzaro & Spina count instances, the thresholds the candidate n (m) ≤ 1000 tried
COUNTED = {"relevance": "pairs", "irrelevance": "pairs", "redundancy": "pairs", "induction": "induced pairs",
           "priority": "instances", "top-weightedness": "instances", "deepness": "candidate n",
           "shallowness": "candidate m", "confidence": "instances", "recall": "instances",
           "redundancy-002": "instances"}

# Amigó, Mizzaro & Spina's Redundancy differs from Albahem et al.'s: it is spelled redundancy-002 here
NAMES_002 = {("redundancy-002" if p == "redundancy" else p): p for p in PAPER_002}

EPILOG = """\
properties of Albahem et al., ADCS 2018 (every ranking of length 0..depth over the aspects, in one batch):
  relevance    m(S) <= m(S.r)           irrelevance  m(S.x) <= m(S)
  redundancy   m(S.p) <= m(S.n)         induction    m(S) <= m(T), (S, T) implied by chaining the three and
                                                    not direct (counted per induced pair)
properties of Amigó, Mizzaro & Spina, SIGIR 2022 (single-intent binary rankings): priority,
  top-weightedness, deepness,
  shallowness, confidence, recall, redundancy-002.  --properties all checks both sets.
the table starts with a measures x properties grid of ✓ (holds) / ✗; every row says what it counted.

examples:
  cranfield axioms -m alpha-nDCG@10 -m ERR-IA@10 -m ACT -m AP_IA
  cranfield axioms --plugin my_measures.py -m 'MyPrecision@10' --depth 8 --aspects 3 --format json
      (your own measure: my_measures.py is the example of docs/plugins.md)
  cranfield axioms -m RBU -m OIE -m DCGU --properties confidence,recall,redundancy-002 --plot props.png
  cranfield axioms --properties all -m RR,F,P@10,AP,nDCG,Bpref,ERR,RBP,iRBU,RBPU,OIE --depth 4
"""


def add_parser(sub: Any) -> None:
    """The ``cranfield axioms`` subcommand."""
    from cranfield.cli.options import add_cluster_options, add_format_option, add_output_option

    p = sub.add_parser(
        "axioms", help="check formal properties of measures on every constructed ranking",
        description="Score every ranking up to a depth over a number of aspects in one batch and count, for each "
                    "measure and property, the applicable cases and the violations, with examples "
                    "(Albahem et al.'s case analysis; Amigó, Mizzaro & Spina's seven properties).",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("-m", "--measure", action="append", required=True, metavar="MEASURE",
                   help="a measure (repeatable, or comma-separated)")
    p.add_argument("--depth", default="10", help=f"longest ranking (default 10); at most {MAX_RANKINGS:,} rankings "
                                                  "are enumerated: depth <= 14 for 2 aspects, <= 11 for 3; "
                                                  "with induction (a default property) at most 100,000: depth <= 10 "
                                                  "for 2 aspects, <= 8 for 3")
    p.add_argument("--aspects", default="2", help=f"number of aspects, 1 to {MAX_ASPECTS} (default 2)")
    p.add_argument("--relevant-per-aspect", metavar="N",
                   help=f"relevant documents per aspect, from the depth to {MAX_RELEVANT:,} (default: the depth)")
    p.add_argument("--properties", default=",".join(PAPER_000),
                   help=f"comma-separated; Albahem et al., ADCS 2018: {','.join(PAPER_000)}; Amigó, Mizzaro & Spina, "
                        f"SIGIR 2022: {','.join(NAMES_002)}; or all (default: Albahem et al.'s four)")
    p.add_argument("--include-empty", action="store_true", help="also pairs whose smaller ranking is empty")
    p.add_argument("--examples", default="3", metavar="N", help="violating pairs kept per cell, >= 0 (default 3)")
    add_format_option(p, "axioms")
    add_output_option(p)
    add_cluster_options(p)
    p.add_argument("--plot", metavar="FILE", help="heat map of violation rates, measures × properties (.png, .svg, "
                                                  ".pdf, ...)")
    p.set_defaults(handler=_run)


def _properties(text: str) -> list[str]:
    """The properties of ``--properties``: comma-separated names, or ``all``."""
    names = [w.strip() for w in text.split(",") if w.strip()]
    if not names:
        raise CranfieldError(f"--properties names no property; choose from {', '.join([*PAPER_000, *NAMES_002])} "
                             "or all")
    if names == ["all"]:
        return [*PAPER_000, *NAMES_002]
    return list(dict.fromkeys(check_choice(w, "property", (*PAPER_000, *NAMES_002)) for w in names))


def _run(args: Any) -> int:
    from cranfield.analysis.axioms import Check, check_settings, check_space
    from cranfield.analysis.properties import check_property
    from cranfield.cli.options import check_cluster_options, check_output, cluster_from, split_measures, write_result
    from cranfield.measures.registry import parse_measure
    from cranfield.render.plots import check_plot_path, plot_property_heat_map

    check_output(args)
    check_cluster_options(args)
    if args.plot:
        check_plot_path(args.plot)
    space, relevant, examples = check_settings(args.depth, args.aspects, args.relevant_per_aspect, args.examples)
    wanted = _properties(args.properties)
    measures = list(dict.fromkeys(split_measures(args.measure)))
    for name in measures:
        parse_measure(name)
    checks = []
    if any(w in PAPER_000 for w in wanted):
        with cluster_from(args) as client:
            checks = check_space(measures, depth=space.depth, aspects=space.aspects, relevant_per_aspect=relevant,
                                 properties=[w for w in wanted if w in PAPER_000], include_empty=args.include_empty,
                                 examples=examples, client=client)
    holds = {(c.measure, c.property): c.violations == 0 for c in checks}  # Albahem et al.'s are universal
    counted = {p: COUNTED[p] for p in PAPER_000}
    for name in measures:
        for w in wanted:
            if w in NAMES_002:
                c = check_property(name, NAMES_002[w])
                checks.append(Check(name, w, c.cases, c.violations, [c.example][:examples] if c.example else []))
                holds[name, w] = c.holds
                counted[w] = COUNTED[w]
    order = {(m, p): k for k, (m, p) in enumerate((m, p) for m in measures for p in wanted)}
    checks.sort(key=lambda c: order.get((c.measure, c.property), 0))
    rows: list[dict[str, Any]]
    rows = [{**c.to_dict(), "holds": holds[c.measure, c.property], "counted": counted[c.property]} for c in checks]
    write_result(args, rows, measures=measures, properties=wanted)
    if args.plot:
        plot_property_heat_map(rows, measures, wanted, args.plot)
    return 0
