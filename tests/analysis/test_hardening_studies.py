"""Issue #14 for the study subcommands (axioms, collection, dss, truncation, aspects, compare,
discpower, correlate, intuitiveness, coverage): bad input is one ``cranfield: error:`` line and
exit status 2 — never a traceback, never accepted nonsense — checked before any work; plots and
outputs are written whole; numpy's RuntimeWarnings never reach the terminal."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from conftest import run_main
from cranfield import meta
from cranfield.analysis.aspects import evaluate_aspects
from cranfield.analysis.axioms import check_space
from cranfield.analysis.diversity import collection_diversity
from cranfield.analysis.dss import at_cutoff, coefficient_of_variation, dss
from cranfield.analysis.figures import utility_curves
from cranfield.analysis.properties import check_property
from cranfield.errors import CranfieldError
from cranfield.io.aspects import load_config
from cranfield.measures.aspects import AspectSpace, class_weights, distances
from cranfield.measures.topics import check_depth
from cranfield.meta.agreement import kendall_tau

QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n2 0 d4 1\n2 0 d5 0\n2 0 d6 1\n"
RUNS = {
    "r1": "1 Q0 d1 1 3 A\n1 Q0 d2 2 2 A\n2 Q0 d4 1 1 A\n",
    "r2": "1 Q0 d2 1 3 B\n1 Q0 d3 2 2 B\n2 Q0 d5 1 1 B\n2 Q0 d6 2 0 B\n",
    "r3": "1 Q0 d3 1 3 C\n2 Q0 d6 1 1 C\n",
}
DIV_QRELS = "1 a d1 1\n1 b d2 1\n1 b d3 1\n1 a d3 0\n2 a d4 1\n2 b d5 1\n"
RELEVANCE = "1 0 d1 hr\n1 0 d2 nr\n1 0 d3 mr\n2 0 d4 mr\n2 0 d5 nr\n"
CORRECTNESS = "1 0 d1 c\n1 0 d2 nc\n1 0 d3 pc\n2 0 d4 c\n2 0 d5 nc\n"
# topic 3 has no relevant document; runs A and A2 score the same everywhere
EDGE_QRELS = QRELS + "3 0 d7 0\n"
EDGE_RUNS = {"e1": RUNS["r1"] + "3 Q0 d7 1 1 A\n", "e2": RUNS["r1"].replace(" A\n", " A2\n") + "3 Q0 d7 1 1 A2\n",
             "e3": RUNS["r2"]}


@pytest.fixture
def f(tmp_path: Path) -> dict[str, str]:
    """Paths of small inputs (as str), by name; ``tmp`` is the directory."""
    texts = {"q": QRELS, "dq": DIV_QRELS, "rel": RELEVANCE, "cor": CORRECTNESS, "eq": EDGE_QRELS, **RUNS,
             **EDGE_RUNS, "list_json": "[1, 2]", "bad_keys": '{"lables": {"r": ["a", "b"]}}'}
    paths = {name: tmp_path / f"{name}.json" if name in ("list_json", "bad_keys") else tmp_path / f"{name}.txt"
             for name in texts}
    for name, text in texts.items():
        paths[name].write_text(text)
    return {"tmp": str(tmp_path), **{k: str(v) for k, v in paths.items()}}


def cli(capsys, args: list[str]) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of ``cranfield args`` (argparse's errors exit too)."""
    return run_main(capsys, args)


def one_error(code: int, err: str) -> str:
    """The error line, after checking it is the only line of stderr and the status is 2."""
    assert code == 2, err
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("cranfield: error: "), err
    return lines[0]


def fill(args: list[str], f: dict[str, str]) -> list[str]:
    return [a.format(**f) for a in args]


def boom(*args, **kwargs):
    raise AssertionError("the work started before the bad argument was refused")


ASPECTS_EVAL = ["aspects", "eval", "--aspect", "relevance={rel}", "--aspect", "correctness={cor}", "--labels",
                "relevance=nr,mr,hr", "--labels", "correctness=nc,pc,c", "{r1}", "-m", "CAM(nDCG@10)"]
