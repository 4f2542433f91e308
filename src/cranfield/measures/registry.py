"""Measure names: one small grammar, one registry, one canonical formatter.

Grammar (ir_measures' syntax; docs/conventions.md#names)::

    measure := name [ "(" args ")" ] [ "@" value ]
    args    := [ measure "," ] key "=" value ( "," key "=" value )*
    name    := [A-Za-z0-9][A-Za-z0-9_+#-]*

``@`` sets the measure's primary parameter (its cutoff); ``α`` may be written for ``alpha``.
A value may itself contain commas when the next piece is not ``key=`` (``gains=0:0,1:1,2:3``).
Each registered :class:`MeasureSpec` declares its parameters (:class:`Param`) with default,
valid range and meaning, the paper and equation it implements, and its kernel; a parsed
:class:`Measure` is a hashable value whose ``str`` is canonical and parses back to itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from cranfield._display import first_names, html_table
from cranfield.batch import Batch, SampledBatch
from cranfield.errors import CranfieldError, MeasureError, check_float, check_int, invalid

# docs/conventions.md#names; a leading digit for trec_eval's 11pt
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+#*-]*")
_KEY = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=")

Kernel = Callable[..., np.ndarray]
INT_MAX = 2**63 - 1  # int parameters and gain-map labels are 64-bit integers (numpy's int64)
KINDS = ("int", "float", "choice", "gains", "bool", "measure", "maxrel")


# --------------------------------------------------------------------------- parameters
@dataclass(frozen=True)
class Param:
    """A declared measure parameter: how to read it, its default and its valid values.

    ``low``/``high`` bound numbers (``open_low``/``open_high`` exclude the bound; an int is at
    most :data:`INT_MAX` in any case); ``choices`` restricts words. ``convert`` turns the text of
    a measure name into the value. ``doc`` says what the parameter means; its valid values are
    stated by :meth:`describe`, from the declaration (so the two cannot disagree), and ``doc``
    repeats no range.
    """

    name: str
    kind: str  # one of KINDS
    default: Any
    doc: str
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False
    choices: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS and type(self).convert is Param.convert:  # subclasses read their own kinds
            raise invalid(f"kind of parameter {self.name!r}", "one of " + ", ".join(KINDS), self.kind)
        if self.kind == "choice" and not self.choices:
            raise invalid(f"choices of parameter {self.name!r}", "a non-empty tuple of words", self.choices)
        if self.low is not None and self.high is not None and self.low > self.high:
            raise invalid(f"range of parameter {self.name!r}", "low <= high", (self.low, self.high))

    def describe(self) -> str:
        """The valid values in words, e.g. ``a float in the range (0, 1)``."""
        if self.kind == "choice":
            return "one of " + ", ".join(repr(c) for c in self.choices)
        if self.kind == "gains":
            return ("'linear', 'exp' or a map of labels to gains >= 0, each label once, such as 0:0,1:1,2:3 "
                    "or a per-level list 1:3:7")
        if self.kind == "bool":
            return "true or false"
        if self.kind == "measure":
            return "a measure name such as nDCG@10"
        if self.kind == "maxrel":
            return f"'file', 'topic' or a label (an int in the range [1, {INT_MAX}])"
        if self.kind == "int":
            least = -INT_MAX - 1 if self.low is None else int(self.low)
            return f"an int in the range [{least}, {INT_MAX if self.high is None else int(self.high)}]"
        lo = "-inf" if self.low is None else _num(self.low)
        hi = "inf" if self.high is None else _num(self.high)
        left = "(" if self.open_low or self.low is None else "["
        right = ")" if self.open_high or self.high is None else "]"
        return f"a float in the range {left}{lo}, {hi}{right}"

    def convert(self, text: Any, measure: str) -> Any:
        """Read and validate a value (text from a name, or a Python value)."""
        bad = MeasureError(
            f"The {self.name!r} parameter of {measure} must be {self.describe()}. Got {text!r} instead."
        )
        try:
            if self.kind == "int":
                low = -INT_MAX - 1 if self.low is None else int(self.low)
                return check_int(text, self.name, low=low, high=INT_MAX if self.high is None else int(self.high))
            if self.kind == "float":
                return check_float(text, self.name, low=self.low, high=self.high, open_low=self.open_low,
                                   open_high=self.open_high)
        except CranfieldError:
            raise bad from None
        if self.kind == "bool":
            word = str(text).lower()
            if word in ("true", "1", "yes"):
                return True
            if word in ("false", "0", "no"):
                return False
            raise bad
        if self.kind == "choice":
            word = str(text).strip()
            if word not in self.choices:
                import difflib  # only for a wrong value (start-up: docs/architecture.md#start-up)

                close = difflib.get_close_matches(word, self.choices, n=1)
                hint = f" Did you mean {close[0]!r}?" if close else ""
                raise MeasureError(str(bad) + hint)
            return word
        if self.kind == "gains":
            return parse_gains(text, bad)
        if self.kind == "measure":
            if not isinstance(text, (str, Measure)):
                raise bad
            return parse_measure(text)
        if self.kind == "maxrel":
            if isinstance(text, str) and text.strip() in ("file", "topic"):
                return text.strip()
            try:
                return check_int(text, self.name, low=1, high=INT_MAX)
            except CranfieldError:
                raise bad from None
        raise AssertionError(self.kind)  # pragma: no cover

    def format(self, value: Any) -> str:
        if self.kind == "measure":
            return str(value)
        if self.kind == "gains" and isinstance(value, tuple):
            return ",".join(f"{k}:{_num(v)}" for k, v in value)
        if self.kind == "bool":
            return "true" if value else "false"
        if isinstance(value, float):
            return _num(value)
        return str(value)


def default_text(p: Param) -> str:
    """A parameter's default as it is written in a measure name (empty when there is none)."""
    return "" if p.default is None else p.format(p.default)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(float(x))


