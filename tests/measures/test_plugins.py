"""Your own measures (docs/plugins.md): the public declaration API, its checks, the CLI's
--plugin option and the ``cranfield.measures`` entry points, on real data."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cranfield
from conftest import DATA, run_main
from cranfield import _entry_points
from cranfield.measures import plugins
from cranfield.measures.registry import REGISTRY

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = DATA / "plugins" / "my_measures.py"
QRELS = str(DATA / "robust03" / "qrels.txt.gz")
RUNS = [str(DATA / "robust03" / f"input.{name}.gz") for name in ("humR03dc", "pircRBa1", "uic0301")]


@pytest.fixture(autouse=True)
def clean_registry():
    """Each test starts without the plugin's measures and leaves the registry as it found it."""
    before = set(REGISTRY)
    sys.modules.pop("my_measures", None)
    yield
    for name in set(REGISTRY) - before:
        cranfield.unregister_measure(name)
    sys.modules.pop("my_measures", None)


def _identity(batch, *, cutoff):
    return np.zeros(batch.labels.shape[:2])


# --------------------------------------------------------------------------- the documented example
def test_docs_show_the_example_file_verbatim():
    text = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    assert blocks[0] == PLUGIN.read_text(encoding="utf-8")


def test_example_scores_equal_precision_from_python():
    cranfield.load_plugin(str(PLUGIN))
    measures = ["MyPrecision@10", "P@10", "MyPrecision(rel=2)@5", "P(rel=2)@5", "MyPrecision@1000", "P@1000"]
    frame = cranfield.evaluate(QRELS, RUNS, measures)
    wide = frame.pivot_table(index=["run", "topic"], columns="measure", values="value")
    assert len(wide) > 100
    for mine, theirs in zip(measures[::2], measures[1::2], strict=True):
        np.testing.assert_array_equal(wide[mine].to_numpy(), wide[theirs].to_numpy())
    spec = REGISTRY["MyPrecision"]
    assert spec.cutoff == "required" and spec.value_range == (0.0, 1.0) and "Manning" in spec.cite


def test_example_by_hand_on_a_synthetic_batch():
    """Labels 2, 0, 1 then the end of the ranking: P@2 = 1/2; P@4 = 2/4; with rel=2, P@4 = 1/4."""
    cranfield.load_plugin(str(PLUGIN))
    topics = cranfield.Topics.from_ideal(np.array([[2, 1, 1]]))
    batch = cranfield.Batch.from_labels(np.array([[[2, 0, 1, 0]]]), topics, length=np.array([[3]]))
    assert cranfield.parse_measure("MyPrecision@2")(batch)[0, 0] == 0.5
    assert cranfield.parse_measure("MyPrecision@4")(batch)[0, 0] == 0.5
    assert cranfield.parse_measure("MyPrecision(rel=2)@4")(batch)[0, 0] == 0.25
    assert str(cranfield.parse_measure("MyPrecision(rel=1)@4")) == "MyPrecision@4"


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(0, 3), min_size=6, max_size=6), min_size=1, max_size=4),
       st.integers(1, 8), st.integers(1, 3))
def test_example_equals_precision_on_any_batch(rows, k, rel):
    if "MyPrecision" not in REGISTRY:
        cranfield.load_plugin(str(PLUGIN))
    labels = np.array(rows)[None]  # (1, T, 6)
    topics = cranfield.Topics.from_ideal(np.sort(labels[0], axis=1)[:, ::-1])
    batch = cranfield.Batch.from_labels(labels, topics)
    mine = cranfield.parse_measure(f"MyPrecision(rel={rel})@{k}")(batch)
    np.testing.assert_array_equal(mine, cranfield.parse_measure(f"P(rel={rel})@{k}")(batch))


def test_plugin_loads_once_by_path_and_by_name(monkeypatch):
    first = cranfield.load_plugin(str(PLUGIN))
    assert cranfield.load_plugin(str(PLUGIN)) is first
    monkeypatch.syspath_prepend(str(PLUGIN.parent))
    assert cranfield.load_plugin("my_measures") is first
    monkeypatch.chdir(PLUGIN.parent)
    assert cranfield.load_plugin("my_measures.py") is first