BAD = {
    "axioms": (["axioms", "-m", "AP", "--depth", "2"], [
        ["--depth", "40"], ["--aspects", "40"], ["--depth", "0"], ["--depth", "abc"], ["--depth", "2.5"],
        ["--aspects", "0"], ["--aspects", "3", "--depth", "12"], ["--examples", "-1"], ["--examples", "x"],
        ["--relevant-per-aspect", "1"], ["--relevant-per-aspect", "1000000000"], ["--properties", "bogus"],
        ["--properties", ","], ["--plot", "{tmp}/h.txt"], ["--plot", "{tmp}/missing/h.png"], ["--plot", "{tmp}"],
        ["--format", "xml"], ["-m", "NoSuchMeasure"]]),
    "collection": (["collection", "{dq}", "--diversity"], [
        ["--rel", "-5"], ["--rel", "0"], ["--rel", "x"], ["--rel", "1.5"], ["--depth", "-1"], ["--depth", "xi+2"],
        ["--depth", "1" + "0" * 30], ["--depth", "2.5"], ["--plot", "{tmp}/dd.txt"], ["-o", "{tmp}"],
        ["-o", "{tmp}/missing/out.txt"], ["--empty-intents", "maybe"], ["--adhoc"], ["--intents", "{tmp}/none.txt"],
        ["--format", "csv"]]),
    "dss": (["dss", "{dq}", "--diversity", "-m", "alpha-nDCG", "--n", "3"], [
        ["--seed", "-1"], ["--seed", "x"], ["--seed", "1.5"], ["--n", "1"], ["--n", "1e9"], ["--n", "x"],
        ["--k", "0"], ["--k", "5,,10"], ["--k", "5,x"], ["--k", ""], ["--k", "100000"], ["--n", "5000", "--k", "1000"],
        ["--depth", "-2"], ["--depth", "deep"], ["-o", "{tmp}"], ["--sweep", "--plot", "{tmp}/d.txt"],
        ["--plot", "{tmp}/d.png"], ["-m", "AP@5"], ["-m", "RBU"], ["--average", "median"], ["--discount", "log"],
        ["--format", "xml"]]),
    "truncation": (["truncation", "{q}", "{r1}", "-m", "RBU"], [
        ["--plot", "{tmp}/t.txt"], ["--plot", "{tmp}/missing/t.png"], ["-m", "AP"], ["--order", "random"],
        ["--full", "NoSuchMeasure"], ["--full", ""], ["--format", "xml"]]),
    "aspects order": (["aspects", "order", "--labels", "relevance=nr,mr,hr"], [
        ["--embed", "relevance=0,1,nan"], ["--embed", "relevance=0,1,inf"], ["--embed", "relevance=0,x,2"],
        ["--embed", "relevance=2,1,0"], ["--embed", "relevance=0,1"], ["--embed", "other=0,1"],
        ["--embed", "relevance=0,1,1e300"], ["--labels", "relevance=a,b"], ["--labels", "x=a,a"],
        ["--labels", "y=a"], ["--labels", "z=a,,b"], ["--labels", "nothing"], ["--gate", "nope"],
        ["--config", "{tmp}/missing.json"], ["--config", "{list_json}"], ["--config", "{tmp}"],
        ["--config", "{bad_keys}"], ["--dist", "taxicab"]]),
    "aspects eval": (ASPECTS_EVAL, [
        ["--grades", "relevance=0,1"], ["--grades", "relevance=0,1,x"], ["--grades", "relevance=0,1,2.5"],
        ["--grades", "relevance=0,1,2,3"], ["--grades", "relevance=2,1,0"], ["--grades", "relevance=-1,0,1"],
        ["--grades", "bogus=0,1,2"], ["-m", "nDCG@10"], ["--plot", "{tmp}/u.png"],
        ["--report", "--plot", "{tmp}/u.txt"],
        ["--aspect", "relevance={cor}"], ["--aspect-names", "a,b"], ["--aspect-qrels", "{rel}"],
        ["--config", "{list_json}"], ["--missing-aspect", "guess"]]),
    "compare": (["compare", "{q}", "{r1}", "{r2}", "-m", "AP"], [
        ["--seed", "-1"], ["--seed", "x"], ["--seed", "2.5"], ["--B", "0"], ["--B", "1e12"], ["--B", "x"],
        ["--alpha", "2"], ["--alpha", "nan"], ["--alpha", "0"], ["--alpha", "1"], ["--alpha", "x"],
        ["--test", "tukey", "--correction", "holm"], ["-o", "{tmp}"], ["-o", "{tmp}/missing/o.txt"],
        ["--test", "anova"], ["--format", "xml"], ["--baseline", "nope"], ["--correction", "sidak"],
        ["-m", "NoSuchMeasure"]]),
    "discpower": (["discpower", "{q}", "{r1}", "{r2}", "-m", "AP", "--B", "20"], [
        ["--seed", "-1"], ["--B", "-5"], ["--alpha", "-0.1"], ["--alpha", "inf"], ["--plot", "{tmp}/a.txt"],
        ["--plot", "{tmp}/missing/a.png"], ["--plot", "{tmp}"], ["-o", "{tmp}"],
        ["--test", "tukey", "--correction", "bonferroni"]]),
    "correlate": (["correlate", "{q}", "{r1}", "{r2}", "-m", "AP,P@10"], [
        ["--seed", "1"], ["-o", "{tmp}"], ["--format", "latex"]]),
    "intuitiveness": (["intuitiveness", "{q}", "{r1}", "{r2}", "-m", "AP,P@10", "--gold", "RR"], [
        ["--seed", "1"], ["-o", "{tmp}"], ["--format", "latex"], ["--gold", "NoSuchMeasure"]]),
    "coverage": (["coverage", "{q}", "{r1}", "{r2}", "-m", "AP", "--reference", "P@10"], [
        ["--pairs", "0"], ["--pairs", "-3"], ["--pairs", "x"], ["--pairs", "1e9"], ["--seed", "-1"],
        ["--seed", "x"], ["-o", "{tmp}"], ["--reference", "NoSuchMeasure"], ["--format", "latex"]]),
}
CASES = [pytest.param(base, bad, id=f"{command}:{' '.join(bad)}") for command, (base, cases) in BAD.items()
         for bad in cases]


