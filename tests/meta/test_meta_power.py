"""Discriminative power, Δ (Sakai, WWW 2012, Figures 3 and 5) and ASL curves."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from cranfield import CranfieldError
from cranfield.meta import bootstrap_test, discriminative_power, t_test, tukey_hsd
from cranfield.render.plots import plot_asl_curves


def scores(seed: int = 7, topics: int = 30, systems: int = 6) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.random((topics, systems)) + np.linspace(0, 0.4, systems)


def test_power_counts_pairs_below_alpha():
    x = scores()
    dp = discriminative_power(x, test="t")
    p = t_test(x).pvalue
    assert dp.n_pairs == 15 and dp.n_significant == int((p < 0.05).sum())
    assert dp.power == dp.n_significant / 15
    assert np.array_equal(dp.asl, np.sort(p)) and np.isnan(dp.delta)
    assert dp.to_dict()["significant"] == dp.n_significant
    held = discriminative_power(x, test="t", correction="holm")
    assert held.n_significant <= dp.n_significant and held.result.correction == "holm"


def test_bootstrap_delta_is_the_largest_pair_delta():
    x = scores()
    dp = discriminative_power(x, test="bootstrap", n_resamples=400, rng=3, alpha=0.1)
    r = bootstrap_test(x, n_resamples=400, rng=3, alpha=0.1)
    assert dp.delta == r.delta.max()
    assert np.array_equal(np.sort(r.pvalue), dp.asl)
    assert dp.n_significant == int((r.pvalue < 0.1).sum())


def test_tukey_delta_is_the_smallest_significant_difference():
    x = scores()
    dp = discriminative_power(x, test="tukey-randomised", n_resamples=500, rng=3)
    r = tukey_hsd(x, n_resamples=500, rng=3)
    significant = r.pvalue < 0.05
    assert significant.any()
    assert dp.delta == np.abs(r.effect[significant]).min()
    # Tukey's ASL falls as |difference| grows: exactly the pairs at least Δ apart are significant
    assert np.array_equal(np.abs(r.effect) >= dp.delta, significant)
    none = discriminative_power(np.random.default_rng(1).random((10, 4)), test="tukey-randomised", n_resamples=200,
                                rng=1)
    assert none.n_significant == 0 and np.isnan(none.delta)


@pytest.mark.parametrize("suffix, magic", [(".png", b"\x89PNG"), (".svg", b"<?xml")])
def test_asl_curves_are_written(tmp_path, suffix, magic):
    x = {"A": scores(1), "B": scores(2)}
    powers = [discriminative_power(x, measure=m, test="t") for m in ("A", "B")]
    path = tmp_path / f"asl{suffix}"
    plot_asl_curves(powers, str(path))
    assert path.read_bytes().startswith(magic)


def test_asl_curves_without_matplotlib(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.backends.backend_agg", None)
    dp = discriminative_power(scores(), test="t")
    with pytest.raises(CranfieldError, match=r"plots need matplotlib.*pip install --force-reinstall matplotlib"):
        plot_asl_curves([dp], str(tmp_path / "x.png"))
    with pytest.raises(CranfieldError, match="no discriminative power"):
        plot_asl_curves([], str(tmp_path / "x.png"))


def test_unwritable_plot_is_a_cranfield_error(tmp_path):
    dp = discriminative_power(scores(), test="t")
    with pytest.raises(CranfieldError, match="cannot write the plot"):
        plot_asl_curves([dp], str(tmp_path / "missing" / "x.png"))