def parse_gains(text: Any, bad: Exception) -> str | tuple[tuple[int, float], ...]:
    """``linear``, ``exp``, a map ``0:0,1:1,2:3`` (label:gain pairs, comma-separated; a single pair
    is written with a trailing comma, ``2:5,``), NTCIREVAL's per-level list ``1:3:7`` (the gains
    of labels 1, 2, 3; without a comma a colon-separated list is always per level), or a map
    already read, ((label, gain), ...). Each label (a 64-bit int) appears once and each gain is
    a finite number >= 0: a negative gain would take nDCG and the other normalised measures
    out of [0, 1]. Anything else raises ``bad``."""
    if isinstance(text, (tuple, list)):
        pairs: list = list(text)
    else:
        text = str(text).strip()
        if text in ("linear", "exp"):
            return text
        pairs = ([p.split(":") for p in text.split(",") if p.strip()] if "," in text
                 else list(enumerate(text.split(":"), start=1)))
    try:
        items = tuple(sorted((check_int(k, "label", low=-INT_MAX - 1, high=INT_MAX), check_float(v, "gain", low=0))
                             for k, v in pairs))
    except (CranfieldError, TypeError, ValueError):
        raise bad from None
    if not items or len({k for k, _ in items}) != len(items):
        raise bad
    return items


def cutoff_param(doc: str = "rank cutoff: only the first k documents count") -> Param:
    """The ``@k`` parameter shared by the measures with a cutoff."""
    return Param("cutoff", "int", None, doc, low=1)


def cutoff_depth(params: Mapping[str, Any]) -> int | None:
    """How many ranks a measure reads by default: its cutoff (None, all ranks, without one)."""
    return params.get("cutoff")


