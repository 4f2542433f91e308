"""Stochastic runs joined to the judgments (cranfield.evaluation.sampling, docs/fairness.md#design-and-speed):
the key look-up against binary search, and values that do not depend on how the topics are cut into blocks
nor on the order of the ranked lists in the file."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cranfield.evaluation.evaluator as evaluator
import cranfield.evaluation.sampling as sampling
from cranfield.evaluation.collection import find_keys, key_slots
from cranfield.evaluation.evaluator import Evaluator

DATA = Path(__file__).parent.parent / "data" / "fairness"
MEASURES = ["EE-L", "EE-D(model=rbp,gamma=0.8)", "EE-R(level=group)", "AWRF", "nDCG*AWRF(k=5)", "nDCG@10"]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3000), st.integers(0, 40), st.integers(0, 2**32 - 1))
def test_find_keys_agrees_with_binary_search(n: int, top_bits: int, seed: int) -> None:
    """Keys with ``top_bits`` random top bits and 20 random low bits: with few top bits, they
    crowd a few slots, which the look-up walks and then binary-searches."""
    rng = np.random.default_rng(seed)
    high = rng.integers(0, 2**top_bits, n, dtype=np.uint64) if top_bits else np.zeros(n, dtype=np.uint64)
    key = np.unique((high << np.uint64(64 - max(top_bits, 1))) | rng.integers(0, 2**20, n, dtype=np.uint64))
    asked = np.concatenate((key, key + np.uint64(1), key - np.uint64(1), rng.integers(0, 2**63, 100, dtype=np.uint64)))
    pos, hit = find_keys(key, key_slots(key), asked)
    at = np.minimum(np.searchsorted(key, asked), key.size - 1)
    assert hit.tolist() == (key[at] == asked).tolist()
    assert pos[hit].tolist() == at[hit].tolist()


def _values(case: str, monkeypatch: pytest.MonkeyPatch | None = None, budget: int | None = None,
            run: Path | None = None) -> np.ndarray:
    if monkeypatch is not None and budget is not None:
        monkeypatch.setattr(sampling, "SAMPLED_CELL_BUDGET", budget)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = Evaluator(DATA / f"{case}.qrels", MEASURES, stochastic=True, groups=DATA / f"{case}.groups",
                       target=DATA / f"{case}.target")
        return ev.evaluate(run or DATA / f"{case}.run", order="rank").values


@pytest.mark.parametrize("case", ["case03", "case07", "own2022"])
@pytest.mark.parametrize("budget", [1, 64, 1000])
def test_values_do_not_depend_on_the_blocks_of_topics(case: str, budget: int, monkeypatch: pytest.MonkeyPatch
                                                      ) -> None:
    """One topic per block, a few, or all at once: the same values, bit for bit (document codes
    sorted by topic first, sums over a topic's samples in one order whatever the block holds)."""
    whole = _values(case)
    assert np.array_equal(_values(case, monkeypatch, budget), whole, equal_nan=True)


def test_values_do_not_depend_on_the_order_of_the_lists(tmp_path: Path) -> None:
    """The lines of a stochastic run shuffled, topic by topic, or sample by sample (each topic's
    samples in the same order of first appearance, which numbers them): the same values, bit
    for bit, whether the batch is filled by a scatter or, lists in its order, by none."""
    lines = (DATA / "case03.run").read_text().splitlines()
    slot: dict[tuple[str, str], int] = {}
    for line in lines:
        topic, sample = line.split()[:2]
        slot.setdefault((topic, sample), sum(t == topic for t, _ in slot))
    expected = _values("case03")
    for name, order in (("by_topic", lambda f: (f[0], slot[f[0], f[1]], int(f[3]))),
                        ("by_sample", lambda f: (slot[f[0], f[1]], f[0], int(f[3])))):
        path = tmp_path / name
        path.write_text("\n".join(sorted(lines, key=lambda line: order(line.split()))) + "\n")
        assert np.array_equal(_values("case03", run=path), expected, equal_nan=True), name


def test_a_run_in_the_batch_order_needs_no_scatter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every sample ranking all of its topic's documents, sample by sample: the codes are the
    batch as they are (no scatter); topic by topic, they are scattered: the same values."""
    rng = np.random.default_rng(3)
    qrels = [line.split() for line in (DATA / "case03.qrels").read_text().splitlines()]
    docs = {t: [d for q, _, d, _ in qrels if q == t][:6] for t in ("101", "102", "103")}
    lists = {(t, s): rng.permutation(docs[t]).tolist() for s in range(4) for t in docs}

    def write(name: str, keys: list[tuple[str, int]]) -> Path:
        path = tmp_path / name
        path.write_text("".join(f"{t} {s} {d} {r} {-r} x\n" for t, s in keys for r, d in enumerate(lists[t, s], 1)))
        return path

    def values(run: Path) -> np.ndarray:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ev = Evaluator(qrels_path, MEASURES, stochastic=True, groups=DATA / "case03.groups")
            return ev.evaluate(run).values

    qrels_path = tmp_path / "qrels"  # the run's topics only: its lists fill the whole batch
    qrels_path.write_text("".join(" ".join(q) + "\n" for q in qrels if q[0] in docs))
    scattered: list[bool] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        sb = sampling.sampled_batch(*args, **kwargs)
        scattered.append(sb.doc.base is None)  # else a view of the codes as they came
        return sb

    monkeypatch.setattr(evaluator, "sampled_batch", spy)
    by_sample = values(write("by_sample", [(t, s) for s in range(4) for t in docs]))
    by_topic = values(write("by_topic", [(t, s) for t in docs for s in range(4)]))
    assert scattered == [False, True]
    assert np.array_equal(by_sample, by_topic, equal_nan=True)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.binary(min_size=1, max_size=8).filter(lambda b: not b.endswith(b"\0")), min_size=1, max_size=40))
def test_short_docnos_are_their_own_keys(docnos: list[bytes]) -> None:
    """Docnos of at most 8 bytes get keys equal exactly when the docnos are (no check of the
    strings needed); longer ones get none (their keys are hashes)."""
    array = np.array(docnos, dtype="S")
    rows = np.arange(array.size)[::-1]
    keys = sampling._exact_keys(array, sampling.ListRows(rows, np.ones(rows.size, np.int64)))
    assert keys is not None
    assert np.array_equal(keys[:, None] == keys[None, :], array[rows][:, None] == array[rows][None, :])
    one = np.ones(1, np.int64)
    assert sampling._exact_keys(np.array([b"123456789"]), sampling.ListRows(one - 1, one)) is None


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 12), st.integers(0, 6), st.integers(1, 60))
def test_document_codes_agree_with_sorting(seed: int, lists: int, top_bits: int, pool: int) -> None:
    """Codes of ranked lists whose keys crowd a few slots (``top_bits`` random top bits), with
    documents the seed sample lacks and lists of every length (0 included), cut into chunks of
    a few rows: the look-up tables, the binary search and the pairs left give the codes of a
    sort of the distinct (topic, key) pairs, the seed's first, each pair at a row holding it."""
    rng = np.random.default_rng(seed)
    high = rng.integers(0, 2**top_bits, pool, dtype=np.uint64) << np.uint64(64 - max(top_bits, 1)) if top_bits \
        else np.zeros(pool, dtype=np.uint64)
    keys = high | rng.integers(0, 2**20, pool, dtype=np.uint64)
    topic = rng.integers(0, 3, lists)
    count = rng.integers(0, 9, lists)
    key = keys[rng.integers(0, pool, int(count.sum()))]
    starts = np.cumsum(count) - count
    in_seed = rng.random(lists) < 0.5
    seed_rows = sampling.list_ranges(starts[in_seed], count[in_seed])
    row_topic = np.repeat(topic, count)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sampling, "ROW_CHUNK", 5)
        code, first = sampling._document_codes(topic, count, key, seed_rows, key.__getitem__)
    pairs = list(zip(row_topic.tolist(), key.tolist()))
    seeded = sorted({pairs[i] for i in seed_rows.tolist()})
    order = seeded + sorted(set(pairs) - set(seeded))
    assert code.tolist() == [order.index(p) for p in pairs]
    assert [pairs[i] for i in first.tolist()] == order