def test_a_module_of_the_working_directory_loads_by_name(monkeypatch):
    monkeypatch.chdir(PLUGIN.parent)
    cranfield.load_plugin("my_measures")
    assert "MyPrecision" in REGISTRY


# --------------------------------------------------------------------------- the API
def test_register_measure_call_form_with_a_float_parameter():
    def rbp(batch, *, cutoff, p):
        """rank-biased precision, graded (Moffat & Zobel, TOIS 2008, Eq. 6): (1 − p)·Σ_r p^{r−1}·g_r/max_rel"""
        g = np.maximum(batch.grades[:, :, :cutoff], 0) / max(batch.topics.max_rel, 1)
        return (1 - p) * (g * p ** np.arange(g.shape[2])).sum(axis=2)

    spec = cranfield.register_measure("MyRBP", rbp, params=cranfield.param(
        "p", float, 0.8, "persistence", low=0, high=1, open_low=True, open_high=True), cite="Moffat & Zobel, 2008")
    assert spec.doc.startswith("rank-biased precision") and spec.cutoff == "optional"
    frame = cranfield.evaluate(QRELS, RUNS[:1], ["MyRBP(p=0.5)", "RBP(p=0.5)", "MyRBP@20", "RBP@20"], per_topic=False)
    values = dict(zip(frame["measure"], frame["value"], strict=True))
    assert values["MyRBP(p=0.5)"] == pytest.approx(values["RBP(p=0.5)"])
    assert values["MyRBP@20"] == pytest.approx(values["RBP@20"])
    with pytest.raises(cranfield.MeasureError, match=r"The 'p' parameter of MyRBP must be a float in the range "
                                                     r"\(0, 1\)\. Got '1' instead\."):
        cranfield.parse_measure("MyRBP(p=1)")


def test_decorator_defaults_to_the_function_name_and_returns_it():
    @cranfield.measure(cutoff="none", value_range=(0, math.inf), aggregate="sum")
    def Relevant(batch, *, rel=1):  # noqa: N802
        """relevant documents retrieved"""
        return (batch.grades >= rel).sum(axis=2)

    spec = REGISTRY["Relevant"]
    assert spec.depth({}) is None and spec.aggregate == "sum" and callable(Relevant)
    with pytest.raises(cranfield.MeasureError, match="takes no cutoff"):
        cranfield.parse_measure("Relevant@10")
    frame = cranfield.evaluate(QRELS, RUNS[:1], ["Relevant", "NumRelRet"], per_topic=False)
    values = dict(zip(frame["measure"], frame["value"], strict=True))
    assert values["Relevant"] == values["NumRelRet"]


def test_duplicates_are_refused_unless_replaced():
    cranfield.register_measure("Mine", _identity, aliases=("Mine2",))
    with pytest.raises(cranfield.MeasureError, match=r"The name 'Mine' is already registered .* replace=True"):
        cranfield.register_measure("Mine", _identity)
    with pytest.raises(cranfield.MeasureError, match=r"'P' is already registered \(measure P\)"):
        cranfield.register_measure("Other", _identity, aliases=("P",))
    with pytest.raises(cranfield.MeasureError, match="'nDCG' is already registered"):
        cranfield.register_measure("nDCG", _identity)

    def ones(batch, *, cutoff):
        return np.ones(batch.labels.shape[:2])

    cranfield.register_measure("Mine", ones, replace=True)
    assert "Mine2" not in {a for s in REGISTRY.values() for a in s.aliases}
    topics = cranfield.Topics.from_ideal(np.array([[1]]))
    assert cranfield.parse_measure("Mine")(cranfield.Batch.from_labels(np.array([[[1]]]), topics))[0, 0] == 1


