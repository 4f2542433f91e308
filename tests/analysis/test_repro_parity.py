"""`reproduce` and the similarities against repro_eval (Breuer et al., SIGIR 2020) on real TREC runs.

The TREC 2003 Robust runs stand in for an original (uic0301 baseline, NLPR03vb10 advanced) and a
reproduced experiment (humR03dc, pircRBa1); repro_eval is run on the same files here."""

from __future__ import annotations

import gzip
import math
import shutil
import warnings
from pathlib import Path

import pytest

from cranfield.analysis.repro import reproduce
from cranfield.analysis.similarity import compare_rankings

repro_eval = pytest.importorskip("repro_eval")
from repro_eval.Evaluator import RpdEvaluator, RplEvaluator  # noqa: E402
from repro_eval.measure.document_order import KTU, RBO  # noqa: E402
from repro_eval.util import load_run  # noqa: E402

DATA = Path(__file__).parent.parent / "data" / "robust03"
FILES = {"qrels": "qrels.txt", "ob": "input.uic0301", "oa": "input.NLPR03vb10", "rb": "input.humR03dc",
         "ra": "input.pircRBa1"}
MEASURES = ["AP", "P@5", "P@10", "nDCG", "nDCG@10", "R@100", "Rprec", "Bpref", "RR", "AP@100"]  # names of both tools


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("robust03")
    out = {}
    for key, name in FILES.items():
        with gzip.open(DATA / f"{name}.gz") as src, open(root / name, "wb") as dst:
            shutil.copyfileobj(src, dst)
        out[key] = str(root / name)
    return out


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-14)


@pytest.fixture(scope="module")
def reference(files):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = RpdEvaluator(qrels_orig_path=files["qrels"], run_b_orig_path=files["ob"], run_a_orig_path=files["oa"],
                          run_b_rep_path=files["rb"], run_a_rep_path=files["ra"])
        ev.trim()
        ev.evaluate()
        return {"rmse": ev.rmse(), "er": ev.er(), "dri": ev.dri(), "p": ev.ttest()}


def test_rmse_er_delta_ri_and_p_equal_repro_eval(files, reference):
    frame = reproduce(files["qrels"], files["ob"], files["oa"], files["rb"], files["ra"], MEASURES).to_frame()
    means = frame[frame.topic == "all"]
    checked = 0
    for m in MEASURES:
        rows = means[means.measure == m]
        assert close(rows[rows.statistic == "ER"].value.item(), reference["er"][m])
        assert close(rows[rows.statistic == "DeltaRI"].value.item(), reference["dri"][m])
        for role in ("baseline", "advanced"):
            assert close(rows[(rows.statistic == "RMSE") & (rows.run == role)].value.item(), reference["rmse"][role][m])
            assert close(rows[(rows.statistic == "p") & (rows.run == role)].value.item(), reference["p"][role][m])
            checked += 2
    assert checked == 4 * len(MEASURES)


def test_unpaired_p_values_of_a_replication_equal_repro_eval(files, tmp_path):
    rep_qrels = tmp_path / "qrels-rep.txt"
    shutil.copy(files["qrels"], rep_qrels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = RplEvaluator(qrels_orig_path=files["qrels"], qrels_rpl_path=str(rep_qrels), run_b_orig_path=files["ob"],
                          run_a_orig_path=files["oa"], run_b_rep_path=files["rb"], run_a_rep_path=files["ra"])
        ev.trim()
        ev.evaluate()
        p, er = ev.ttest(), ev.er()
    result = reproduce(files["qrels"], files["ob"], files["oa"], files["rb"], files["ra"], MEASURES,
                       rep_qrels=str(rep_qrels))
    assert result.kind == "replicability"
    frame = result.to_frame()
    assert set(frame.statistic) == {"ER", "DeltaRI", "p"}
    for m in MEASURES:
        rows = frame[frame.measure == m]
        assert close(rows[rows.statistic == "ER"].value.item(), er[m])
        for role in ("baseline", "advanced"):
            assert close(rows[(rows.statistic == "p") & (rows.run == role)].value.item(), p[role][m])


def test_ktu_and_rbo_per_topic_equal_repro_eval(files):
    orig, rep = load_run(files["ob"]), load_run(files["rb"])
    cutoffs = [5, 10, 20, 50, 100]  # repro_eval fails at 1000: some rankings are shorter (docs/reproducibility.md)
    frame = compare_rankings([files["ob"], files["rb"]], [f"{m}@{k}" for k in cutoffs for m in ("KTU", "nRBO")]
                             ).to_frame()
    for k in cutoffs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ktu = KTU(orig, rep, trim_thresh=k, per_topic=True)
            cut = [{q: dict(list(d.items())[:k]) for q, d in run.items()} for run in (orig, rep)]
            rbo = RBO(cut[0], cut[1], p=0.95, depth=k, pbar=False, per_topic=True)
        mine = {m: frame[frame.measure == m].set_index("topic").value for m in (f"KTU@{k}", f"nRBO@{k}")}
        assert len(ktu) == 100
        for topic, value in ktu.items():
            assert mine[f"KTU@{k}"][topic] == pytest.approx(value, abs=1e-13)
            assert mine[f"nRBO@{k}"][topic] == pytest.approx(rbo[topic], abs=1e-13)


def test_reproducibility_rows_at_every_cutoff(files):
    result = reproduce(files["qrels"], files["ob"], files["oa"], files["rb"], files["ra"], ["AP"], cutoffs=[10, 1000])
    frame = result.to_frame()
    doc = frame[frame.statistic.isin(["KTU", "RBO"])]
    assert set(doc.cutoff) == {10, 1000}
    assert doc.measure.isna().all()
    assert frame[frame.statistic.isin(["ER", "DeltaRI"])].run.isna().all()
    assert len(doc[(doc.topic == "all")]) == 2 * 2 * 2  # KTU and RBO × 2 cutoffs × 2 runs
