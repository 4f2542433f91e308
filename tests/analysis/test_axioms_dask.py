"""Issue #18: axioms.check_space on a real Dask cluster (two worker processes) counts exactly
what it counts in this process."""

from __future__ import annotations

import pytest

pytest.importorskip("dask.distributed", reason="the Dask backend needs dask.distributed (cranfield[dask])")

from dask.distributed import Client, LocalCluster  # noqa: E402

from cranfield.analysis import axioms  # noqa: E402
from cranfield.analysis.axioms import check_space  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as c:
        yield c


def test_axioms_on_dask_equal_local(client, monkeypatch):
    monkeypatch.setattr(axioms, "BLOCK", 50)  # many blocks, so both workers get some
    measures = ["ACT", "AP_IA", "alpha_nDCG@5"]
    local = check_space(measures, depth=5, aspects=2, examples=4, progress_bar=False)
    remote = check_space(measures, depth=5, aspects=2, examples=4, progress_bar=False, client=client)
    assert [c.to_dict() for c in remote] == [c.to_dict() for c in local]
    assert any(c.violations for c in local)
    assert len(axioms.blocks(axioms.Space(5, 2))) > 2