@pytest.mark.parametrize(("declaration", "message"), [
    ({"name": "2 words"}, r"The name of a measure must be letters, digits and _\+#-, .* Got '2 words' instead\."),
    ({"name": "P@10"}, "The name of a measure must be"),
    ({"value_range": (1, 0)}, r"The value_range of measure 'X' must be two numbers \(low, high\) with low <= high"),
    ({"value_range": (0, float("nan"))}, "The value_range of measure 'X' must be"),
    ({"value_range": "01"}, "The value_range of measure 'X' must be"),
    ({"value_range": (0, 1, 2)}, "The value_range of measure 'X' must be"),
    ({"cutoff": "maybe"}, "The cutoff of measure 'X' must be one of 'optional', 'required', 'none'"),
    ({"aggregate": "median"}, "The aggregate of measure 'X' must be one of 'mean', 'sum'"),
    ({"params": [("p", 0.5)]}, r"The params of measure 'X' must be Param objects, from cranfield.param"),
    ({"params": [cranfield.param("p", float, 0.5)]}, r"The kernel of measure 'X' must be a function "
                                                     r"kernel\(batch, \*, cutoff, p\)"),
    ({"cutoff": "none"}, r"The kernel of measure 'X' must be a function kernel\(batch\).*Got '_identity"),
    ({"aliases": ("X",)}, "The aliases of measure 'X' must be names other than its own"),
    ({"doc": 3}, "The doc of measure 'X' must be a str"),
])
def test_bad_declarations_are_clear_errors(declaration, message):
    name = declaration.pop("name", "X")
    with pytest.raises(cranfield.MeasureError, match=message):
        cranfield.register_measure(name, _identity, **declaration)
    assert "X" not in REGISTRY


def test_bad_kernels_and_parameters():
    with pytest.raises(TypeError, match=r"The kernel of measure 'X' must be a function kernel\(batch, \*, cutoff"):
        cranfield.register_measure("X", 3)
    with pytest.raises(cranfield.MeasureError, match=r"The name of a parameter must be a Python identifier"):
        cranfield.param("cutoff", int, 1)
    with pytest.raises(cranfield.MeasureError, match=r"The kind of parameter 'p' must be int, float, bool, str"):
        cranfield.param("p", complex, 1)
    with pytest.raises(cranfield.MeasureError, match=r"The default of parameter 'p' must be a float in the range "
                                                     r"\[0, 1\]\. Got 2 instead\."):
        cranfield.param("p", float, 2, low=0, high=1)
    with pytest.raises(cranfield.MeasureError, match=r"The choices of parameter 'mode' must be a non-empty"):
        cranfield.param("mode", str, "a")
    assert cranfield.param("mode", str, "a", choices=("a", "b")).describe() == "one of 'a', 'b'"
    assert cranfield.param("k", int, "3", low=1).default == 3


def test_kernel_results_are_checked():
    topics = cranfield.Topics.from_ideal(np.array([[1], [1]]))
    batch = cranfield.Batch.from_labels(np.array([[[1], [0]]]), topics)
    cranfield.register_measure("Flat", lambda batch, *, cutoff: np.zeros(2))
    cranfield.register_measure("Big", lambda batch, *, cutoff: np.full((1, 2), 2.0))
    cranfield.register_measure("Holes", lambda batch, *, cutoff: np.full((1, 2), np.nan))
    with pytest.raises(cranfield.MeasureError, match=r"The value of measure Flat must be an array of numbers of "
                                                     r"shape \(S, T\) = \(1, 2\)\. Got an array of float64 of "
                                                     r"shape \(2,\) instead\."):
        cranfield.parse_measure("Flat")(batch)
    with pytest.raises(cranfield.MeasureError, match=r"The values of measure Big must lie in its value_range "
                                                     r"\[0, 1\]\. Got 2\.0 instead\."):
        cranfield.parse_measure("Big")(batch)
    assert np.isnan(cranfield.parse_measure("Holes")(batch)).all()


# --------------------------------------------------------------------------- the command line
def test_eval_with_plugin_equals_precision(capsys, tmp_path):
    code, out, err = run_main(capsys, ["eval", "--plugin", str(PLUGIN), QRELS, *RUNS, "-m",
                                       "MyPrecision@10,P@10,MyPrecision(rel=2)@5,P(rel=2)@5", "-q"])
    assert code == 0, err
    rows = [line.split() for line in out.splitlines() if line and not line.startswith("#")]
    header = rows[0]
    for row in rows[1:]:
        values = dict(zip(header, row, strict=True))
        assert values["MyPrecision@10"] == values["P@10"]
        assert values["MyPrecision(rel=2)@5"] == values["P(rel=2)@5"]
    assert len(rows) > 100


