"""The registry of significance tests (cranfield.meta.registry) is the one place a test is
declared: every command's --test and --B read it, every registered test runs in `compare`,
`discpower` and `report` (command line and Python), and a test registered at run time is
everywhere at once."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace

import numpy as np
import pytest

from conftest import DATA
from cranfield import CranfieldError, EvaluationWarning
from cranfield.analysis.comparison import compare_runs, default_correction
from cranfield.cli.main import build_parser, main
from cranfield.evaluation.nuggets import evaluate_nuggets
from cranfield.meta import discriminative_power, pairwise_test, randomization_test
from cranfield.meta.registry import (
    MAX_RESAMPLES,
    SignificanceTest,
    check_resamples,
    lookup,
    names,
    register,
    resampling,
    unregister,
)
from cranfield.meta.significance import PairwiseResult
from cranfield.render.report import Report

NUGGETS = DATA / "nuggets" / "rag.nuggets.jsonl"  # 3 runs, 6 topics: every command in a blink
BUILT_IN = ("t", "wilcoxon", "sign", "randomization", "bootstrap", "tukey", "tukey-randomised")


def commands(parser: argparse.ArgumentParser, prefix: str = ""):
    """Every (sub)command of ``parser`` with its parser, ``aspects eval`` included."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield f"{prefix}{name}", sub
                yield from commands(sub, f"{prefix}{name} ")


def option_actions(parser: argparse.ArgumentParser) -> dict[str, dict[str, argparse.Action]]:
    """Per command, its --test and --B actions."""
    found: dict[str, dict[str, argparse.Action]] = {}
    for name, sub in commands(parser):
        for action in sub._actions:
            for option in {"--test", "--B"} & set(action.option_strings):
                found.setdefault(name, {})[option] = action
    return found


def test_the_built_in_tests_in_order():
    assert names() == BUILT_IN
    assert [t.name for t in resampling()] == ["randomization", "bootstrap", "tukey-randomised"]
    assert [name for name in names() if lookup(name).all_systems] == ["tukey", "tukey-randomised"]
    for name in names():
        spec = lookup(name)
        assert spec.title and spec.summary and spec.cite
        assert spec.resamples(None) == spec.default_resamples and spec.resamples(7) == (7 if spec.resampling else None)


def test_every_command_offers_the_registry():
    """Each command with --test has --B; the choices are the registry's names, in its order, and
    --B's help states the one bound and every resampling test's default."""
    found = option_actions(build_parser())
    assert {"compare", "discpower", "report", "judges", "collection"} <= set(found)
    for command, options in found.items():
        assert set(options) == {"--test", "--B"}, command
        assert tuple(options["--test"].choices) == names(), command
        assert f"1 to {MAX_RESAMPLES:,}" in options["--B"].help, command
        for spec in resampling():
            assert f"{spec.name} {spec.default_resamples}" in options["--B"].help, command


def test_one_bound_of_b_everywhere(capsys, tmp_path):
    """B = 100,000 is accepted and 100,001 refused, by the Python functions and the command line
    (before any run is scored)."""
    assert check_resamples(MAX_RESAMPLES, "B") == MAX_RESAMPLES
    with pytest.raises(CranfieldError, match=r"\[1, 100000\]"):
        pairwise_test(np.eye(3), test="randomization", n_resamples=MAX_RESAMPLES + 1)
    runs = [str(DATA / "robust03" / f"input.{name}.gz") for name in ("humR03dc", "uic0301")]
    qrels = str(DATA / "robust03" / "qrels.txt.gz")
    for command in (["compare", qrels, *runs], ["discpower", qrels, *runs],
                    ["report", qrels, *runs, "-o", str(tmp_path / "r.md")], ["collection", qrels, "--permuted", "3"]):
        code = main([*command, "-m", "P@10", "--B", "100001"])
        assert code == 2
        err = capsys.readouterr().err
        assert "number of resamples --B must be an integer in the range [1, 100000]" in err, command


def test_the_help_describes_every_test(capsys):
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for name in names():
        spec = lookup(name)
        assert f"{name} = {spec.summary}" in text
        if spec.resampling:
            assert f"{name} = {spec.summary} (B = {spec.default_resamples:,})" in text


# --------------------------------------------------------------------------- every test, everywhere
@pytest.fixture(scope="module")
def results():
    with pytest.warns(EvaluationWarning, match="1 nugget assignment marked 'failed'"):
        return evaluate_nuggets([str(NUGGETS)], ["V_strict", "A"])


def b_of(name: str) -> list[str]:
    return ["--B", "40"] if lookup(name).resampling else []