@pytest.mark.parametrize("base, bad", CASES)
def test_every_bad_argument_is_one_error_line(capsys, f, base, bad):
    one_error(*cli(capsys, fill(base + bad, f))[::2])


@pytest.mark.parametrize("command", list(BAD))
def test_the_base_commands_of_the_table_work(capsys, f, command):
    code, out, err = cli(capsys, fill(BAD[command][0], f))
    assert code == 0 and out and "error" not in err, err


# --------------------------------------------------------------------------- 1. axioms' space
@pytest.mark.parametrize("args, allowed", [
    (["--depth", "40"], "must be an integer in the range [1, 14]. Got '40' instead."),
    (["--aspects", "40"], "The number of aspects must be an integer in the range [1, 23]. Got '40' instead."),
    (["--aspects", "3", "--depth", "12"],
     "depth over 3 aspects (at most 10,000,000 rankings) must be an integer in the range [1, 11]"),
])
def test_axioms_refuses_a_space_above_the_limit(capsys, args, allowed):
    line = one_error(*cli(capsys, ["axioms", "-m", "AP", *args])[::2])
    assert allowed in line


def test_the_ranking_count_is_exact_and_bounded():
    from cranfield.analysis.axioms import MAX_RANKINGS, Space, count_rankings, max_depth

    assert count_rankings(10, 2) == Space(10, 2).size == 88_573
    assert count_rankings(40, 2) == (3**41 - 1) // 2  # exact, far beyond int64
    for m in (1, 2, 3, 23):
        assert count_rankings(max_depth(m), m) <= MAX_RANKINGS < count_rankings(max_depth(m) + 1, m)
    for depth, n_aspects in ((40, 2), (10, 40), (0, 2), (15, 2), (3, 0), (2.5, 2), (True, 2)):
        with pytest.raises(CranfieldError, match="must be an integer in the range"):
            check_space(["AP"], depth=depth, aspects=n_aspects)