# --------------------------------------------------------------------------- specs
@dataclass(frozen=True)
class MeasureSpec:
    """A registered measure: what it computes, from what, with which parameters.

    Attributes
    ----------
    name : str
    kernel : callable
        ``kernel(batch, **params) -> ndarray (S, T)`` — a pure vectorised function.
    params : tuple of Param
        Every parameter, the cutoff included (named ``cutoff``, set by ``@``).
    cite : str
        Paper and equation (or the reference tool) it implements.
    doc : str
        One line saying what it measures.
    aliases : tuple of str
    cutoff : {"optional", "required", "none"}
    value_range : tuple of float
        The range of values (``math.inf`` for unbounded).
    normalised : bool
        Whether the ideal ranking scores 1 (AP@k and F@k keep R as denominator, so only without @k).
    needs_intents : bool
    needs_types : bool
        Whether it tells navigational from informational intents.
    truncation_aware : bool
        Whether it tells a short ranking from one padded with non-relevant documents; such
        measures score a missing topic as the empty ranking under ``missing="auto"``.
    depth : callable
        ``depth(params) -> int | None``: how many ranks the kernel reads (None: all).
    reference : str
        The external tool (and its name there) it agrees with, if any.
    aggregate : {"mean", "sum"}
        How the ``all`` row combines topics (trec_eval sums its counts).
    per_intent : callable, optional
        For intent-aware sums Σ_i w_i X_i: ``per_intent(batch, **params) -> (S, T, I)``, the X_i.
    per_iteration : callable, optional
        For iteration measures: ``per_iteration(batch, **params) -> (S, T, C)``, the value after
        each of the first C iterations (NaN past a ranking's last iteration).
    prefix : callable, optional
        For measures of truncated rankings: ``prefix(batch, cutoff=k, **params) -> (S, T, d + 1)``,
        the value of every truncation n = 0..d of each ranking (optimal truncation analysis).
    sampled : bool
        Whether the kernel reads a :class:`~cranfield.batch.SampledBatch` (stochastic rankings,
        docs/fairness.md) rather than a :class:`~cranfield.batch.Batch`.
    lower_is_better : bool
        A loss (EE-L, EE-D): the report's significance marks and best values read a smaller
        mean as better.
    """

    name: str
    kernel: Kernel
    params: tuple[Param, ...]
    cite: str
    doc: str
    aliases: tuple[str, ...] = ()
    cutoff: str = "optional"
    value_range: tuple[float, float] = (0.0, 1.0)
    normalised: bool = False
    needs_intents: bool = False
    needs_types: bool = False
    truncation_aware: bool = False
    depth: Callable[[Mapping[str, Any]], int | None] = field(default=cutoff_depth)
    reference: str = ""
    aggregate: str = "mean"
    per_intent: Kernel | None = None
    per_iteration: Kernel | None = None
    prefix: Kernel | None = None
    sampled: bool = False
    lower_is_better: bool = False

    def __post_init__(self) -> None:
        if not callable(self.kernel):
            raise TypeError(f"The kernel of measure {self.name!r} must be callable. Got {self.kernel!r} instead.")
        if not isinstance(self.params, tuple) or not all(isinstance(p, Param) for p in self.params):
            raise TypeError(f"The params of measure {self.name!r} must be a tuple of Param. "
                            f"Got {self.params!r} instead.")
        if len({p.name for p in self.params}) != len(self.params):
            raise invalid(f"parameter names of measure {self.name!r}", "distinct", [p.name for p in self.params])
        if self.cutoff not in ("optional", "required", "none"):
            raise invalid(f"cutoff of measure {self.name!r}", "'optional', 'required' or 'none'", self.cutoff)
        if self.aggregate not in ("mean", "sum"):
            raise invalid(f"aggregate of measure {self.name!r}", "'mean' or 'sum'", self.aggregate)
        if len(self.value_range) != 2 or not self.value_range[0] <= self.value_range[1]:
            raise invalid(f"value_range of measure {self.name!r}", "(low, high) with low <= high", self.value_range)

    def param(self, name: str) -> Param:
        return next(p for p in self.params if p.name == name)

    def to_frame(self) -> Any:
        """The parameters as a pandas DataFrame: ``parameter, default, valid, meaning``."""
        import pandas as pd

        return pd.DataFrame([(p.name, default_text(p), p.describe(), p.doc)
                             for p in self.params], columns=["parameter", "default", "valid", "meaning"])

    def _repr_html_(self) -> str:
        """What a notebook shows: the name and what it measures, the parameters, the paper."""
        return html_table(self.to_frame(), f"{self.name}: {self.doc}",
                          {"aliases": ", ".join(self.aliases), "cite": self.cite, "reference": self.reference},
                          index=False)

    def __reduce_ex__(self, protocol: Any) -> Any:
        """Pickled by name when it is the registered measure of that name (its kernels are often
        closures, which pickle cannot send): unpickled, it is the registry's spec of that name
        (a plugin's measure: once the plugin is loaded there too). Any other spec by value."""
        if REGISTRY.get(self.name) is self:
            return lookup, (self.name,)
        return super().__reduce_ex__(protocol)


