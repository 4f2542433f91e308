"""The exposure measures in every command that scores runs (issue #28, docs/fairness.md): ``compare``,
``discpower``, ``report`` (with its figure of exposure per group against the target) and ``judges``
with ``--stochastic --groups --target``, and ``axioms``, which reads a loss as lower-is-better and
refuses the measures that need groups."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from cranfield.cli.main import main
from cranfield.io.examples import fairness_files

FILES = fairness_files()
FAIR = ["--stochastic", "--groups", FILES["groups"], "--target", FILES["target"], "-m", "EE-L", "-m", "AWRF"]


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Exit status, standard output and error of ``cranfield ARGS`` (warnings silenced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return (main(list(args)), *capsys.readouterr())


def test_compare_prints_the_policies_expected_values(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cli(capsys, "compare", FILES["qrels"], *FILES["runs"], *FAIR)
    assert code == 0, err
    rows = {line.split()[1]: line.split()[2:] for line in out.splitlines() if line.split()[:1] in (["a"], ["b"])}
    assert rows == {"fixed": ["0.0712", "0.9944"], "shuffled": ["0.0010", "0.9952"]}  # docs/fairness.md's table


def test_discpower_counts_the_pair_of_policies(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cli(capsys, "discpower", FILES["qrels"], *FILES["runs"], *FAIR, "--B", "200",
                          "--format", "csv")
    assert code == 0, err
    lines = out.splitlines()
    header = lines[0].split(",")
    rows = {r.split(",")[0]: dict(zip(header, r.split(","))) for r in lines[1:]}
    assert set(rows) == {"EE-L", "AWRF"} and rows["EE-L"]["pairs"] == "1"
    assert 0 < float(rows["EE-L"]["delta"]) < 1 and rows["EE-L"]["significant"] == "0"  # two topics only


def test_report_has_the_exposure_per_group_figure(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    code, _, err = _cli(capsys, "report", FILES["qrels"], *FILES["runs"], *FAIR, "-o", str(out))
    assert code == 0, err
    html = out.read_text()
    assert 'id="group-exposure"' in html and "Exposure per group" in html


def test_judges_scores_the_policies_under_each_qrels(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    judge = tmp_path / "judge.qrels"
    judge.write_text(Path(FILES["qrels"]).read_text().replace(" 2\n", " 1\n"))
    code, out, err = _cli(capsys, "judges", FILES["qrels"], f"judge={judge}", "--runs", *FILES["runs"], *FAIR,
                          "--format", "json")
    assert code == 0, err
    rows = json.loads(out)
    leaderboard = {(r["measure"], r["statistic"]): r["value"] for r in rows if r["part"] == "leaderboard"}
    assert leaderboard["EE-L", "tau_b"] == 1.0 and leaderboard["AWRF", "tau_b"] == 1.0


def test_axioms_read_a_loss_as_lower_is_better(capsys: pytest.CaptureFixture[str]) -> None:
    """EE-L falls when a relevant document is appended (its exposure moves towards its target):
    no violation of relevance. EE-D, the disparity, rises: appending a relevant document makes
    it worse, and the example says so in EE-D's own values (m(x) < m(x.a))."""
    code, out, err = _cli(capsys, "axioms", "-m", "EE-L", "-m", "EE-D", "--depth", "3", "--aspects", "1",
                          "--properties", "relevance,irrelevance", "--format", "json")
    assert code == 0, err
    rows = {(r["measure"], r["property"]): r for r in json.loads(out)}
    assert rows["EE-L", "relevance"]["violations"] == 0 and rows["EE-L", "irrelevance"]["violations"] == 0
    assert rows["EE-L", "relevance"]["applicable"] > 0
    assert rows["EE-D", "relevance"]["rate"] == 1.0
    assert rows["EE-D", "relevance"]["examples"][0].startswith("m(x)=0.75 < m(x.a)=")


@pytest.mark.parametrize("measure", ["AWRF", "nDCG*AWRF", "EE-L(level=group)"])
def test_axioms_refuse_the_measures_of_groups(capsys: pytest.CaptureFixture[str], measure: str) -> None:
    code, _, err = _cli(capsys, "axioms", "-m", measure, "--depth", "2")
    assert code == 2
    assert err.startswith(f"cranfield: error: {measure} needs document groups") and "fairness.md#axioms" in err


def test_judges_read_a_loss_with_its_smallest_mean_on_top() -> None:
    """Three policies, EE-L 0.1 < 0.2 < 0.3 under the reference and 0.15 < 0.35 > 0.25 under a
    judge (0.05 higher each, the last two swapped): the same best policy (same_top 1), the
    one swap costing one place (max_drop 1), and the bias +0.05 (judge − reference)."""
    from cranfield.analysis.judges import _leaderboard
    from cranfield.meta.scores import ScoreMatrix

    reference = ScoreMatrix(np.array([[0.1, 0.2, 0.3], [0.1, 0.2, 0.3]]), ("a", "b", "c"), measure="EE-L")
    judge = ScoreMatrix(np.array([[0.15, 0.35, 0.25], [0.15, 0.35, 0.25]]), ("a", "b", "c"), measure="EE-L")
    loss = _leaderboard(reference, judge, True, n_resamples=0).statistics
    gain = _leaderboard(reference, judge, False, n_resamples=0).statistics
    assert loss["same_top"] == 1.0 and gain["same_top"] == 0.0
    assert loss["max_drop"] == 1.0 and loss["tau_b"] == gain["tau_b"] == pytest.approx(1 / 3)
    assert loss["bias"] == pytest.approx(0.05) and loss["loa_low"] <= 0.05 <= loss["loa_high"]