# --------------------------------------------------------------------------- 2. seeds
@pytest.mark.parametrize("command", ["dss", "compare", "discpower", "coverage"])
@pytest.mark.parametrize("seed", ["-1", "x", "1.5", ""])
def test_every_seed_is_an_integer_of_at_least_0(capsys, f, command, seed):
    base = BAD[command][0]
    line = one_error(*cli(capsys, fill(base, f) + ["--seed", seed])[::2])
    assert f"The --seed must be an integer >= 0. Got {seed!r} instead." in line


def test_library_seeds_are_integers_of_at_least_0():
    from cranfield.meta._common import make_rng

    qrels = {"1": {"a": {"x": 1}, "b": {"y": 1}}}
    for seed in (-1, True, 1.5, "3"):
        with pytest.raises(CranfieldError, match="The seed must be"):
            dss(qrels, ["StRecall"], k=[2], n=3, seed=seed)
        with pytest.raises(CranfieldError, match="The seed must be"):
            make_rng(seed)
    with pytest.raises(CranfieldError, match="The seed must be"):
        meta.randomization_test(np.eye(3), rng=-1)
    with pytest.raises(CranfieldError, match="The seed must be"):
        meta.quality_aspect_coverage({"A": np.eye(3), "B": np.eye(3)}, ["A"], ["B"], rng=np.int64(-2))


# --------------------------------------------------------------------------- 3. aspects' grades and config
@pytest.mark.parametrize("grades, message", [
    ("relevance=0,1", "The grades of aspect 'relevance' must be 3 integers >= 0, one per label (nr, mr, hr)"),
    ("relevance=0,1,2,3", "must be 3 integers >= 0, one per label"),
    ("relevance=0,1,x", "The grade of aspect 'relevance' must be an integer >= 0. Got 'x' instead."),
    ("relevance=0,1,2.5", "The grade of aspect 'relevance' must be an integer >= 0. Got '2.5' instead."),
    ("bogus=0,1,2", "The aspect of the grades must be one of 'relevance', 'correctness'"),
])
def test_aspects_grades(capsys, f, grades, message):
    line = one_error(*cli(capsys, fill(ASPECTS_EVAL, f) + ["--grades", grades])[::2])
    assert message in line


@pytest.mark.parametrize("name, message", [
    ("missing.json", "cannot read the aspect configuration: No such file or directory"),
    ("list_json", "the aspect configuration must be a mapping (a JSON object or TOML table)"),
    ("bad_keys", "unknown keys 'lables'"),
])
@pytest.mark.parametrize("action", ["order", "eval"])
def test_aspects_config_errors_name_the_file(capsys, f, name, message, action):
    path = f.get(name, f"{f['tmp']}/{name}")
    args = fill(ASPECTS_EVAL, f) if action == "eval" else ["aspects", "order", "--labels", "r=a,b"]
    line = one_error(*cli(capsys, args + ["--config", path])[::2])
    assert line.startswith(f"cranfield: error: {path}: ") and message in line


def test_aspects_config_values_are_checked(tmp_path):
    for text, message in [('{"labels": ["r"]}', "'labels' must map each aspect to a list"),
                          ('{"gate": 3}', "'gate' must be a string"), ("[}", "cannot read")]:
        path = tmp_path / "c.json"
        path.write_text(text)
        with pytest.raises(CranfieldError, match=f"^{path}: .*{message}"):
            load_config(str(path))


# --------------------------------------------------------------------------- 4. numeric options
@pytest.mark.parametrize("args, message", [
    (["axioms", "-m", "AP", "--examples", "-1"], "The number of examples must be an integer >= 0. Got '-1' instead."),
    (["collection", "{dq}", "--rel", "-5"], "The lowest relevant label rel must be an integer >= 1. Got '-5' instead."),
    (["aspects", "order", "--labels", "r=a,b", "--embed", "r=0,nan"],
     "The embedding value of aspect 'r' must be a finite number in the range [-1e+06, 1e+06]. Got 'nan' instead."),
    (["dss", "{dq}", "-m", "alpha-nDCG", "--n", "1"],
     "The number of permutations n must be an integer in the range [2, 100000]. Got '1' instead."),
    (["coverage", "{q}", "{r1}", "{r2}", "-m", "AP", "--reference", "RR", "--pairs", "0"],
     "The number of topic pairs --pairs must be an integer in the range [1, 100000]. Got '0' instead."),
    (["compare", "{q}", "{r1}", "{r2}", "-m", "AP", "--alpha", "nan"],
     "The significance level alpha must be a finite number in the range (0, 1). Got 'nan' instead."),
])
def test_numeric_options_use_the_template(capsys, f, args, message):
    assert message in one_error(*cli(capsys, fill(args, f))[::2])