def test_plugin_option_before_the_command_and_repeated(capsys, tmp_path):
    other = tmp_path / "more_measures.py"
    other.write_text("import numpy as np\nimport cranfield\n\n"
                     "cranfield.register_measure('Zero', lambda batch, *, cutoff: np.zeros(batch.labels.shape[:2]))\n")
    code, out, err = run_main(capsys, ["--plugin", str(PLUGIN), "eval", "--plugin", str(other), QRELS, RUNS[0],
                                       "-m", "MyPrecision@5,Zero"])
    assert code == 0, err
    assert re.search(r"humR03dc\s+\d\.\d+\s+0\.0000", out)
    code, out, err = run_main(capsys, ["--plugin", str(PLUGIN), "measures"])
    assert code == 0 and "MyPrecision" in out and "Manning" in out


def test_axioms_compare_discpower_accept_a_plugin_measure(capsys):
    code, out, err = run_main(capsys, ["axioms", "--plugin", str(PLUGIN), "-m", "MyPrecision@3", "-m", "P@3",
                                       "--depth", "5", "--format", "json"])
    assert code == 0, err
    rows = json.loads(out)
    mine = {r["property"]: (r["applicable"], r["violations"]) for r in rows if r["measure"] == "MyPrecision@3"}
    theirs = {r["property"]: (r["applicable"], r["violations"]) for r in rows if r["measure"] == "P@3"}
    assert mine == theirs and len(mine) == 4
    code, out, err = run_main(capsys, ["compare", "--plugin", str(PLUGIN), QRELS, *RUNS, "-m", "MyPrecision@10,P@10",
                                       "--format", "json"])
    assert code == 0, err
    table = json.loads(out)
    assert {str(k) for row in table for k in row} >= {"MyPrecision@10", "P@10"} or "MyPrecision@10" in out
    code, out, err = run_main(capsys, ["discpower", "--plugin", str(PLUGIN), QRELS, *RUNS, "-m", "MyPrecision@10",
                                       "-m", "P@10", "--B", "200", "--format", "json"])
    assert code == 0, err
    power = {r["measure"]: r for r in json.loads(out)}
    assert power["MyPrecision@10"] == {**power["P@10"], "measure": "MyPrecision@10"}


def test_axioms_help_example_runs(capsys, monkeypatch):
    code, out, _ = run_main(capsys, ["axioms", "--help"])
    line = next(w for w in out.splitlines() if "MyPrecision" in w)
    assert "--plugin my_measures.py" in line
    monkeypatch.chdir(PLUGIN.parent)
    args = line.split()[1:]
    args[args.index("--depth") + 1] = "4"  # the example's depth, made quick
    code, out, err = run_main(capsys, [a.strip("'") for a in args])
    assert code == 0, err
    assert {r["measure"] for r in json.loads(out)} == {"MyPrecision@10"}


@pytest.mark.parametrize(("source", "message"), [
    ("import numpy\n1 / 0\n", r"The plugin '.*broken\.py' failed to load: ZeroDivisionError: division by zero"),
    ("import cranfield\ncranfield.register_measure('P', lambda b, *, cutoff: b)\n",
     r"The plugin '.*broken\.py' failed to load: The name 'P' is already registered \(measure P\)\. Pass "
     r"replace=True to replace it\."),
])
def test_a_failing_plugin_is_one_line_naming_it(capsys, write, source, message):
    path = write("broken.py", source)
    code, out, err = run_main(capsys, ["eval", "--plugin", str(path), QRELS, RUNS[0], "-m", "P@10"])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and re.fullmatch("cranfield: error: " + message + r"\n", err)
    assert "broken" not in sys.modules


def test_a_missing_plugin_is_one_line(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run_main(capsys, ["eval", "--plugin", "no_such_plugin", QRELS, RUNS[0], "-m", "P@10"])
    assert code == 2
    assert err == ("cranfield: error: The plugin 'no_such_plugin' cannot be found: there is no module "
                   "'no_such_plugin' (give an importable module name or the path of a .py file).\n")
    code, _, err = run_main(capsys, ["eval", "--plugin", "missing.py", QRELS, RUNS[0], "-m", "P@10"])
    assert code == 2 and "The plugin file must be an existing .py file. Got 'missing.py' instead." in err
    code, _, err = run_main(capsys, ["eval", "--plugin"])
    assert code == 2 and "--plugin: expected one argument" in err


# --------------------------------------------------------------------------- entry points
def _distribution(root: Path, module: str, source: str, value: str) -> None:
    """An installed distribution as importlib.metadata finds it: a dist-info with an
    entry_points.txt beside the module it names, in a directory on sys.path."""
    info = root / f"{module}_dist-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}-dist\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[cranfield.measures]\n{module} = {value}\n")
    (root / f"{module}.py").write_text(source)