def run_cli(capsys, *args) -> str:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def check_everywhere(name: str, results, capsys, tmp_path) -> None:
    """``name`` in pairwise_test, discriminative_power, compare_runs and Report, and in the
    compare, discpower and report commands, each agreeing with the others."""
    spec = lookup(name)
    b = 40 if spec.resampling else None
    tested = pairwise_test(results, test=name, measure="A", n_resamples=b, rng=0,
                           correction=default_correction(name))
    assert isinstance(tested, PairwiseResult) and tested.test == name and len(tested.pairs) == 3
    assert tested.n_resamples == b and np.isfinite(tested.pvalue).any()
    power = discriminative_power(results, measure="A", test=name, n_resamples=b, rng=0)
    raw = pairwise_test(results, test=name, measure="A", n_resamples=b, rng=0)
    assert power.n_significant == int(raw.significant().sum()) and power.test == name
    comparison = compare_runs(results, "A", test=name, n_resamples=b, seed=0)
    np.testing.assert_array_equal(comparison.pvalue_adjusted, tested.pvalue_adjusted)
    report = Report.from_results(results, test=name, n_resamples=b, seed=0)
    assert f"({spec.title}" in report.to_markdown()

    rows = json.loads(run_cli(capsys, "compare", "--nuggets", NUGGETS, "-m", "A", "--test", name, *b_of(name),
                              "--format", "json"))
    assert [r["test"] for r in rows] == [name] * 3
    np.testing.assert_array_equal([r["pvalue"] for r in rows], raw.pvalue)
    rows = json.loads(run_cli(capsys, "discpower", "--nuggets", NUGGETS, "-m", "A", "--test", name, *b_of(name),
                              "--format", "json"))
    corrected = discriminative_power(results, measure="A", test=name, n_resamples=b, rng=0,
                                     correction=default_correction(name))  # the command's default correction
    assert rows[0]["test"] == name and rows[0]["significant"] == corrected.n_significant
    out = tmp_path / f"{name}.md"
    run_cli(capsys, "report", "--nuggets", NUGGETS, "-m", "A", "--test", name, *b_of(name), "-o", out)
    assert f"({spec.title}" in out.read_text()


@pytest.mark.parametrize("name", BUILT_IN)
def test_every_registered_test_runs_everywhere(name, results, capsys, tmp_path):
    check_everywhere(name, results, capsys, tmp_path)


def shuffle_test(data, *, measure=None, correction="none", baseline=None, n_resamples=300, rng=None, client=None):
    """A test declared only here: the randomisation test under another name."""
    result = randomization_test(data, measure=measure, correction=correction, baseline=baseline,
                                n_resamples=n_resamples, rng=rng, client=client)
    return replace(result, test="shuffle")


@pytest.fixture
def shuffle():
    spec = register(SignificanceTest("shuffle", shuffle_test, title="shuffle test", summary="a test of the tests",
                                     cite="this file", default_resamples=300))
    yield spec
    unregister("shuffle")


def test_one_declaration_is_enough(shuffle, results, capsys, tmp_path):
    """A test registered at run time is a --test choice of every command, described in --help,
    draws its default B, and runs everywhere."""
    assert names()[-1] == "shuffle"
    found = option_actions(build_parser())
    assert all(options["--test"].choices[-1] == "shuffle" for options in found.values())
    assert all("shuffle 300" in options["--B"].help for options in found.values())
    assert pairwise_test(results, test="shuffle", measure="A", rng=0).n_resamples == 300
    check_everywhere("shuffle", results, capsys, tmp_path)


def test_declarations_are_checked():
    kernel = shuffle_test
    with pytest.raises(CranfieldError, match="name of a significance test"):
        SignificanceTest("Shuffle", kernel, title="x", summary="x", cite="x")
    with pytest.raises(CranfieldError, match=r"default B of the shuffle test must be an integer in the range"):
        SignificanceTest("shuffle", kernel, title="x", summary="x", cite="x", default_resamples=MAX_RESAMPLES + 1)
    lacking = r"a function taking correction, n_resamples, rng. Got \"<lambda>\(data, \*, correction='none'\)\""
    with pytest.raises(CranfieldError, match=lacking):
        SignificanceTest("shuffle", lambda data, *, correction="none": None, title="x", summary="x", cite="x",
                         default_resamples=10)
    with pytest.raises(CranfieldError, match="a function taking correction"):
        SignificanceTest("shuffle", lambda data: None, title="x", summary="x", cite="x")
    with pytest.raises(ValueError, match="registered twice"):
        register(lookup("t"))
    with pytest.raises(CranfieldError, match="The test must be one of 't', .* Did you mean 'sign'"):
        lookup("sigm")


def test_a_kernel_named_is_imported_and_checked_when_the_test_first_runs():
    """A kernel given as ``module:function`` (the built-in tests' way: the registry imports no
    numpy) is imported, and its signature checked, on first use; its name is checked at once."""
    from cranfield.meta.significance import t_test

    assert all(isinstance(lookup(name).kernel, str) for name in BUILT_IN)
    named = SignificanceTest("t-by-name", "cranfield.meta.significance:t_test", title="x", summary="x", cite="x")
    assert named.function is t_test and named.options == lookup("t").options == {"measure", "baseline", "correction"}
    data = np.array([[0.1, 0.4], [0.2, 0.3], [0.5, 0.9]])
    assert named.run(data, correction="none").pvalue.tolist() == pairwise_test(data, test="t").pvalue.tolist()
    with pytest.raises(CranfieldError, match="kernel of the x test must be a function or its name, 'module:function'"):
        SignificanceTest("x", "cranfield.meta.significance.t_test", title="x", summary="x", cite="x")
    resampling_t = SignificanceTest("x", "cranfield.meta.significance:t_test", title="x", summary="x", cite="x",
                                    default_resamples=10)  # t_test takes no n_resamples: refused when first run
    with pytest.raises(CranfieldError, match="a function taking correction, n_resamples, rng"):
        resampling_t.run(data, correction="none")