REGISTRY: dict[str, MeasureSpec] = {}
_ALIASES: dict[str, str] = {}
ELSEWHERE: dict[str, str] = {}
"""Names of the measures of another catalogue (the nugget measures of :mod:`cranfield.measures.nuggets`,
which fills it), each with what to use instead: :func:`lookup` says so rather than "unknown measure"."""
READERS: list[tuple[Callable[[Any], bool], Callable[[Any], Measure]]] = []
"""Readers of other libraries' measure objects, ``(is_one, to_measure)``, added by the module that
knows them (:mod:`cranfield.measures.ir_measures_names`: ir_measures' ``nDCG@10``);
:func:`parse_measure` reads such an object with the first reader that takes it."""


def register(spec: MeasureSpec) -> MeasureSpec:
    """Add a measure to the registry under its name and aliases."""
    if not isinstance(spec, MeasureSpec):
        raise TypeError(f"register takes a MeasureSpec. Got {type(spec).__name__} instead.")
    for name in (spec.name, *spec.aliases):
        if not NAME_PATTERN.fullmatch(name):
            raise ValueError(f"invalid measure name {name!r}")
        if name in _ALIASES:
            raise ValueError(f"measure name {name!r} registered twice")
        _ALIASES[name] = spec.name
    REGISTRY[spec.name] = spec
    return spec


def unregister(name: str) -> MeasureSpec:
    """Remove the measure registered under ``name`` (its own name, not an alias), with its
    aliases, and return its spec (a KeyError if there is none)."""
    spec = REGISTRY.pop(name)
    for alias in (spec.name, *spec.aliases):
        _ALIASES.pop(alias, None)
    return spec


def extend(name: str, **fields: Any) -> MeasureSpec:
    """Give the registered measure ``name`` further fields (e.g. F's prefix kernel, declared by
    the truncation family) and return the new spec."""
    spec = replace(REGISTRY[name], **fields)
    REGISTRY[name] = spec
    return spec


def lookup(name: str) -> MeasureSpec:
    """The spec registered under ``name`` (or an alias; case-insensitive when unambiguous)."""
    if not isinstance(name, str):
        raise TypeError(f"A measure name must be a str such as 'nDCG'. Got {name!r} ({type(name).__name__}) instead.")
    name = name.replace("α", "alpha")
    if name in _ALIASES:
        return REGISTRY[_ALIASES[name]]
    folded = [a for a in _ALIASES if a.lower() == name.lower()]
    if len({_ALIASES[a] for a in folded}) == 1:
        return REGISTRY[_ALIASES[folded[0]]]
    if name in ELSEWHERE:  # a measure of another input
        raise MeasureError(f"{name} {ELSEWHERE[name]}")
    from cranfield.measures.trec_eval_names import from_printed, printed_hint  # trec_eval's P_10, ndcg_cut_10

    if (printed := from_printed(name)) is not None:
        return lookup(_parse_call(printed).name)
    if (trec_hint := printed_hint(name)) is not None:
        raise MeasureError(f"Unknown measure {name!r}: {trec_hint}.")
    import difflib  # only for an unknown name (start-up: docs/architecture.md#start-up)

    close = difflib.get_close_matches(name, list(_ALIASES), n=5, cutoff=0.5)
    close += [a for a in _ALIASES if a.lower().startswith(name.lower())]
    names = list(dict.fromkeys(_ALIASES[a] for a in close))[:3]
    hint = f" Did you mean {', '.join(names)}?" if names else ""
    raise MeasureError(f"Unknown measure {name!r}.{hint} (`cranfield measures` lists them all.)")



