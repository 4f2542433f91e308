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
The built-in tests are declared in :mod:`cranfield.meta.significance`, next to their kernels.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cranfield.errors import check_choice, check_int, invalid

if TYPE_CHECKING:
    from cranfield.meta.significance import PairwiseResult

__all__ = ["MAX_RESAMPLES", "OPTIONS", "SignificanceTest", "register", "unregister", "lookup", "names", "resampling",
           "check_resamples"]

# B of every resampling test: its (B, topics) draws are held in memory at once (docs/meta.md#command-line)
MAX_RESAMPLES = 100_000
_NAME = re.compile(r"[a-z][a-z0-9-]*")
# What a kernel may take besides the score matrix; pairwise_test passes those its signature names.
OPTIONS = ("measure", "baseline", "correction", "n_resamples", "rng", "alpha", "tie", "keep_null", "client")


@dataclass(frozen=True)
class SignificanceTest:
    """A registered significance test.

    Attributes
    ----------
    name : str
        Its name in ``test=`` and ``--test`` (lower case, digits and ``-``).
    kernel : callable
        ``kernel(data, *, measure, baseline, ...) -> PairwiseResult`` over every pair of systems;
        it takes those of :data:`OPTIONS` that apply to it as keyword arguments (``n_resamples``
        and ``rng`` when it resamples, ``correction`` when it is pairwise).
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
    kernel: Callable[..., PairwiseResult]
    title: str
    summary: str
    cite: str
    default_resamples: int | None = None
    all_systems: bool = False
    options: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not _NAME.fullmatch(self.name):
            raise invalid("name of a significance test", "lower case letters, digits and '-', first a letter",
                          self.name)
        if self.default_resamples is not None:
            check_resamples(self.default_resamples, f"default B of the {self.name} test")
        taken = frozenset(inspect.signature(self.kernel).parameters) & frozenset(OPTIONS)
        object.__setattr__(self, "options", taken)
        wanted = {"correction"} if not self.all_systems else set()
        if self.resampling:
            wanted |= {"n_resamples", "rng"}
        if not wanted <= taken:
            raise invalid(f"kernel of the {self.name} test", "a function taking " + ", ".join(sorted(wanted)),
                          f"{getattr(self.kernel, '__name__', 'kernel')}{inspect.signature(self.kernel)}")

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
        return self.kernel(data, **{k: v for k, v in options.items() if k in self.options})


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


def _registry() -> dict[str, SignificanceTest]:
    import cranfield.meta.significance  # noqa: F401  the built-in tests, declared with their kernels

    return _REGISTRY


def lookup(name: str) -> SignificanceTest:
    """The test registered under ``name``, else the error ``The test must be one of ...``."""
    tests = _registry()
    return tests[check_choice(name, "test", tuple(tests))]


def names() -> tuple[str, ...]:
    """The name of every registered test, in registration order."""
    return tuple(_registry())


def resampling() -> tuple[SignificanceTest, ...]:
    """The registered tests that draw resamples, in registration order."""
    return tuple(t for t in _registry().values() if t.resampling)


def check_resamples(value: Any, what: str, *, text: bool = False) -> int:
    """A number of resamples B: an integer in [1, :data:`MAX_RESAMPLES`] (given as ``text``:
    the command line's)."""
    return check_int(value, what, low=1, high=MAX_RESAMPLES, text=text)
