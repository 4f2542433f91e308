"""Meta-evaluation: how far to trust a measure (docs/conventions.md#meta).

Every function works on topics × systems score matrices — numpy arrays, the DataFrame of
:func:`cranfield.evaluate`, :class:`cranfield.Results` or :class:`ScoreMatrix` — for one
measure or several, with the systems named (:mod:`cranfield.meta.scores`).

- Significance tests over all pairs of systems at once (:mod:`~cranfield.meta.significance`):
  :func:`t_test`, :func:`wilcoxon_test`, :func:`sign_test`, :func:`randomization_test`,
  :func:`bootstrap_test` (Sakai, WWW 2012, Figure 2), :func:`tukey_hsd` (Carterette, TOIS 2012;
  Sakai's Figure 4), :func:`pairwise_test` by name (the tests' registry:
  :mod:`~cranfield.meta.registry`); Holm, Bonferroni, Hommel, Benjamini–Hochberg and
  Benjamini–Yekutieli via ``correction=`` or :func:`adjust_pvalues`.
- :func:`discriminative_power` with the Δ required for significance (Figures 3 and 5) and
  :func:`plot_asl_curves` (:mod:`~cranfield.meta.power`).
- Agreement between measures (:mod:`~cranfield.meta.agreement`): :func:`kendall_tau`,
  :func:`tau_ap`, :func:`spearman_rho`, :func:`correlation_matrix`, :func:`intuitiveness`
  (Figure 6).
- Agreement between two sets of labels of the same units (:mod:`~cranfield.meta.labels`):
  :func:`label_agreement` — Cohen's κ, weighted κ, Krippendorff's α, the confusion matrix.
- :func:`topic_set_size`: the topics a collection needs (Sakai, Inf. Retr. J. 2016;
  :mod:`~cranfield.meta.topicsize`).
- :func:`unanimous_improvement_ratio` and :func:`quality_aspect_coverage` (Amigó, Mizzaro & Spina, SIGIR 2022, §4.4).

The command line front ends are ``cranfield compare``, ``discpower``, ``correlate``,
``intuitiveness`` and ``coverage`` (:mod:`~cranfield.cli.meta`).

Every name is imported from its module when first asked for (PEP 562): ``import cranfield.meta``
and the registry of tests (``cranfield compare --help``) import no numpy.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cranfield.meta.agreement import (
        Correlations,
        Intuitiveness,
        correlation_matrix,
        intuitiveness,
        kendall_tau,
        spearman_rho,
        tau_ap,
    )
    from cranfield.meta.labels import LabelAgreement, LabelTable, label_agreement
    from cranfield.meta.power import DiscriminativePower, discriminative_power
    from cranfield.meta.registry import CORRECTIONS
    from cranfield.meta.scores import ScoreMatrix, as_score_matrices, as_score_matrix
    from cranfield.meta.significance import (
        DEFAULT_RESAMPLES,
        TESTS,
        PairwiseResult,
        adjust_pvalues,
        bootstrap_test,
        pairwise_test,
        randomization_test,
        sign_test,
        t_test,
        tukey_hsd,
        wilcoxon_test,
    )
    from cranfield.meta.topicsize import TopicSetSize, topic_set_size
    from cranfield.meta.uir import (
        QualityAspectCoverage,
        UnanimousImprovement,
        quality_aspect_coverage,
        unanimous_improvement_ratio,
    )

__all__ = [
    "ScoreMatrix", "as_score_matrix", "as_score_matrices",
    "PairwiseResult", "TESTS", "CORRECTIONS", "DEFAULT_RESAMPLES", "adjust_pvalues", "pairwise_test",
    "t_test", "wilcoxon_test", "sign_test", "randomization_test", "bootstrap_test", "tukey_hsd",
    "DiscriminativePower", "discriminative_power",
    "LabelTable", "LabelAgreement", "label_agreement", "TopicSetSize", "topic_set_size",
    "kendall_tau", "spearman_rho", "tau_ap", "Correlations", "correlation_matrix",
    "Intuitiveness", "intuitiveness",
    "UnanimousImprovement", "unanimous_improvement_ratio", "QualityAspectCoverage", "quality_aspect_coverage",
]

# The module of each name of __all__ (CORRECTIONS: the registry, which imports no numpy).
_MODULES = {
    **dict.fromkeys(("Correlations", "Intuitiveness", "correlation_matrix", "intuitiveness", "kendall_tau",
                     "spearman_rho", "tau_ap"), "agreement"),
    **dict.fromkeys(("LabelAgreement", "LabelTable", "label_agreement"), "labels"),
    **dict.fromkeys(("DiscriminativePower", "discriminative_power"), "power"),
    **dict.fromkeys(("ScoreMatrix", "as_score_matrices", "as_score_matrix"), "scores"),
    "CORRECTIONS": "registry",
    **dict.fromkeys(("DEFAULT_RESAMPLES", "TESTS", "PairwiseResult", "adjust_pvalues", "bootstrap_test",
                     "pairwise_test", "randomization_test", "sign_test", "t_test", "tukey_hsd", "wilcoxon_test"),
                    "significance"),
    **dict.fromkeys(("TopicSetSize", "topic_set_size"), "topicsize"),
    **dict.fromkeys(("QualityAspectCoverage", "UnanimousImprovement", "quality_aspect_coverage",
                     "unanimous_improvement_ratio"), "uir"),
}


def __getattr__(name: str) -> Any:
    """A name of :data:`__all__`, imported from its module on first use (PEP 562)."""
    if name not in _MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{_MODULES[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The module's names with those imported on first use (:data:`__all__`)."""
    return sorted({*globals(), *__all__})