# --------------------------------------------------------------------------- parsed measures
@dataclass(frozen=True)
class Measure:
    """A measure with all its parameters resolved; hashable and canonically printed.

    ``str(measure)`` omits default values and round-trips through :func:`parse_measure`.
    Calling it on a :class:`~cranfield.batch.Batch` returns the (S, T) score matrix.
    """

    spec: MeasureSpec
    values: tuple[tuple[str, Any], ...]

    def __post_init__(self) -> None:
        """Check (and normalise) every value against its declared parameter, as parsing does."""
        if not isinstance(self.spec, MeasureSpec):
            raise TypeError("A Measure's spec must be a MeasureSpec (parse_measure('nDCG@10') builds a Measure). "
                            f"Got {type(self.spec).__name__} instead.")
        params, values = self.spec.params, self.values
        named = isinstance(values, tuple) and len(values) == len(params) and all(
            isinstance(v, tuple) and len(v) == 2 and v[0] == p.name for v, p in zip(values, params, strict=True))
        if not named:
            names = ", ".join(p.name for p in params) or "none"
            raise MeasureError(f"The values of a {self.spec.name} Measure must be (name, value) pairs for {names}, "
                               f"in that order. Got {values!r} instead.")
        checked = tuple((p.name, _checked(p, v, self.spec.name)) for p, (_, v) in zip(params, values, strict=True))
        if self.spec.cutoff == "required" and dict(checked).get("cutoff") is None:
            raise MeasureError(f"{self.spec.name} needs a cutoff: write {self.spec.name}@10, for example.")
        object.__setattr__(self, "values", checked)

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.values)

    @property
    def cutoff(self) -> int | None:
        return self.params.get("cutoff")

    @property
    def depth(self) -> int | None:
        """Ranks the kernel reads (None: the whole ranking)."""
        inner = [v for v in self.params.values() if isinstance(v, Measure)]
        return inner[0].depth if inner else self.spec.depth(self.params)

    def __call__(self, batch: Batch | SampledBatch) -> np.ndarray:
        """The (S, T) scores of ``batch``; of a :class:`~cranfield.batch.SampledBatch`, (P, T): its
        exposure kernel, or for another measure the mean over each policy's samples."""
        if self.spec.sampled:
            return self.spec.kernel(batch if isinstance(batch, SampledBatch) else
                                    SampledBatch.from_batch(_scored(batch)), **self.params)
        if isinstance(batch, SampledBatch):
            return sample_mean(batch, self.spec.kernel(batch.batch, **self.params))
        return self.spec.kernel(_scored(batch), **self.params)

    def per_intent(self, batch: Batch) -> np.ndarray | None:
        """Each intent's score X_i, shape (S, T, I), for intent-aware measures (else None)."""
        return None if self.spec.per_intent is None else self.spec.per_intent(_scored(batch), **self.params)

    def per_iteration(self, batch: Batch) -> np.ndarray | None:
        """The value after each iteration, shape (S, T, C), for iteration measures (else None)."""
        return None if self.spec.per_iteration is None else self.spec.per_iteration(_scored(batch), **self.params)

    def with_params(self, **changes: Any) -> Measure:
        """A copy with some parameters changed (validated)."""
        values = self.params
        for key, value in changes.items():
            values[key] = _param(self.spec, key).convert(value, self.spec.name)
        return replace(self, values=tuple((p.name, values[p.name]) for p in self.spec.params))

    def __str__(self) -> str:
        args = [
            p.format(v) if p.kind == "measure" else f"{p.name}={p.format(v)}"
            for p in self.spec.params
            if p.name != "cutoff" and (v := self.params[p.name]) != p.default
        ]
        text = self.spec.name + (f"({','.join(args)})" if args else "")
        return text + (f"@{self.cutoff}" if self.cutoff is not None else "")

    def __repr__(self) -> str:
        return f"Measure({str(self)!r})"