@pytest.mark.parametrize("call, message", [
    (lambda: check_space(["AP"], depth=3, examples=-1),
     "The number of examples must be an integer >= 0"),
    (lambda: check_property("AP", "priority", depth=13),
     r"The depth must be an integer in the range \[1, 12\]"),
    (lambda: check_property("AP", "nonsense"),
     "The property must be one of 'priority'"),
    (lambda: check_property("AP", "recall", collections=[0]),
     "relevant documents in a collection must be an integer in the range"),
    (lambda: collection_diversity({"1": {"a": 1}}, rel=0),
     "The lowest relevant label rel must be an integer >= 1"),
    (lambda: check_depth(10**30), "The depth must be"),
    (lambda: dss({"1": {"a": 1}}, ["StRecall"], k="10"),
     "The cutoffs k must be"),
    (lambda: at_cutoff("nDCG", 0), "The cutoff k must be"),
    (lambda: AspectSpace({"r": ("a", "b")}, {"r": (0, float("nan"))}),
     "embedding value of aspect 'r' must be a finite number"),
    (lambda: AspectSpace({"r": ("a", "a")}),
     "two or more distinct labels"),
    (lambda: class_weights(np.array([0, 1]), [1.5, 0]),
     "The class weight must be an integer >= 0"),
    (lambda: meta.bootstrap_test(np.eye(3), n_resamples=100_001),
     r"must be an integer in the range \[1, 100000\]"),
    (lambda: meta.discriminative_power(np.eye(3), alpha=float("nan")),
     "The significance level alpha must be a finite number"),
    (lambda: kendall_tau(np.ones(3), np.ones(2)),
     "two vectors of the same length"),
    (lambda: utility_curves(relevant=0),
     "The number of relevant documents must be an integer in the range"),
])
def test_library_arguments_use_the_template(call, message):
    with pytest.raises(CranfieldError, match=message):
        call()


def test_aspect_weights_and_grades_are_checked():
    space = AspectSpace({"r": ("nr", "hr"), "c": ("nc", "c")})
    judgments = {"r": {"1": {"d": "hr"}}, "c": {"1": {"d": "c"}}}
    run = {"1": {"d": 1.0}}
    for kwargs, message in [({"aspect_weights": {"r": 0, "c": 0}},
                             "The aspect weights must be numbers >= 0, not all 0"),
                            ({"aspect_weights": {"r": float("nan")}}, "The weight of aspect 'r' must be a finite"),
                            ({"grades": {"r": [0]}}, "The grades of aspect 'r' must be 2 integers"),
                            ({"method": "median"}, "The method must be one of 'toma'")]:
        with pytest.raises(CranfieldError, match=message):
            evaluate_aspects(space, judgments, [run], "AP", **{"method": "cam", **kwargs})


# --------------------------------------------------------------------------- 5. help and options agree
@pytest.mark.parametrize("command, seeded", [("correlate", False), ("intuitiveness", False), ("compare", True),
                                             ("discpower", True), ("coverage", True), ("dss", True)])
def test_help_promises_a_seed_only_where_there_is_one(capsys, f, command, seeded):
    code, out, _ = cli(capsys, [command, "--help"])
    assert code == 0 and ("--seed" in out) == seeded
    base = BAD[command][0] if command in BAD else None
    code, _, err = cli(capsys, fill(base, f) + ["--seed", "3"])
    if seeded:
        assert code == 0, err
    else:
        assert "unrecognized arguments: --seed 3" in one_error(code, err)


