"""The choices, defaults and limits of the analyses, declared once: the modules of ``analysis/``
use them, and the command line builds its parsers from them. This module imports no numpy (nor
anything else), so that ``cranfield COMMAND --help`` stays light (docs/architecture.md#start-up)."""

from __future__ import annotations

__all__ = ["ASPECT_NAMES", "DEFAULT_CORRECTION", "DEFAULT_FULL", "MAX_ASPECTS", "MAX_RANKINGS", "MAX_RELEVANT",
           "MAX_RUNS", "PAPER_000", "PROPERTIES", "REPRO_COLUMNS", "SIMILARITY_COLUMNS", "TOPIC_SETS"]

DEFAULT_CORRECTION = "holm"
"""The multiple-comparison correction of every command and function that compares pairs of runs
when none is given: Holm's step-down (Holm, Scand. J. Statist. 1979) controls the family-wise
error rate under any dependence between the tests and rejects everything Bonferroni rejects
(docs/meta.md#the-default-correction)."""

MAX_RUNS = 1000
"""Runs of a permuted collection (:mod:`~cranfield.analysis.permuted`): run pairs grow as N², and
1000 runs are ~500,000 pairs per measure."""

TOPIC_SETS = ("common", "reference")
"""The topics on which judges are compared (:mod:`~cranfield.analysis.judges`)."""

DEFAULT_FULL = ["nDCG", "ERR", "RBP(p=0.8)", "RBP(p=0.9)", "RBP(p=0.98)", "AP", "P@10", "RR", "iRBU(p=0.8)"]
"""The full-ranking measures of the optimal truncation's tau table (:mod:`~cranfield.analysis.truncation`)."""

PAPER_000 = ("relevance", "irrelevance", "redundancy", "induction")
"""The properties of Albahem et al., ADCS 2018, §3 (:mod:`~cranfield.analysis.axioms`)."""
MAX_RANKINGS = 10_000_000
"""Rankings the case analysis enumerates (scores, relations and the induction pass are O(rankings))."""
ASPECT_NAMES = "abcdefghijklmnopqrstuvw"
"""The names of the case analysis' aspects (x is the non-relevant document)."""
MAX_ASPECTS = len(ASPECT_NAMES)
MAX_RELEVANT = 10_000
"""Relevant documents per aspect of the case analysis' synthetic topic."""

PROPERTIES = ("priority", "top-weightedness", "deepness", "shallowness", "confidence", "recall", "redundancy")
"""The formal properties of Amigó, Mizzaro & Spina, SIGIR 2022 (:mod:`~cranfield.analysis.properties`)."""

REPRO_COLUMNS = ("statistic", "measure", "run", "cutoff", "topic", "value")
"""The columns of a reproducibility result's rows (:mod:`~cranfield.analysis.repro`), in every format."""

SIMILARITY_COLUMNS = ("run_a", "run_b", "topic", "measure", "value")
"""The columns of a ranking-similarity result's rows (:mod:`~cranfield.analysis.similarity`), in every format."""
