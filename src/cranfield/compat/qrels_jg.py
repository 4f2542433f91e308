"""trec_eval's ``-R qrels_jg`` in the trec layout: its measure names (``map_avgjg``,
``P_avgjg_5``, ``Rprec_mult_avgjg_0.20``; :data:`~cranfield.compat.presets.TREC_EVAL_JG`) only
with judgment groups, and its rules for which topics get rows (docs/judges.md#qrels_jg)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from cranfield.compat.presets import C_NAN, TREC_EVAL_JG, Request, TrecEvalResults
from cranfield.errors import CranfieldError
from cranfield.evaluation.evaluator import Results

__all__ = ["JudgmentGroupTopics", "check_request"]


def check_request(request: Request, judgment_groups: bool) -> None:
    """trec_eval computes the ``*_avgjg`` measures only from ``-R qrels_jg`` files, and no
    ``relstring`` from them: the same errors, said in one line."""
    names = [label for label in request.labels
             if "_avgjg" in label and label.partition("_avgjg")[0] + "_avgjg" in TREC_EVAL_JG]
    if names and not judgment_groups:
        raise CranfieldError(f"{names[0]} averages over judgment groups: it needs trec_eval's multi-judge qrels "
                             "(qid group docno rel), read with -R qrels_jg")
    if judgment_groups and request.relstring is not None:
        raise CranfieldError("relstring prints one qrels' labels: it is not available with -R qrels_jg")


@dataclass(frozen=True)
class JudgmentGroupTopics:
    """The trec layout of judgment-group scores, as ``trec_eval -R qrels_jg -q`` prints them: a
    topic gets rows only when the run has it; with ``-c`` a qrels topic the run lacks counts 0 in
    the ``all`` rows (``num_q`` counts it), the mean taken over every topic of the file."""

    evaluator: Any  # a JudgmentGroupEvaluator
    runs: list[Any]

    def render(self, results: Results, per_topic: bool, *, header: bool, runid: bool) -> str:
        """:func:`~cranfield.compat.formats.format_trec`'s text of ``results`` under trec_eval's rules."""
        from cranfield.compat.formats import format_trec
        from cranfield.evaluation.judgment_groups import pair_id

        if not header and self.evaluator.missing != "skip":
            groups_of = self.evaluator.groups_of
            scored = [set(self.evaluator.expand(run).topic_ids) for run in self.runs]
            shown = np.array([[pair_id(t, groups_of[t][0]) in ids for t in results.topics] for ids in scored],
                             dtype=bool)
            counted = np.array([bool(m) and m.spec.name == "NumQ" for m in results.measure_specs or []], dtype=bool)
            values = np.where(shown[:, None, :] | counted[None, :, None], results.values, 0.0)
            results = TrecEvalResults(**{**vars(results), "values": values}, shown=shown,
                                      undefined=np.zeros(values.shape, dtype=bool),
                                      totals=np.full(len(results.measures), np.nan))
        return format_trec(results, per_topic, header=header, runid=runid, undefined="nan" if header else C_NAN)