# --------------------------------------------------------------------------- 6. plots and outputs
WORK = {  # command line -> the function doing its work, which must not start
    "axioms": (["axioms", "-m", "AP", "--depth", "2"], "cranfield.analysis.axioms.check_space"),
    "collection": (["collection", "{dq}", "--diversity"], "cranfield.analysis.diversity.collection_diversity"),
    "dss": (["dss", "{dq}", "--diversity", "--sweep", "--n", "3", "--k", "2"], "cranfield.analysis.dss.dss"),
    "truncation": (["truncation", "{q}", "{r1}", "-m", "RBU"], "cranfield.analysis.truncation.optimal_truncation"),
    "discpower": (["discpower", "{q}", "{r1}", "{r2}", "-m", "AP"], "cranfield.cli.meta._scores"),
    "aspects": (ASPECTS_EVAL + ["--report"], "cranfield.analysis.aspects.evaluate_named"),
}


@pytest.mark.parametrize("command", list(WORK))
@pytest.mark.parametrize("plot, message", [
    ("{tmp}/plot.txt", "The plot file must be named with one of the extensions .png, .svg, .pdf"),
    ("{tmp}/plot", "The plot file must be named with one of the extensions"),
    ("{tmp}/missing/plot.png", "the directory"),
])
def test_a_bad_plot_file_is_refused_before_the_work(capsys, monkeypatch, f, command, plot, message):
    args, work = WORK[command]
    monkeypatch.setattr(work, boom)
    assert message in one_error(*cli(capsys, fill(args + ["--plot", plot], f))[::2])


@pytest.mark.parametrize("command", list(WORK))
def test_missing_matplotlib_is_one_line_before_the_work(capsys, monkeypatch, f, command):
    args, work = WORK[command]
    monkeypatch.setattr(work, boom)
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    line = one_error(*cli(capsys, fill(args + ["--plot", "{tmp}/p.png"], f))[::2])
    assert "matplotlib" in line and "cranfield[plot]" not in line


@pytest.mark.parametrize("args, work", [
    (["collection", "{dq}", "--diversity"], "cranfield.analysis.diversity.collection_diversity"),
    (["dss", "{dq}", "--diversity", "-m", "StRecall", "--n", "3"], "cranfield.analysis.dss.dss"),
    (["compare", "{q}", "{r1}", "{r2}", "-m", "AP"], "cranfield.cli.meta._scores"),
    (["correlate", "{q}", "{r1}", "{r2}", "-m", "AP,P@10"], "cranfield.cli.meta._scores"),
    (["intuitiveness", "{q}", "{r1}", "{r2}", "-m", "AP,P@10", "--gold", "RR"], "cranfield.cli.meta._scores"),
    (["coverage", "{q}", "{r1}", "{r2}", "-m", "AP", "--reference", "RR"], "cranfield.cli.meta._scores"),
])
@pytest.mark.parametrize("output", ["{tmp}", "{tmp}/missing/out.txt"])
def test_a_bad_output_file_is_refused_before_the_work(capsys, monkeypatch, f, args, work, output):
    monkeypatch.setattr(work, boom)
    assert "cannot write the output file" in one_error(*cli(capsys, fill(args + ["-o", output], f))[::2])


@pytest.mark.parametrize("command", list(WORK))
@pytest.mark.parametrize("suffix, magic", [(".png", b"\x89PNG"), (".svg", b"<?xml"), (".pdf", b"%PDF")])
def test_plots_are_written_whole_in_the_format_of_their_extension(capsys, f, command, suffix, magic):
    target = Path(f["tmp"]) / f"plot{suffix}"
    code, _, err = cli(capsys, fill(WORK[command][0] + ["--plot", str(target)], f))
    assert code == 0 and "Traceback" not in err, err
    assert target.read_bytes().startswith(magic)
    assert not list(Path(f["tmp"]).glob(".*.part"))


@pytest.mark.parametrize("command", list(WORK))
def test_a_failed_plot_leaves_no_file(capsys, monkeypatch, f, command):
    from matplotlib.figure import Figure

    def full_disk(self, fname, **kwargs):
        fname.write(b"partial")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Figure, "savefig", full_disk)
    target = Path(f["tmp"]) / "plot.png"
    code, _, err = cli(capsys, fill(WORK[command][0] + ["--plot", str(target)], f))
    assert code == 2 and "Traceback" not in err
    assert err.splitlines()[-1] == f"cranfield: error: cannot write the plot {str(target)!r}: No space left on device"
    assert not target.exists() and not list(Path(f["tmp"]).glob(".*.part"))


