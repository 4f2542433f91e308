"""The evaluation's options are declared once (cranfield.evaluation.options): the command line's
choices and defaults, the signatures of Evaluator, evaluate and Report, and the checks of every
entry point all come from EvalOptions and its constants."""

from __future__ import annotations

import argparse
import inspect
import subprocess
import sys
import warnings

import pytest

from cranfield.cli.main import build_parser
from cranfield.errors import CranfieldError, EvaluationWarning
from cranfield.evaluation import options as opts
from cranfield.evaluation.evaluator import Evaluator, evaluate
from cranfield.evaluation.options import EVALUATOR_OPTIONS, RUN_OPTIONS, EvalOptions, check_option
from cranfield.render.report import Report

QRELS = {"1": {"a": 1, "b": 0}, "2": {"c": 1}}
RUN = {"1": {"a": 1.0, "b": 0.5}, "2": {"c": 1.0}}
DEFAULTS = {f.name: f.default for f in __import__("dataclasses").fields(EvalOptions)}

# option of the command line -> (the library's constant, the EvalOptions field or None)
CHOICES = {
    "--order": (opts.ORDERS, "order"),
    "--missing": (opts.MISSING, "missing"),
    "--norel": (opts.NOREL, "norel"),
    "--on-duplicate": (opts.ON_DUPLICATE, "on_duplicate"),
    "--empty-intents": (opts.EMPTY_INTENTS, "empty_intents"),
    "--average": (opts.AVERAGES, "average"),
    "--score-dtype": (opts.SCORE_DTYPES, None),  # eval's default depends on --compat
}


def _subparsers(parser: argparse.ArgumentParser, prefix: str = "") -> dict[str, argparse.ArgumentParser]:
    out = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out[prefix + name] = sub
                out.update(_subparsers(sub, f"{prefix}{name} "))
    return out


def _options() -> list[tuple[str, argparse.Action]]:
    return [(command, action) for command, parser in _subparsers(build_parser()).items()
            for action in parser._actions for flag in action.option_strings if flag in CHOICES]


def test_every_command_offers_the_library_choices_and_defaults() -> None:
    found = _options()
    commands = {command for command, _ in found}
    assert {"eval", "compare", "report", "similarity", "dss", "aspects eval"} <= commands
    for command, action in found:
        flag = next(f for f in action.option_strings if f in CHOICES)
        constant, field = CHOICES[flag]
        if command == "nuggets" and flag == "--missing":
            constant, field = opts.NUGGET_MISSING, None
            assert action.default == "zero"
        assert tuple(action.choices) == constant, f"{command} {flag}"
        if field is not None:
            assert action.default == DEFAULTS[field], f"{command} {flag}"


def test_nuggets_missing_choices_are_the_library_constant() -> None:
    nuggets = _subparsers(build_parser())["nuggets"]
    action = next(a for a in nuggets._actions if "--missing" in a.option_strings)
    assert tuple(action.choices) == opts.NUGGET_MISSING


@pytest.mark.parametrize("function, names", [
    (Evaluator.__init__, EVALUATOR_OPTIONS),
    (Evaluator.evaluate, RUN_OPTIONS),
    (evaluate, (*EVALUATOR_OPTIONS, *RUN_OPTIONS)),
    (Report.from_evaluator, RUN_OPTIONS),
])
def test_signatures_take_the_declared_defaults(function, names) -> None:
    params = inspect.signature(function).parameters
    assert {n: params[n].default for n in names} == {n: DEFAULTS[n] for n in names}


def test_evaluator_options_and_run_options_are_every_field_once() -> None:
    assert sorted((*EVALUATOR_OPTIONS, *RUN_OPTIONS)) == sorted(DEFAULTS)
    assert not set(EVALUATOR_OPTIONS) & set(RUN_OPTIONS)


@pytest.mark.parametrize("name, bad", [("missing", "zeros"), ("norel", "drop"), ("order", "score "),
                                       ("on_duplicate", "last"), ("average", "mean"), ("empty_intents", "no")])
def test_every_entry_point_refuses_a_bad_value_with_one_message(name, bad) -> None:
    """Evaluator, Evaluator.evaluate, evaluate, Report and EvalOptions: the same one line."""
    with pytest.raises(CranfieldError) as expected:
        EvalOptions(**{name: bad})
    message = str(expected.value)
    assert message.startswith(f"The {name} option must be one of ") and f"Got {bad!r} instead." in message
    assert str(pytest.raises(CranfieldError, check_option, name, bad).value) == message
    calls = [lambda: evaluate(QRELS, RUN, ["P@1"], **{name: bad}),
             lambda: Report(QRELS, [RUN], ["P@1"], **{name: bad})]
    if name in RUN_OPTIONS:
        calls.append(lambda: Evaluator(QRELS, ["P@1"]).evaluate([RUN], **{name: bad}))
    else:
        calls.append(lambda: Evaluator(QRELS, ["P@1"], **{name: bad}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvaluationWarning)
        for call in calls:
            with pytest.raises(CranfieldError) as got:
                call()
            assert str(got.value) == message


def test_options_are_checked_and_kept() -> None:
    options = EvalOptions(depth=5, judged_only=True, dd_depth="xi+1", missing="skip")
    assert (options.depth, options.judged_only, options.dd_depth, options.missing) == (5, True, "xi+1", "skip")
    with pytest.raises(CranfieldError, match="The depth must be an integer >= 1"):
        EvalOptions(depth=0)
    with pytest.raises(CranfieldError, match="judged_only option"):
        EvalOptions(judged_only="yes")
    with pytest.raises(TypeError, match="diversity must be True, False or None; got str"):
        EvalOptions(diversity="yes")
    evaluator = Evaluator(QRELS, ["P@1"], missing="skip", depth=3)
    assert evaluator.options == EvalOptions(missing="skip", depth=3)
    assert (evaluator.missing, evaluator.max_depth) == ("skip", 3)


def test_the_constants_import_without_numpy() -> None:
    """``cranfield --help`` builds its choices from them: no numpy may come with them."""
    code = ("import sys, cranfield.evaluation.options, cranfield._choices, cranfield.cli.options; "
            "print(sorted(m for m in sys.modules if m == 'numpy' or m.startswith('numpy.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