def sample_mean(sb: SampledBatch, x: np.ndarray) -> np.ndarray:
    """The mean of per-sample scores (P·N, T) over each policy's samples, (P, T): the expected
    value of a measure under a stochastic ranking. Undefined (NaN) samples are left out; a topic
    without samples (missing) keeps the value of its first, empty, ranking; NaN when no sample
    is defined."""
    present = sb.per_policy(sb.batch.present)
    x = sb.per_policy(x)
    ok = present & ~np.isnan(x)
    n = ok.sum(axis=1)
    # samples last and contiguous: the sum's order (pairwise) is the same whatever the number of topics
    total = np.add.reduce(np.ascontiguousarray(np.moveaxis(np.where(ok, x, 0.0), 1, -1)), axis=-1)
    first = x[:, 0] if x.shape[1] else np.zeros(n.shape)  # no sample slots at all: nothing to average
    return np.where(n > 0, total / np.maximum(n, 1), np.where(present.any(axis=1), np.nan, first))


def _scored(batch: Any) -> Batch:
    """``batch`` if it is a :class:`~cranfield.batch.Batch`, else a TypeError."""
    if not isinstance(batch, Batch):
        raise TypeError(f"A measure scores a Batch (Collection.batch or Batch.from_labels). "
                        f"Got {type(batch).__name__} instead.")
    return batch


def _checked(p: Param, value: Any, measure: str) -> Any:
    """A value of parameter ``p`` validated (None stands for an unset optional value)."""
    return None if value is None and p.default is None and p.kind != "measure" else p.convert(value, measure)