def test_outputs_are_written_atomically(capsys, f):
    target = Path(f["tmp"]) / "out.json"
    code, out, err = cli(capsys, fill(["correlate", "{q}", "{r1}", "{r2}", "-m", "AP,P@10", "--format", "json",
                                       "-o", str(target)], f))
    assert code == 0 and out == "" and "error" not in err and target.read_text().startswith("[")
    assert not list(Path(f["tmp"]).glob(".*.part"))


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("args", [
    ["collection", "{dq}", "--diversity"],
    ["dss", "{dq}", "--diversity", "-m", "StRecall", "--n", "3"],
    ["compare", "{q}", "{r1}", "{r2}", "-m", "AP"],
    ["coverage", "{q}", "{r1}", "{r2}", "-m", "AP", "--reference", "RR"],
])
def test_a_failed_output_write_is_one_error_line(capsys, f, args):
    line = one_error(*cli(capsys, fill(args + ["-o", "/dev/full"], f))[::2])
    assert line == "cranfield: error: cannot write the output file '/dev/full': No space left on device"


# --------------------------------------------------------------------------- 7. RuntimeWarnings
@pytest.mark.parametrize("args", [
    ["compare", "{eq}", "{e1}", "{e2}", "-m", "AP"],
    ["compare", "{eq}", "{e1}", "{e2}", "-m", "AP", "--test", "wilcoxon"],
    ["compare", "{eq}", "{e1}", "{e2}", "{e3}", "-m", "AP", "--test", "bootstrap", "--B", "50"],
    ["discpower", "{eq}", "{e1}", "{e2}", "-m", "AP,nDCG", "--test", "randomization", "--B", "50"],
    ["discpower", "{eq}", "{e1}", "{e2}", "-m", "AP", "--test", "tukey-randomised", "--B", "50"],
    ["correlate", "{eq}", "{e1}", "{e2}", "-m", "AP,P@10,nDCG,RR"],
    ["intuitiveness", "{eq}", "{e1}", "{e2}", "-m", "AP,P@10", "--gold", "RR"],
    ["coverage", "{eq}", "{e1}", "{e2}", "-m", "AP,nDCG", "--reference", "RR", "--pairs", "20"],
    ["truncation", "{eq}", "{e1}", "-m", "RBU,OIE,F,NDCGT", "--format", "json"],
    ["truncation", "{eq}", "{e1}", "{e2}", "-m", "RBU,F"],
    ["collection", "{eq}", "--format", "json"],
    ["dss", "{eq}", "-m", "nDCG,AP", "--n", "3", "--k", "1,2"],
    ["aspects", "eval", "--aspect", "relevance={rel}", "--aspect", "correctness={cor}", "--labels",
     "relevance=nr,mr,hr", "--labels", "correctness=nc,pc,c", "{e1}", "-m", "TOMA(nDCG@10,dist=minkowski,p=1e300)",
     "-m", "MM(AP)", "--report"],
    ["aspects", "order", "--labels", "r=a,b,c", "--labels", "s=x,y", "--embed", "r=-1e6,0,1e6", "--embed",
     "s=0,1e6"],
])
def test_no_runtime_warning_reaches_the_terminal(capsys, f, args):
    with warnings.catch_warnings():
        warnings.simplefilter("default", RuntimeWarning)
        code, _, err = cli(capsys, fill(args, f))
    assert code == 0 and "RuntimeWarning" not in err and "Traceback" not in err, err


def test_library_edge_cases_raise_no_runtime_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(CranfieldError, match="at least 2"):
            coefficient_of_variation(np.ones((1, 3)), axis=0)
        space = AspectSpace({"r": ("a", "b", "c"), "s": ("x", "y")}, {"r": (0, 10, 1e6), "s": (0, 1e6)})
        d = distances(space, space.tuples(), "minkowski", 1e300)
        assert np.isfinite(d).all() and d.max() == pytest.approx(1e6)
        assert distances(space, space.tuples(), "euclidean").max() == pytest.approx(np.sqrt(2) * 1e6)
