"""Example data shipped with cranfield: TREC Web 2012 (ClueWeb09) qrels and two baseline runs.

The Indri query-likelihood (``ql``) and relevance-model (``rm``) runs published by the TREC
Web track organisers, 1,000 documents for each of topics 151–200, with the official ad hoc
and diversity qrels (NIST; for research use).
"""

from __future__ import annotations

from importlib import resources
from typing import TypedDict


class ExampleFiles(TypedDict):
    """Paths of :func:`example_files`."""

    qrels: str
    diversity_qrels: str
    runs: list[str]


def example_files() -> ExampleFiles:
    """Paths of the bundled files: ``qrels`` (ad hoc), ``diversity_qrels`` and ``runs`` (two)."""
    root = resources.files("cranfield") / "data"
    return {
        "qrels": str(root / "web2012.adhoc.qrels.gz"),
        "diversity_qrels": str(root / "web2012.diversity.qrels.gz"),
        "runs": [str(root / "web2012.ql.run.gz"), str(root / "web2012.rm.run.gz")],
    }


class FairnessFiles(TypedDict):
    """Paths of :func:`fairness_files`."""

    qrels: str
    runs: list[str]
    groups: str
    target: str


def fairness_files() -> FairnessFiles:
    """Paths of the small stochastic-ranking example of docs/fairness.md: qrels of two topics,
    two stochastic runs of four samples (``fixed``: one ranking four times; ``shuffled``:
    equally relevant documents take turns), document groups and a 50/50 target."""
    root = resources.files("cranfield") / "data"
    return {
        "qrels": str(root / "fair.qrels"),
        "runs": [str(root / "fair.fixed.run"), str(root / "fair.shuffled.run")],
        "groups": str(root / "fair.groups"),
        "target": str(root / "fair.target"),
    }