def test_entry_point_plugins_load_at_cli_start(capsys, tmp_path, monkeypatch):
    _distribution(tmp_path, "ep_measures", PLUGIN.read_text(encoding="utf-8"), "ep_measures")
    register = ("import numpy as np\nimport cranfield\n\ndef register():\n    cranfield.register_measure("
                "'EpZero', lambda batch, *, cutoff: np.zeros(batch.labels.shape[:2]))\n")
    _distribution(tmp_path, "ep_function", register, "ep_function:register")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(plugins, "_LOADED_ENTRY_POINTS", set())
    try:
        code, out, err = run_main(capsys, ["eval", QRELS, RUNS[0], "-m", "MyPrecision@10,P@10,EpZero"])
        assert code == 0, err
        row = out.splitlines()[-1].split()
        assert row[1] == row[2] and row[3] == "0.0000"
        code, out, err = run_main(capsys, ["eval", QRELS, RUNS[0], "-m", "MyPrecision@10"])  # loaded once
        assert code == 0, err
    finally:
        sys.modules.pop("ep_measures", None)
        sys.modules.pop("ep_function", None)


def test_a_failing_entry_point_names_it(capsys, tmp_path, monkeypatch):
    _distribution(tmp_path, "ep_broken", "raise RuntimeError('no luck')\n", "ep_broken")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(plugins, "_LOADED_ENTRY_POINTS", set())
    code, _, err = run_main(capsys, ["eval", QRELS, RUNS[0], "-m", "P@10"])
    assert code == 2
    assert err == ("cranfield: error: The plugin 'ep_broken' (entry point 'ep_broken' of group 'cranfield.measures' "
                   "in package ep_broken-dist 1.0) failed to load: RuntimeError: no luck\n")


def test_console_script_with_plugin_in_a_fresh_process():
    result = subprocess.run([sys.executable, "-m", "cranfield.cli.main", "eval", "--plugin", str(PLUGIN), QRELS,
                             RUNS[0], "-m", "MyPrecision@10,P@10"], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    row = result.stdout.splitlines()[-1].split()
    assert row[0] == "humR03dc" and row[1] == row[2]


def test_the_entry_point_precheck_looks_only_where_it_may_skip(tmp_path, monkeypatch):
    """_entry_points.may_declare lets start-up skip importlib.metadata only when no distribution on the
    path can declare the group; when unsure (a zip file on the path) it says so."""
    other = tmp_path / "other_dist-1.0.dist-info"
    other.mkdir()
    (other / "entry_points.txt").write_text("[console_scripts]\nother = other:main\n")
    (tmp_path / "plain_dist-1.0.dist-info").mkdir()  # no entry_points.txt at all
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    # importlib_metadata (the backport, which some test dependencies import) adds its own finder:
    # may_declare then always lets importlib.metadata look; here only the standard finders
    from importlib.machinery import PathFinder

    standard = [f for f in sys.meta_path if not hasattr(f, "find_distributions") or f is PathFinder]
    monkeypatch.setattr(sys, "meta_path", standard)
    assert not _entry_points.may_declare()
    assert plugins.load_entry_points() == []
    _distribution(tmp_path, "ep_found", "", "ep_found")
    assert _entry_points.may_declare()
    monkeypatch.setattr(sys, "meta_path", [*standard, type("Finder", (), {"find_distributions": None})()])
    assert _entry_points.may_declare()  # another finder of distributions: it may know of more
    monkeypatch.setattr(sys, "meta_path", standard)
    zipped = tmp_path / "bundle.zip"
    zipped.write_bytes(b"PK\x05\x06" + bytes(18))
    monkeypatch.setattr(sys, "path", [str(zipped)])
    assert _entry_points.may_declare()
