"""Can these judgments be trusted? Agreement between judges — a reference's qrels and other
judges' (a second assessor, crowd workers, a large language model) — on labels, leaderboards and
significance (docs/judges.md).

:func:`compare_judges` turns qrels into the generic (topic, unit, label) tables of
:mod:`cranfield.meta.labels` — the unit is a document, or an (intent, document) pair with diversity
qrels — and, given runs, scores them under each qrels and hands the topics × runs matrices to
:func:`cranfield.meta.agreement.leaderboard_agreement` and
:func:`cranfield.meta.power.significance_agreement`. The result is one long table with the columns
``judge, part, measure, topic, statistic, value`` (Voorhees, SIGIR 1998; Faggioli et al., ICTIR 2023;
Thomas et al., SIGIR 2024; Upadhyay et al., 2024, report these numbers).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cranfield.analysis.options import TOPIC_SETS
from cranfield.errors import CranfieldError, check_choice, listing, warn
from cranfield.io import as_qrels
from cranfield.io.qrels import Qrels
from cranfield.meta.agreement import BOOTSTRAP_CI_RESAMPLES, LeaderboardAgreement, leaderboard_agreement
from cranfield.meta.labels import LabelAgreement, LabelTable, NoCommonUnits, label_agreement
from cranfield.meta.power import SignificanceAgreement, discriminative_power, significance_agreement
from cranfield.meta.scores import ScoreMatrix, as_score_matrix

__all__ = ["COLUMNS", "PARTS", "TOPIC_SETS", "NUGGET_GRADES", "JudgeComparison", "compare_judges",
           "compare_nugget_judges", "judge_names", "label_tables", "nugget_label_tables", "filled_qrels"]

COLUMNS = ("judge", "part", "measure", "topic", "statistic", "value")
PARTS = ("labels", "leaderboard", "significance")
# The grade of each nugget assignment (io.nuggets.ASSIGNMENTS: support, partial_support,
# not_support, failed): a failed assignment is scored as not supported, as nuggetizer does.
NUGGET_GRADES = np.array([2, 1, 0, 0], dtype=np.int64)


@dataclass(frozen=True, eq=False)
class JudgeComparison:
    """Every judge against the reference: labels, leaderboards and significance.

    Attributes
    ----------
    reference : str
        The reference's name.
    judges : tuple of str
    measures : tuple of str
        The measures of the leaderboard and significance parts (empty without runs).
    labels : dict of str to LabelAgreement
    leaderboards : dict of (judge, measure) to LeaderboardAgreement
    significance : dict of (judge, measure) to SignificanceAgreement
    topic_names : tuple of str
        The names of the topic codes of the label part.
    settings : dict
        The options (test, correction, alpha, B, seed, topics, rel) as plain values.
    """

    reference: str
    judges: tuple[str, ...]
    measures: tuple[str, ...]
    labels: dict[str, LabelAgreement]
    leaderboards: dict[tuple[str, str], LeaderboardAgreement] = field(default_factory=dict)
    significance: dict[tuple[str, str], SignificanceAgreement] = field(default_factory=dict)
    topic_names: tuple[str, ...] = ()
    settings: dict[str, Any] = field(default_factory=dict)

    def records(self) -> list[dict[str, Any]]:
        """One dict per row, keys :data:`COLUMNS`, in order: for each judge its labels (per topic,
        then ``all``), its leaderboard rows per measure, its significance rows per measure;
        undefined values None."""
        out: list[dict[str, Any]] = []
        for judge in self.judges:
            out += _label_records(judge, self.labels[judge], self.topic_names)
            for measure in self.measures:
                stats = self.leaderboards[judge, measure].statistics
                out += [_record(judge, "leaderboard", measure, "all", k, v) for k, v in stats.items()]
            for measure in self.measures:
                sig = self.significance[judge, measure].to_dict()
                out += [_record(judge, "significance", measure, "all", k, v) for k, v in sig.items()]
        return out

    def to_frame(self) -> Any:
        """:meth:`records` as a pandas DataFrame with the columns :data:`COLUMNS` (value: float, NaN
        where undefined; measure: None for labels)."""
        import pandas as pd

        frame = pd.DataFrame(self.records(), columns=list(COLUMNS))
        frame["value"] = frame["value"].astype("float64")
        return frame

    def to_dict(self) -> dict[str, Any]:
        """Plain values: the reference, the judges, the measures, the settings and the rows."""
        return {"reference": self.reference, "judges": list(self.judges), "measures": list(self.measures),
                "settings": dict(self.settings), "rows": self.records()}


def _record(judge: str, part: str, measure: str | None, topic: str, statistic: str, value: Any) -> dict[str, Any]:
    number = None if value is None or (isinstance(value, float) and np.isnan(value)) else value
    if isinstance(number, (np.integer, np.floating)):
        number = number.item()
    return {"judge": judge, "part": part, "measure": measure, "topic": topic, "statistic": statistic,
            "value": number}


def _label_records(judge: str, agreement: LabelAgreement, names: Sequence[str]) -> list[dict[str, Any]]:
    topics = [names[t] for t in agreement.topics] + ["all"]
    columns: dict[str, np.ndarray] = {
        "n_both": agreement.n_both, "n_reference_only": agreement.n_reference_only,
        "n_judge_only": agreement.n_judge_only, **agreement.statistics,
    }
    out = []
    for k, topic in enumerate(topics):
        for name, values in columns.items():
            value = values[k]
            out.append(_record(judge, "labels", None, topic, name,
                               int(value) if name.startswith("n_") else float(value)))
    return out


# --------------------------------------------------------------------------- inputs
def judge_names(judges: Mapping[str, Any] | Sequence[Any]) -> dict[str, Any]:
    """``{name: qrels}``: a mapping as it is; a sequence of ``name=path`` strings or paths, each
    named by its file name (an in-memory qrels by ``judge<k>``). Names must be distinct."""
    if isinstance(judges, Mapping):
        return {str(k): v for k, v in judges.items()}
    out: dict[str, Any] = {}
    for k, item in enumerate(judges, 1):
        name, value = f"judge{k}", item
        if isinstance(item, str) and "=" in item and not Path(item).exists():
            name, value = item.split("=", 1)
        elif isinstance(item, (str, Path)):
            name = Path(item).name
        if not name:
            raise CranfieldError(f"the judge {item!r} has an empty name: write name=path")
        if name in out:
            raise CranfieldError(f"two judges are named {name!r}: name them with name=path")
        out[name] = value
    if not out:
        raise CranfieldError("give at least one judge's qrels to compare with the reference")
    return out


def _codes(values: np.ndarray) -> tuple[np.ndarray, int]:
    import pandas as pd

    codes, uniques = pd.factorize(values)
    return codes.astype(np.int64), len(uniques)


def label_tables(qrels: Sequence[Qrels]) -> tuple[list[LabelTable], tuple[str, ...]]:
    """Each qrels as a :class:`~cranfield.meta.labels.LabelTable` over shared codes — topics in
    order of first appearance (the first qrels' first), units the (intent, document) pairs — and
    the topic names of the codes."""
    topic_names = tuple(dict.fromkeys(t for q in qrels for t in q.topic_ids))
    topic_code = {t: k for k, t in enumerate(topic_names)}
    intent_names = tuple(dict.fromkeys(i for q in qrels for i in q.intent_ids))
    intent_code = {i: k for k, i in enumerate(intent_names)}
    docs, n_docs = _codes(np.concatenate([np.asarray(q.docno, dtype=object) for q in qrels]))
    tables, start = [], 0
    for q in qrels:
        t = np.array([topic_code[x] for x in q.topic_ids], dtype=np.int64)[q.topic]
        i = np.array([intent_code[x] for x in q.intent_ids], dtype=np.int64)[q.intent]
        d = docs[start:start + len(q)]
        start += len(q)
        tables.append(LabelTable.of(t, i * n_docs + d, q.rel))
    return tables, topic_names


def nugget_label_tables(assignments: Sequence[Any]) -> tuple[list[LabelTable], tuple[str, ...]]:
    """Nugget assignment sets (:class:`~cranfield.io.nuggets.NuggetAssignments`) as
    label tables (:class:`~cranfield.meta.labels.LabelTable`) over shared codes: the topic is the qid, the unit
    a (run, nugget id) pair — one answer's nugget — and the label its grade, 2 support, 1 partial
    support, 0 not supported (or failed), so that manual and automatic assignments of the same
    nuggets are compared as two judges' labels (Pradeep et al., 2024, TREC 2024 RAG track)."""
    def names(values: list[str], codes: np.ndarray) -> np.ndarray:
        return np.asarray(values, dtype=object)[codes]

    topics, _ = _codes(np.concatenate([names(a.topics, a.topic) for a in assignments]))
    runs, _ = _codes(np.concatenate([names(a.runs, a.run) for a in assignments]))
    nuggets, n_nuggets = _codes(np.concatenate([names(a.nugget_ids, a.nugget) for a in assignments]))
    topic_names = tuple(dict.fromkeys(t for a in assignments for t in names(a.topics, a.topic)))
    tables, start = [], 0
    for a in assignments:
        end = start + len(a)
        tables.append(LabelTable.of(topics[start:end], runs[start:end] * n_nuggets + nuggets[start:end],
                                    NUGGET_GRADES[a.assignment]))
        start = end
    return tables, topic_names


def filled_qrels(reference: Qrels, judge: Qrels, sources: tuple[str, str] = ("reference", "judge")) -> Qrels:
    """The reference's judgments plus the judge's labels of the documents (units) the reference
    left unjudged in the reference's topics: layered qrels, so that ``eval`` and ``compare``
    treat the judge as filling the reference's holes (Faggioli et al., ICTIR 2023, §5).

    Each label keeps its source (``judged_by``, docs/judges.md#layered): ``sources[0]`` for the
    reference's (or, when the reference is layered already, the source it names) and
    ``sources[1]`` for the judge's, so that ``Judged@k(source=NAME)`` tells how much of a ranking
    each layer covers. A source name is one word (no whitespace).

    >>> from cranfield.io import qrels_from_dict
    >>> q = filled_qrels(qrels_from_dict({"1": {"a": 1}}), qrels_from_dict({"1": {"a": 0, "b": 2}, "2": {"c": 1}}),
    ...                  ("nist", "llm"))
    >>> [(d.decode(), int(r), q.judges[j]) for d, r, j in zip(q.docno, q.rel, q.judged_by)]
    [('a', 1, 'nist'), ('b', 2, 'llm')]
    """
    from cranfield.io._tokens import FLOAT, INTEGER
    from cranfield.io.qrels import build_qrels

    words = [name.encode() for name in sources]
    fractions = (FLOAT.accepts(words) & ~INTEGER.accepts(words)).tolist()
    bad = [name for name, fraction in zip(sources, fractions)
           if fraction or not name or len(name.split()) != 1 or name.split()[0] != name]
    if bad:
        raise CranfieldError(f"the source name {bad[0]!r} of layered qrels must be one word, not a fraction: name "
                             "the judge with name=path")

    (ref, jud), names = label_tables([reference, judge])
    shift = int(max(ref.unit.max(initial=0), jud.unit.max(initial=0))).bit_length()
    kr, kj = (ref.topic << shift) | ref.unit, (jud.topic << shift) | jud.unit
    add = ~np.isin(kj, kr) & np.isin(jud.topic, np.unique(ref.topic))
    topics = np.char.encode(np.array(names, dtype=str))
    intents = np.concatenate([np.char.encode(np.array(reference.intent_ids, dtype=str))[reference.intent],
                              np.char.encode(np.array(judge.intent_ids, dtype=str))[judge.intent][add]])
    own = (np.full(len(reference), sources[0], dtype=object) if reference.judged_by is None
           else np.asarray(reference.judges, dtype=object)[reference.judged_by])
    return build_qrels(
        np.concatenate([topics[ref.topic], topics[jud.topic[add]]]),
        intents if reference.diversity else None,
        np.concatenate([np.asarray(reference.docno, dtype=object), np.asarray(judge.docno, dtype=object)[add]]),
        np.concatenate([reference.rel, judge.rel[add]]), source=f"{reference.source}+{judge.source}",
        diversity=reference.diversity,
        judged_by=np.char.encode(np.concatenate([own, np.full(int(add.sum()), sources[1], dtype=object)]).astype(str)))


# --------------------------------------------------------------------------- the comparison
def _labels(reference: LabelTable, judge: LabelTable, thresholds: Sequence[float] | None,
            topic_names: Sequence[str], name: str, ref_name: str) -> LabelAgreement:
    """:func:`~cranfield.meta.labels.label_agreement`, an error naming the judge when it shares no
    judged document with the reference."""
    try:
        return label_agreement(reference, judge, thresholds=thresholds, topic_names=topic_names)
    except NoCommonUnits:
        raise CranfieldError(f"judge {name} and the reference {ref_name} have no judged document in common "
                             "(same topic and document): nothing to compare") from None


def _topic_set(reference: ScoreMatrix, judge: ScoreMatrix, name: str, topics: str) -> tuple[ScoreMatrix,
                                                                                             ScoreMatrix]:
    """The two matrices over the same topics: those both have (``common``), or the reference's,
    a topic the judge lacks scoring 0 for every run (``reference``); a warning names them."""
    missing = [t for t in reference.topics if t not in set(judge.topics)]
    if missing:
        rule = "left out" if topics == "common" else "scored 0 for every run under it"
        warn(f"judge {name} has no judgments for topics {listing(missing)} of the reference ({reference.measure}): "
             f"{rule} (--topics {topics})")
    keep = [t for t in reference.topics if t in set(judge.topics)] if topics == "common" else list(reference.topics)
    if not keep:
        raise CranfieldError(f"judge {name} and the reference have no topic in common")
    rows_j = {t: k for k, t in enumerate(judge.topics)}
    rows_r = {t: k for k, t in enumerate(reference.topics)}
    jv = np.zeros((len(keep), judge.n_systems))
    present = np.array([t in rows_j for t in keep])
    jv[present] = judge.values[[rows_j[t] for t in keep if t in rows_j]]
    rv = reference.values[[rows_r[t] for t in keep]]
    return (ScoreMatrix(rv, reference.systems, tuple(keep), reference.measure),
            ScoreMatrix(jv, judge.systems, tuple(keep), judge.measure))


def _with_rel(measures: Sequence[str], rel: int | None) -> list[str]:
    """The measures, those with a ``rel`` parameter (the lowest relevant label) left at its
    default set to ``rel``."""
    from cranfield.measures.registry import parse_measure

    if rel is None:
        return list(measures)
    out = []
    for name in measures:
        m = parse_measure(name)
        names = [p.name for p in m.spec.params]
        out.append(str(m.with_params(rel=rel)) if "rel" in names and dict(m.values)["rel"] == 1 else name)
    return out


def compare_judges(reference: Any, judges: Mapping[str, Any] | Sequence[Any], runs: Any = None,
                   measures: Sequence[str] | str | None = None, *, rel: int | None = None, topics: str = "common",
                   test: str = "t", correction: str = "none", alpha: float = 0.05, n_resamples: int | None = None,
                   seed: int = 0, bootstrap_resamples: int = BOOTSTRAP_CI_RESAMPLES, confidence: float = 0.95,
                   diversity: bool | None = None, order: str = "score", on_duplicate: str = "error",
                   client: Any = None, **options: Any) -> JudgeComparison:
    """Compare each judge's qrels with the reference's: labels, and with runs leaderboards and
    significance (docs/judges.md).

    Parameters
    ----------
    reference : qrels (path, :class:`~cranfield.io.Qrels`, dict, DataFrame)
    judges : mapping name → qrels, or a sequence of qrels (paths named by file name, ``name=path``)
    runs : runs, optional
        As for :meth:`cranfield.Evaluator.evaluate`; without runs only the label part.
    measures : str or sequence of str, optional
        The measures of the leaderboard and significance parts (default AP and nDCG@10).
    rel : int, optional
        The lowest relevant grade: Cohen's κ is then reported at this threshold only, and the
        binary measures (those with a ``rel`` parameter) count grades >= rel as relevant.
        Default: κ at every positive grade given, measures as named.
    topics : {"common", "reference"}
        The topics of the leaderboards: those both qrels judge, or the reference's (a topic
        the judge lacks scores 0); either way a warning names the topics the judge lacks.
    test, correction, alpha, n_resamples, seed
        The significance test of every pair of runs (as ``cranfield compare``); ``seed`` also
        seeds the bootstrap intervals of the correlations.
    bootstrap_resamples : int
        B of the intervals of the correlations (default 1,000; 0 for none).
    confidence : float
        Their level (default 0.95).
    diversity : bool, optional
        Read qrels as diversity qrels (the unit of label agreement is then an (intent, document) pair).
    order, on_duplicate, client, **options
        How runs are read and scored (:class:`cranfield.Evaluator`'s options).

    Returns
    -------
    JudgeComparison

    Examples
    --------
    >>> ref = {"1": {"a": 2, "b": 0, "c": 1}, "2": {"a": 1, "d": 0}}
    >>> llm = {"1": {"a": 2, "b": 1, "c": 1}, "2": {"a": 1, "d": 0}}
    >>> r = compare_judges(ref, {"llm": llm})
    >>> row = r.to_frame().query("topic == 'all' and statistic == 'agreement'")
    >>> float(row["value"].iloc[0])
    0.8
    """
    from cranfield.evaluation.evaluator import Evaluator

    check_choice(topics, "topics option", TOPIC_SETS)
    named = judge_names(judges)
    ref_name = (Path(reference).name if isinstance(reference, (str, Path)) else
                reference.source if isinstance(reference, Qrels) else "reference")
    qrels = [as_qrels(reference, diversity=diversity), *(as_qrels(q, diversity=diversity) for q in named.values())]
    kinds = {q.diversity for q in qrels}
    if len(kinds) > 1:
        raise CranfieldError("the reference and the judges must all be ad hoc qrels or all diversity qrels "
                             "(read them alike with --diversity or --adhoc)")
    tables, topic_names = label_tables(qrels)
    thresholds = None if rel is None else [rel]
    labels = {name: _labels(tables[0], table, thresholds, topic_names, name, ref_name)
              for name, table in zip(named, tables[1:])}
    settings: dict[str, Any] = {"topics": topics, "rel": rel}
    if runs is None:
        return JudgeComparison(ref_name, tuple(named), (), labels, topic_names=topic_names, settings=settings)
    wanted = ["AP", "nDCG@10"] if measures is None else [measures] if isinstance(measures, str) else list(measures)
    names = _with_rel(wanted, rel)
    results = [Evaluator(q, names, diversity=diversity, **options).evaluate(runs, order=order,
                                                                              on_duplicate=on_duplicate, client=client)
               for q in qrels]
    leaderboards, significance, b_test = _score_parts(results, named, names, topics, test=test, alpha=alpha,
                                                      n_resamples=n_resamples, seed=seed, correction=correction,
                                                      bootstrap_resamples=bootstrap_resamples, confidence=confidence,
                                                      client=client)
    settings.update({"test": test, "correction": correction, "alpha": alpha, "B": b_test, "seed": seed,
                     "bootstrap_resamples": bootstrap_resamples, "confidence": confidence})
    return JudgeComparison(ref_name, tuple(named), tuple(names), labels, leaderboards, significance,
                           topic_names, settings)


def _score_parts(results: Sequence[Any], named: Mapping[str, Any], names: Sequence[str], topics: str, *, test: str,
                 alpha: float, n_resamples: int | None, seed: int, correction: str, bootstrap_resamples: int,
                 confidence: float, client: Any) -> tuple[dict[tuple[str, str], LeaderboardAgreement],
                                                          dict[tuple[str, str], SignificanceAgreement], int | None]:
    """The leaderboard and significance parts from the scores under the reference
    (``results[0]``) and under each judge: per measure and judge, the agreement of the system
    rankings and of the significant differences, and the B of the test."""
    leaderboards, significance = {}, {}
    b_test = None
    for measure in names:
        ref_matrix = as_score_matrix(results[0], measure=measure)
        for name, res in zip(named, results[1:]):
            r, j = _topic_set(ref_matrix, as_score_matrix(res, measure=measure), name, topics)
            leaderboards[name, measure] = _leaderboard(r, j, _is_loss(results[0], measure),
                                                       n_resamples=bootstrap_resamples, rng=seed, confidence=confidence)
            powers = [discriminative_power(m, test=test, alpha=alpha, n_resamples=n_resamples, rng=seed,
                                           correction=correction, client=client) for m in (r, j)]
            b_test = powers[0].result.n_resamples
            significance[name, measure] = significance_agreement(*powers)
    return leaderboards, significance, b_test


def _is_loss(result: Any, measure: str) -> bool:
    """Whether ``measure`` of these results is a loss (``MeasureSpec.lower_is_better``: EE-L, EE-D)."""
    names, specs = list(getattr(result, "measures", [])), getattr(result, "measure_specs", None) or []
    spec = getattr(specs[names.index(measure)], "spec", None) if measure in names and len(specs) == len(names) else None
    return bool(getattr(spec, "lower_is_better", False))


def _leaderboard(r: ScoreMatrix, j: ScoreMatrix, loss: bool, **options: Any) -> LeaderboardAgreement:
    """:func:`leaderboard_agreement`, with a loss read with its smallest mean on top: τ_AP,
    max_drop and same_top computed on the negated scores, the bias and limits of agreement
    (judge − reference) on the scores themselves (docs/fairness.md#judges)."""
    if not loss:
        return leaderboard_agreement(r, j, **options)
    flipped = leaderboard_agreement(*(dataclasses.replace(m, values=-m.values) for m in (r, j)), **options)
    stats = dict(flipped.statistics)
    stats["bias"], stats["loa_low"], stats["loa_high"] = -stats["bias"], -stats["loa_high"], -stats["loa_low"]
    return dataclasses.replace(flipped, reference_means=-flipped.reference_means, judge_means=-flipped.judge_means,
                               statistics=stats)


def compare_nugget_judges(reference: Any, judges: Mapping[str, Any] | Sequence[Any],
                          measures: Sequence[str] | str | None = None, *, topics: str = "common", test: str = "t",
                          correction: str = "none", alpha: float = 0.05, n_resamples: int | None = None,
                          seed: int = 0, bootstrap_resamples: int = BOOTSTRAP_CI_RESAMPLES, confidence: float = 0.95,
                          missing: str = "zero", client: Any = None) -> JudgeComparison:
    """Compare nugget assignments of the same answers — manual and automatic (an LLM's), say —
    as :func:`compare_judges` compares qrels: the labels (support 2, partial support 1, not
    supported 0) of every (topic, run, nugget) both assign; the leaderboards of the runs under
    each set by nugget measures (Kendall's τ between the system rankings, as Pradeep et al.
    report for the TREC 2024 RAG track); and the significant differences (docs/judges.md,
    docs/nuggets.md).

    Parameters
    ----------
    reference, judges
        Nugget assignments (files, DataFrames or NuggetAssignments;
        :func:`cranfield.read_nuggets`); judges as a mapping name → assignments or a sequence
        (files named by their file name, ``name=path``).
    measures : str or sequence of str, optional
        Nugget measures of the leaderboards (default V_strict and A).
    missing : {"zero", "skip"}
        A run's missing answer (:func:`cranfield.evaluate_nuggets`).
    topics, test, correction, alpha, n_resamples, seed, bootstrap_resamples, confidence, client
        As for :func:`compare_judges`.
    """
    from cranfield.evaluation.nuggets import evaluate_nuggets
    from cranfield.io.nuggets import read_nuggets

    check_choice(topics, "topics option", TOPIC_SETS)
    named = judge_names(judges)
    ref_name = Path(reference).name if isinstance(reference, (str, Path)) else "reference"
    sets = [read_nuggets(reference), *(read_nuggets(a) for a in named.values())]
    tables, topic_names = nugget_label_tables(sets)
    labels = {name: _labels(tables[0], table, None, topic_names, name, ref_name)
              for name, table in zip(named, tables[1:])}
    wanted = ["V_strict", "A"] if measures is None else [measures] if isinstance(measures, str) else list(measures)
    results = [evaluate_nuggets(a, wanted, missing=missing) for a in sets]
    leaderboards, significance, b_test = _score_parts(
        results, named, wanted, topics, test=test, alpha=alpha, n_resamples=n_resamples, seed=seed,
        correction=correction, bootstrap_resamples=bootstrap_resamples, confidence=confidence, client=client)
    settings = {"topics": topics, "rel": None, "nuggets": True, "test": test, "correction": correction,
                "alpha": alpha, "B": b_test, "seed": seed, "bootstrap_resamples": bootstrap_resamples,
                "confidence": confidence}
    return JudgeComparison(ref_name, tuple(named), tuple(wanted), labels, leaderboards, significance, topic_names,
                           settings)
