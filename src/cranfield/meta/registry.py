"""The significance tests: one registry, one declaration per test (docs/meta.md#adding-a-test).

Each :class:`SignificanceTest` declares its ``--test`` name, its kernel, whether it draws
resamples (its default B), its display name, the one phrase of ``--help`` that describes it,
whether it is one test over all systems (Tukey HSD) rather than one per pair, and the
literature it implements. Everything that names a test reads it from here:
:func:`~cranfield.meta.significance.pairwise_test` dispatches through :meth:`SignificanceTest.run`,
:func:`~cranfield.meta.discriminative_power`, :func:`~cranfield.analysis.comparison.compare_runs`
and :class:`~cranfield.render.report.Report` take the test's kind, default correction and display
name from it, and the ``--test`` and ``--B`` options of every command (``compare``,
``discpower``, ``report``, ``judges``, ``collection --permuted``) their choices, defaults and help.
The built-in tests are declared at the end of this module, each kernel by its name
(``module:function``, e.g. ``cranfield.meta.significance:t_test``) and imported when the test
first runs: reading the registry (``--test``'s choices, ``cranfield compare --help``) imports no
numpy.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from importlib import import_module
from typing import TYPE_CHECKING, Any

from cranfield.errors import check_choice, check_int, invalid

if TYPE_CHECKING:
    from cranfield.meta.significance import PairwiseResult

__all__ = ["CORRECTIONS", "MAX_RESAMPLES", "MAX_SAMPLES", "OPTIONS", "SignificanceTest", "register", "unregister",
           "lookup", "names", "resampling", "check_resamples"]

# B of every resampling test: its (B, topics) draws are held in memory at once (docs/meta.md#command-line)
MAX_RESAMPLES = 100_000
MAX_SAMPLES = MAX_RESAMPLES  # sampled topic pairs and interval resamples: as many as a test's B, drawn at once
CORRECTIONS = ("none", "holm", "bonferroni", "hommel", "bh", "by")
"""The multiple-comparison corrections of ``correction=`` and ``--correction`` (docs/conventions.md#meta)."""
_NAME = re.compile(r"[a-z][a-z0-9-]*")
_REFERENCE = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")  # a kernel by name: module:function
# What a kernel may take besides the score matrix; pairwise_test passes those its signature names.
OPTIONS = ("measure", "baseline", "correction", "n_resamples", "rng", "alpha", "tie", "keep_null", "client")


@dataclass(frozen=True)
class SignificanceTest:
    """A registered significance test.

    Attributes
    ----------
    name : str
        Its name in ``test=`` and ``--test`` (lower case, digits and ``-``).
    kernel : callable or str
        ``kernel(data, *, measure, baseline, ...) -> PairwiseResult`` over every pair of systems;
        it takes those of :data:`OPTIONS` that apply to it as keyword arguments (``n_resamples``
        and ``rng`` when it resamples, ``correction`` when it is pairwise). Or its name,
        ``"module:function"``, imported (and its signature checked) when the test first runs.
    title : str
        Its name in reports and legends, e.g. ``paired t-test``.
    summary : str
        What it is, in one phrase of ``--help``, e.g. ``paired t-test (scipy ttest_rel)``.
    cite : str
        The literature it implements (authors, venue, year, section or figure).
    default_resamples : int or None
        B when none is given (at most :data:`MAX_RESAMPLES`); None for a test that draws no
        random numbers.
    all_systems : bool
        One test over all systems that controls the family-wise error itself (Tukey HSD):
        it takes no ``correction``, and its Δ is the smallest significant difference (Sakai,
        WWW 2012, Figure 5).
    """

    name: str
    kernel: Callable[..., PairwiseResult] | str
    title: str
    summary: str
    cite: str
    default_resamples: int | None = None
    all_systems: bool = False

    def __post_init__(self) -> None:
        if not _NAME.fullmatch(self.name):
            raise invalid("name of a significance test", "lower case letters, digits and '-', first a letter",
                          self.name)
        if self.default_resamples is not None:
            check_resamples(self.default_resamples, f"default B of the {self.name} test")
        if isinstance(self.kernel, str):
            if not _REFERENCE.fullmatch(self.kernel):
                raise invalid(f"kernel of the {self.name} test", "a function or its name, 'module:function'",
                              self.kernel)
        else:
            _ = self.options  # a kernel given as a function is checked at once

    @cached_property
    def function(self) -> Callable[..., PairwiseResult]:
        """The kernel, imported from its module when it is given by name."""
        if not isinstance(self.kernel, str):
            return self.kernel
        module, _, name = self.kernel.partition(":")
        return getattr(import_module(module), name)

    @cached_property
    def options(self) -> frozenset[str]:
        """Those of :data:`OPTIONS` the kernel takes; an error if it lacks one the test needs."""
        import inspect

        signature = inspect.signature(self.function)
        taken = frozenset(signature.parameters) & frozenset(OPTIONS)
        wanted = {"correction"} if not self.all_systems else set()
        if self.resampling:
            wanted |= {"n_resamples", "rng"}
        if not wanted <= taken:
            raise invalid(f"kernel of the {self.name} test", "a function taking " + ", ".join(sorted(wanted)),
                          f"{getattr(self.function, '__name__', 'kernel')}{signature}")
        return taken

    @property
    def resampling(self) -> bool:
        """Whether the test draws resamples (and so takes B and a seed)."""
        return self.default_resamples is not None

    def resamples(self, n_resamples: int | None) -> int | None:
        """The B this test draws given ``n_resamples`` (None: its default); None when it draws none."""
        if not self.resampling:
            return None
        return self.default_resamples if n_resamples is None else n_resamples

    def run(self, data: Any, **options: Any) -> PairwiseResult:
        """``kernel(data, ...)`` with those of ``options`` (names of :data:`OPTIONS`) it takes."""
        return self.function(data, **{k: v for k, v in options.items() if k in self.options})


_REGISTRY: dict[str, SignificanceTest] = {}


def register(test: SignificanceTest) -> SignificanceTest:
    """Add ``test`` to the registry (after the others: the order of ``--test``'s choices)."""
    if not isinstance(test, SignificanceTest):
        raise TypeError(f"register takes a SignificanceTest. Got {type(test).__name__} instead.")
    if test.name in _REGISTRY:
        raise ValueError(f"significance test {test.name!r} registered twice")
    _REGISTRY[test.name] = test
    return test


def unregister(name: str) -> SignificanceTest:
    """Remove the test registered under ``name`` and return it."""
    return _REGISTRY.pop(lookup(name).name)


def lookup(name: str) -> SignificanceTest:
    """The test registered under ``name``, else the error ``The test must be one of ...``."""
    return _REGISTRY[check_choice(name, "test", tuple(_REGISTRY))]


def names() -> tuple[str, ...]:
    """The name of every registered test, in registration order."""
    return tuple(_REGISTRY)


def resampling() -> tuple[SignificanceTest, ...]:
    """The registered tests that draw resamples, in registration order."""
    return tuple(t for t in _REGISTRY.values() if t.resampling)


def check_resamples(value: Any, what: str, *, text: bool = False) -> int:
    """A number of resamples B: an integer in [1, :data:`MAX_RESAMPLES`] (given as ``text``:
    the command line's)."""
    return check_int(value, what, low=1, high=MAX_RESAMPLES, text=text)


# --------------------------------------------------------------------------- the built-in tests
# One declaration per test (docs/meta.md#adding-a-test); their order is that of --test's choices.
# Each kernel is named, and imported with numpy when the test first runs.
_KERNELS = "cranfield.meta.significance:"
register(SignificanceTest(
    "t", _KERNELS + "t_test", title="paired t-test", summary="paired t-test (scipy ttest_rel)",
    cite="Student, Biometrika 1908; Smucker, Allan & Carterette, CIKM 2007"))
register(SignificanceTest(
    "wilcoxon", _KERNELS + "wilcoxon_test", title="Wilcoxon signed-rank test", summary="signed-rank test",
    cite="Wilcoxon, Biometrics Bulletin 1945; Hull, SIGIR 1993"))
register(SignificanceTest(
    "sign", _KERNELS + "sign_test", title="sign test",
    summary="exact binomial sign test of the topics' wins and losses, ties dropped",
    cite="Hull, SIGIR 1993; Smucker, Allan & Carterette, CIKM 2007; Conover, Practical Nonparametric "
         "Statistics, 1999, §3.4"))
register(SignificanceTest(
    "randomization", _KERNELS + "randomization_test", title="randomisation test", summary="Fisher's sign-flip test",
    cite="Fisher, The Design of Experiments, 1935; Smucker, Allan & Carterette, CIKM 2007",
    default_resamples=10_000))
register(SignificanceTest(
    "bootstrap", _KERNELS + "bootstrap_test", title="paired bootstrap test",
    summary="Sakai's studentised paired bootstrap", cite="Sakai, SIGIR 2006; Sakai, WWW 2012, Figures 2–3",
    default_resamples=1_000))
register(SignificanceTest(
    "tukey", _KERNELS + "tukey_hsd_classical", title="Tukey HSD",
    summary="Tukey's HSD over all runs from the two-way ANOVA without replication (topics x runs: residual "
            "variance, studentized range; with Sakai's ES_HSD)",
    cite="Sakai, SIGIR Forum 2014, §3; Sakai, Laboratory Experiments in Information Retrieval, "
         "2018, §4.4", all_systems=True))
register(SignificanceTest(
    "tukey-randomised", _KERNELS + "tukey_hsd", title="randomised Tukey HSD",
    summary="Carterette's randomised Tukey HSD", cite="Carterette, TOIS 2012; Sakai, WWW 2012, Figure 4",
    default_resamples=5_000, all_systems=True))