def _param(spec: MeasureSpec, key: str) -> Param:
    key = key.replace("α", "alpha")
    names = [p.name for p in spec.params if p.name != "cutoff"]
    for p in spec.params:
        if p.name == key:
            return p
    import difflib  # only for an unknown parameter (start-up: docs/architecture.md#start-up)

    close = difflib.get_close_matches(key, names, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    known = ", ".join(names) if names else "none"
    raise MeasureError(f"{spec.name} has no parameter {key!r}.{hint} (its parameters: {known})")


@dataclass
class _Call:
    name: str
    inner: _Call | None
    kwargs: dict[str, str]
    at: str | None
    text: str


def split_top(text: str) -> list[str]:
    """Split at commas outside parentheses."""
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def _parse_call(text: str) -> _Call:
    src = text.strip()
    m = NAME_PATTERN.match(src)
    if not m:
        raise MeasureError(f"Cannot read measure {text!r}: it must start with a name such as P, AP or nDCG.")
    name, pos = m.group(), m.end()
    while pos < len(src) and src[pos].isspace():
        pos += 1
    # ``@`` binds to the nearest name: ``nDCG@10``; a name may not swallow ``@``
    inner, kwargs, at = None, {}, None
    if pos < len(src) and src[pos] == "(":
        depth, end = 0, None
        for k in range(pos, len(src)):
            depth += src[k] == "("
            depth -= src[k] == ")"
            if depth == 0:
                end = k
                break
        if end is None:
            raise MeasureError(f"Cannot read measure {text!r}: unbalanced parentheses.")
        body, pos = src[pos + 1 : end], end + 1
        last_key = None
        for k, piece in enumerate(split_top(body)):
            km = _KEY.match(piece)
            if km:
                last_key = km.group(1).replace("α", "alpha")
                if last_key in kwargs:
                    raise MeasureError(f"Cannot read measure {text!r}: {last_key!r} is given twice.")
                kwargs[last_key] = piece[km.end():].strip()
            elif k == 0 and piece.strip():
                inner = _parse_call(piece)
            elif last_key is not None:
                kwargs[last_key] += "," + piece.strip()
            else:
                raise MeasureError(f"Cannot read measure {text!r}: expected key=value, got {piece.strip()!r}.")
    rest = src[pos:].strip()
    if rest:
        if not rest.startswith("@") or not rest[1:].strip():
            raise MeasureError(f"Cannot read measure {text!r}: unexpected {rest!r} (a cutoff is written @10).")
        at = rest[1:].strip()
    return _Call(name, inner, kwargs, at, text.strip())


def parse_measure(text: str | Measure, *, catalogue: Callable[[str], MeasureSpec] | None = None) -> Measure:
    """Parse an ir_measures-style name such as ``P@10``, ``nDCG(gains=exp)@20`` or ``RBP(p=0.8)``.

    ``catalogue`` finds the spec of a name in another catalogue than the registry's (the nugget
    measures of :mod:`cranfield.measures.nuggets`, which score nugget assignments, not rankings).

    Raises
    ------
    MeasureError
        For an unknown measure or parameter (with a "did you mean" suggestion), a value out
        of its valid range (naming the range), or a malformed name.
    """
    if isinstance(text, Measure):
        return text
    reader = next((read for is_one, read in READERS if is_one(text)), None)  # an ir_measures object
    if reader is not None:
        return reader(text)
    if not isinstance(text, str):
        raise TypeError(f"A measure must be a name such as 'nDCG@10' (a str) or a Measure. "
                        f"Got {text!r} ({type(text).__name__}) instead.")
    from cranfield.measures.trec_eval_names import from_printed

    if text.strip() not in _ALIASES and (printed := from_printed(text)) is not None:  # trec_eval's ndcg_cut_10
        return parse_measure(printed)
    call = _parse_call(str(text).replace("α", "alpha"))
    spec = (catalogue or lookup)(call.name)
    values = {p.name: p.default for p in spec.params}
    wrapped = next((p for p in spec.params if p.kind == "measure"), None)
    if call.inner is not None:
        if wrapped is None:
            names = ", ".join(f"{p.name}=..." for p in spec.params if p.name != "cutoff") or "none"
            raise MeasureError(
                f"Cannot read measure {call.text!r}: {spec.name} takes key=value parameters "
                f"({names}), not {call.inner.text!r}."
            )
        if call.at is not None:  # IA(X)@k is IA(X@k); both is an error
            if call.inner.at is not None:
                raise MeasureError(f"Cannot read measure {call.text!r}: give the cutoff once, inside or outside.")
            inner = parse_measure(f"{call.inner.text}@{call.at}")
        else:
            inner = parse_measure(call.inner.text)
        values[wrapped.name] = inner
    elif wrapped is not None:
        raise MeasureError(f"{spec.name} wraps a measure: write {spec.name}(nDCG@10), for example.")
    for key, raw in call.kwargs.items():
        p = _param(spec, key)
        if p.name == "cutoff":
            raise MeasureError(f"Write the cutoff of {spec.name} as @k, not cutoff=.")
        values[p.name] = p.convert(raw, spec.name)
    if call.at is not None and wrapped is None:
        if spec.cutoff == "none":
            raise MeasureError(f"{spec.name} takes no cutoff; {call.text!r} is not a measure.")
        values["cutoff"] = spec.param("cutoff").convert(call.at, spec.name)
    elif spec.cutoff == "required":
        raise MeasureError(f"{spec.name} needs a cutoff: write {spec.name}@10, for example.")
    return Measure(spec, tuple((p.name, values[p.name]) for p in spec.params))


def iter_specs() -> Iterator[MeasureSpec]:
    """Every registered measure, in registration order."""
    return iter(REGISTRY.values())


@dataclass(frozen=True)
class Catalogue:
    """The registered measures (:func:`catalogue`), one row each in :meth:`to_frame`; a notebook
    shows the table."""

    specs: tuple[MeasureSpec, ...]

    def to_frame(self) -> Any:
        """``measure, parameters`` (each ``name=default``), ``cutoff``, ``aliases``, ``doc``,
        ``reference`` (the tool it agrees with), a pandas DataFrame."""
        import pandas as pd

        rows = [(s.name, ", ".join(f"{p.name}={default_text(p)}" for p in s.params if p.name != "cutoff"),
                 s.cutoff, ", ".join(s.aliases), s.doc, s.reference) for s in self.specs]
        return pd.DataFrame(rows, columns=["measure", "parameters", "cutoff", "aliases", "doc", "reference"])

    def _repr_html_(self) -> str:
        return html_table(self.to_frame(), f"{len(self.specs)} measures", index=False, max_rows=len(self.specs))

    def __repr__(self) -> str:
        return f"Catalogue({len(self.specs)} measures: {first_names([s.name for s in self.specs])})"


def catalogue() -> Catalogue:
    """Every registered measure, in registration order, as a listing that a notebook shows as a
    table (``cranfield.measures.registry.catalogue()``; the CLI's ``cranfield measures``). Every
    family is registered: importing this module runs the package's ``__init__`` first."""
    return Catalogue(tuple(iter_specs()))
