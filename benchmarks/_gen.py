"""Seeded synthetic TREC qrels and run files for the benchmarks (shared by bench_*.py).

Documents look like ClueWeb12 docnos (``clueweb12-0000wb-00-12345``). For every topic there
is a candidate pool of documents; the first ~``judged`` of them are judged (graded 0/1/2) and
every run retrieves its top ``docs`` candidates by a noisy utility that favours relevant and
judged documents, so the measures take realistic, non-trivial values. Scores are rounded to
four decimals, which leaves some tied scores (~10% of lines); tied lines are written in random
order, so the tools' own tie-breaking rule matters.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

SEGMENTS = 2000 * 2 * 100 * 100_000  # segment × {wb, tw} × file × document


def docnos(ids: np.ndarray) -> list[str]:
    """ClueWeb12-style docnos for integer ids in ``[0, SEGMENTS)``."""
    doc = ids % 100_000
    rest = ids // 100_000
    file = rest % 100
    rest //= 100
    kind = rest % 2
    seg = rest // 2
    return [
        f"clueweb12-{s:04d}{'tw' if k else 'wb'}-{f:02d}-{d:05d}"
        for s, k, f, d in zip(seg.tolist(), kind.tolist(), file.tolist(), doc.tolist())
    ]


def unique_ids(rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    """A (rows, cols) array of random ids, distinct within each row."""
    ids = rng.integers(0, SEGMENTS, size=(rows, cols), dtype=np.int64)
    for r in range(rows):
        row = ids[r]
        while np.unique(row).size < cols:  # rare: ~cols² / 2·SEGMENTS collisions per row
            _, first = np.unique(row, return_index=True)
            dup = np.setdiff1d(np.arange(cols), first)
            row[dup] = rng.integers(0, SEGMENTS, size=dup.size)
    return ids


def write_lines(path: Path, lines: list[str]) -> None:
    with open(path, "w", encoding="ascii", newline="\n") as f:
        f.write("\n".join(lines))
        f.write("\n")


def make_collection(
    out: Path, *, topics: int, runs: int, docs: int, judged: int, seed: int = 0,
) -> tuple[Path, list[Path]]:
    """Write ``qrels.txt`` and ``run{NN}.txt`` into ``out``; skip if already complete."""
    out.mkdir(parents=True, exist_ok=True)
    qrels_path = out / "qrels.txt"
    run_paths = [out / f"run{s:02d}.txt" for s in range(runs)]
    stamp = out / "COMPLETE"
    if stamp.exists() and qrels_path.exists() and all(p.exists() for p in run_paths):
        return qrels_path, run_paths

    rng = np.random.default_rng(seed)
    pool = max(5 * docs, 2 * judged, docs + judged)
    qids = [str(201 + t) for t in range(topics)]
    ids = unique_ids(rng, topics, pool)
    names = np.array(docnos(ids.ravel()), dtype=object).reshape(topics, pool)

    # judgments: a random ~judged-sized prefix of each (randomly ordered) pool
    n_judged = rng.integers(int(0.7 * judged), int(1.3 * judged) + 1, size=topics)
    grade = rng.choice(np.array([0, 1, 2]), p=[0.7, 0.2, 0.1], size=(topics, pool))
    is_judged = np.arange(pool)[None, :] < n_judged[:, None]
    grade = np.where(is_judged, grade, 0)
    lines = []
    for t in range(topics):
        if not (grade[t, : n_judged[t]] > 0).any():
            grade[t, 0] = 1
        lines.extend(f"{qids[t]} 0 {d} {g}" for d, g in zip(names[t, : n_judged[t]], grade[t, : n_judged[t]].tolist()))
    write_lines(qrels_path, lines)

    for s, path in enumerate(run_paths):
        quality = rng.uniform(0.3, 1.5)
        utility = quality * grade + 1.0 * is_judged + rng.normal(size=(topics, pool))
        top = np.argpartition(-utility, docs - 1, axis=1)[:, :docs]
        score = np.round(np.take_along_axis(utility, top, axis=1) + 10.0, 4)
        # score descending, ties in random order (the file's rank column follows this order)
        order = np.lexsort((rng.random(score.shape), -score), axis=1)
        top = np.take_along_axis(top, order, axis=1)
        score = np.take_along_axis(score, order, axis=1)
        tag = f"run{s:02d}"
        lines = []
        for t in range(topics):
            q = qids[t]
            lines.extend(
                f"{q} Q0 {d} {r} {sc:.4f} {tag}"
                for r, (d, sc) in enumerate(zip(names[t, top[t]], score[t].tolist()), start=1)
            )
        write_lines(path, lines)
    stamp.write_text("ok\n")
    return qrels_path, run_paths


def make_big_run(path: Path, *, topics: int, docs: int, seed: int = 0) -> Path:
    """One large run file of ``topics × docs`` lines (skipped when present with that size)."""
    stamp = path.with_suffix(path.suffix + ".complete")
    want = f"{topics} {docs} {seed}\n"
    if path.exists() and stamp.exists() and stamp.read_text() == want:
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    chunk = max(1, 200_000 // docs)
    with open(path, "w", encoding="ascii", newline="\n") as f:
        for a in range(0, topics, chunk):
            b = min(a + chunk, topics)
            ids = unique_ids(rng, b - a, docs)
            names = docnos(ids.ravel())
            score = np.round(np.sort(rng.normal(size=(b - a, docs)), axis=1)[:, ::-1] + 10.0, 4).ravel().tolist()
            lines = []
            k = 0
            for t in range(a, b):
                q = str(100_000 + t)
                for r in range(1, docs + 1):
                    lines.append(f"{q} Q0 {names[k]} {r} {score[k]:.4f} bigrun")
                    k += 1
            f.write("\n".join(lines))
            f.write("\n")
    stamp.write_text(want)
    return path
