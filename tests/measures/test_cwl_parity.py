"""Agreement with cwl_eval 1.0 (Azzopardi, Thomas & Moffat, SIGIR 2019), run as shipped through its
own qrels reader, ranking maker and metric classes, on the Robust03 runs and on random cases:
every C/W/L measure and each of cwl_eval's five outputs (EU, ETU, EC, ETC, ED) per topic, to
1e-9; and INST and INSQ computed by hand from their definitions (Moffat, Bailey, Scholer &
Thomas, ADCS 2015; Moffat, Scholer & Thomas, ADCS 2012) on a three-document ranking."""

from __future__ import annotations

import gzip
import math
import subprocess
from pathlib import Path

import numpy as np
import pytest

import cranfield
from conftest import DATA
from cranfield import Batch, Topics, parse_measure

pytest.importorskip("cwl")
from cwl.ruler.measures.cwl_bpm import BPMCWLMetric, BPMDCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_dcg import NDCGCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_insq import INSQCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_inst import INSTCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_nerr import (  # noqa: E402
    NERReq8CWLMetric,
    NERReq9CWLMetric,
    NERReq10CWLMetric,
    NERReq11CWLMetric,
)
from cwl.ruler.measures.cwl_precision import PrecisionCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_rbp import RBPCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_tbg import TBGCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_umeasure import UMeasureCWLMetric  # noqa: E402
from cwl.ruler.ranking import Ranking, RankingMaker  # noqa: E402
from cwl.seeker.trec_qrel_handler import TrecQrelHandler  # noqa: E402

OUTPUTS = ("eu", "etu", "ec", "etc", "ed")  # the order of cwl_eval's get_scores (and its columns)
ROBUST = DATA / "robust03"

# cwl_eval's metric (a factory, fresh per use) beside our name of the same measure
PAIRS = [
    *[(lambda k=k: PrecisionCWLMetric(k), f"CWL-P@{k}") for k in (1, 2, 3, 4, 5, 10)],
    *[(lambda p=p: RBPCWLMetric(p), f"CWL-RBP(p={p})") for p in (0.2, 0.4, 0.8)],
    *[(lambda k=k: NDCGCWLMetric(k), f"SDCG@{k}") for k in (5, 10)],
    *[(lambda t=t: INSTCWLMetric(t), f"INST(T={t})") for t in (1.0, 2.0, 3.0)],
    *[(lambda t=t: INSQCWLMetric(t), f"INSQ(T={t})") for t in (1.0, 2.5)],
    (lambda: BPMCWLMetric(1.0, 10), "BPM"),
    (lambda: BPMCWLMetric(2.0, 20), "BPM(T=2,K=20)"),
    (lambda: BPMDCWLMetric(1.0, 10, 1.0, 1.0, 0.5), "BPM-D"),
    (lambda: BPMDCWLMetric(2.0, 20, 0.5, 3.0, 0.25), "BPM-D(T=2,K=20,hb=0.5,gain_med=0.25)"),
    *[(lambda k=k: NERReq8CWLMetric(k), f"NERR8@{k}") for k in (1, 5, 10)],
    *[(lambda k=k: NERReq9CWLMetric(k), f"NERR9@{k}") for k in (1, 5, 10)],
    *[(lambda p=p: NERReq10CWLMetric(p), f"NERR10(phi={p})") for p in (0.5, 0.9)],
    *[(lambda t=t: NERReq11CWLMetric(t), f"NERR11(T={t})") for t in (1.0, 2.5)],
    *[(lambda h=h: TBGCWLMetric(h), f"TBG(halflife={h})") for h in (224, 10, 1.5)],
    *[(lambda x=x: UMeasureCWLMetric(x), f"U-measure(L={x})") for x in (1000, 50, 3)],
]
GAINS_AT_MOST_1 = ("INST", "NERR")  # cwl_eval refuses gains above 1 for these
NOT_INST = [pair for pair in PAIRS if not pair[1].startswith(GAINS_AT_MOST_1)]


def with_params(name: str, extra: str) -> str:
    """``name`` with further key=value parameters, before its cutoff."""
    if not extra:
        return name
    base, _, cut = name.partition("@")
    base = f"{base[:-1]},{extra})" if base.endswith(")") else f"{base}({extra})"
    return base + (f"@{cut}" if cut else "")


def reference(ranking: Ranking, pairs: list) -> dict[str, list[float]]:
    """cwl_eval's five values of each metric for one ranking."""
    out = {}
    for make, name in pairs:
        metric = make()
        metric.measure(ranking)
        out[name] = [float(x) for x in metric.get_scores()]
    return out


def cwl_eval_on_files(qrels: Path, run: Path, pairs: list, max_gain: float = 1.0) -> dict[tuple[str, str], list[float]]:
    """cwl_eval's reading of the files (its main loop, without the 4-decimal printing):
    {(topic, our measure name): [EU, ETU, EC, ETC, ED]}."""
    handler = TrecQrelHandler(str(qrels))
    handler.validate_gains(min_gain=0.0, max_gain=max_gain)
    out: dict[tuple[str, str], list[float]] = {}
    maker, current = None, None

    def flush() -> None:
        if maker is not None:
            for name, values in reference(maker.get_ranking(), pairs).items():
                out[current, name] = values

    with gzip.open(run, "rt") if run.suffix == ".gz" else open(run) as lines:
        for line in lines:
            topic, element_type, doc, *_ = line.split()
            if topic != current:
                flush()
                current = topic
                maker = RankingMaker(topic, handler, None, max_gain=max_gain, max_n=1000)
            maker.add(doc, element_type)
    flush()
    return out


def write_gain_qrels(path: Path, gain_of: dict[int, float]) -> Path:
    """Robust03's qrels with each label replaced by its gain (cwl_eval reads gains from the qrels)."""
    with gzip.open(ROBUST / "qrels.txt.gz", "rt") as src, open(path, "w") as dst:
        for line in src:
            topic, it, doc, label = line.split()
            dst.write(f"{topic} {it} {doc} {gain_of[int(label)]!r}\n")
    return path


def ours_on_files(run: Path, pairs: list, extra: str = "") -> dict[tuple[str, str], list[float]]:
    names = {str(parse_measure(with_params(name, f"out={o}" + (f",{extra}" if extra else "")))): (name, k)
             for _, name in pairs for k, o in enumerate(OUTPUTS)}
    df = cranfield.evaluate(ROBUST / "qrels.txt.gz", run, list(names), order="file")
    df = df[df.topic != "all"]
    out: dict[tuple[str, str], list[float]] = {}
    for topic, measure, value in zip(df.topic, df.measure, df.value, strict=True):
        name, k = names[measure]
        out.setdefault((topic, name), [math.nan] * 5)[k] = value
    return out


def assert_agree(ours: dict, theirs: dict) -> int:
    assert set(ours) == set(theirs)
    worst = 0.0
    for key, values in theirs.items():
        diff = np.abs(np.array(ours[key]) - np.array(values))
        worst = max(worst, float(diff.max()))
        assert diff.max() <= 1e-9, (key, ours[key], values)
    return len(theirs) * 5


# --------------------------------------------------------------------------- Robust03
RUNS = sorted(ROBUST.glob("input.*.gz"))


@pytest.mark.slow
@pytest.mark.parametrize("run", RUNS, ids=lambda p: p.name)
def test_robust03_default_gains(run, tmp_path):
    """Labels 0/1/2 with the default max_gain = 1: label 2 counts as gain 1, which is cwl_eval on
    the qrels with every gain clipped to 1 (it refuses a gain above --max_gain)."""
    qrels = write_gain_qrels(tmp_path / "qrels", {0: 0.0, 1: 1.0, 2: 1.0})
    assert assert_agree(ours_on_files(run, PAIRS), cwl_eval_on_files(qrels, run, PAIRS)) == 100 * len(PAIRS) * 5


def test_robust03_gain_map(tmp_path):
    """Graded gains 0, 0.5, 1 given as a gain map, and the same gains in cwl_eval's qrels."""
    run = ROBUST / "input.humR03dc.gz"
    qrels = write_gain_qrels(tmp_path / "qrels", {0: 0.0, 1: 0.5, 2: 1.0})
    assert_agree(ours_on_files(run, PAIRS, "gains=0:0,1:0.5,2:1"), cwl_eval_on_files(qrels, run, PAIRS))


def test_robust03_gains_above_one(tmp_path):
    """The raw labels as gains with max_gain = 2 (cwl_eval --max_gain 2; INST refuses gains above 1)."""
    run = ROBUST / "input.humR03dc.gz"
    qrels = write_gain_qrels(tmp_path / "qrels", {0: 0.0, 1: 1.0, 2: 2.0})
    assert_agree(ours_on_files(run, NOT_INST, "max_gain=2"), cwl_eval_on_files(qrels, run, NOT_INST, max_gain=2.0))


# --------------------------------------------------------------------------- random cases
GAIN_MAP = {1: 0.25, 2: 0.6, 3: 1.0}


def random_case(rng: np.random.Generator) -> tuple[list[list[int]], list[list[bool]], int]:
    """Rankings of labels 0..3 (gains GAIN_MAP), some unjudged, of random lengths, and a depth."""
    depth = int(rng.integers(1, 40))
    rankings, judged = [], []
    for _ in range(int(rng.integers(1, 5))):
        n = int(rng.integers(0, 50))
        rankings.append(rng.choice([0, 0, 1, 2, 3], size=n).tolist())
        judged.append((rng.random(n) < 0.8).tolist())
    return rankings, judged, depth


@pytest.mark.parametrize("seed", range(40))
def test_random_rankings(seed):
    rng = np.random.default_rng(seed)
    rankings, judged, depth = random_case(rng)
    d = max(len(r) for r in rankings)
    labels = np.zeros((len(rankings), 1, d), dtype=np.int64)
    flags = np.zeros((len(rankings), 1, d), dtype=bool)
    for s, (r, j) in enumerate(zip(rankings, judged, strict=True)):
        labels[s, 0, : len(r)] = np.where(j, r, 0)
        flags[s, 0, : len(r)] = j
    batch = Batch.from_labels(labels, Topics.from_ideal(np.array([[3, 2, 1]])),
                              length=np.array([[len(r)] for r in rankings]), judged=flags)
    gains = "gains=" + ",".join(f"{k}:{v}" for k, v in GAIN_MAP.items())
    # cutoffs up to the depth (cwl_eval fails on P@k for k > depth + 1) and SDCG's past it
    pairs = [(make, name) for make, name in PAIRS if not name.startswith("CWL-P@") or int(name[6:]) <= depth + 1]
    if depth == 1:  # cwl_eval's U-measure weights are 0/0 (NaN) at depth 1; test_u_measure_at_depth_one
        pairs = [(make, name) for make, name in pairs if not name.startswith("U-measure")]
    pairs += [(lambda: PrecisionCWLMetric(depth), f"CWL-P@{depth}"),
              (lambda: NDCGCWLMetric(depth + 3), f"SDCG@{depth + 3}")]
    for s, (r, j) in enumerate(zip(rankings, judged, strict=True)):
        g = [GAIN_MAP.get(x, 0.0) if ok else math.nan for x, ok in zip(r, j, strict=True)]
        theirs = reference(Ranking("t", np.array(g, dtype=float), np.full(len(g), np.nan), max_n=depth), pairs)
        for name, values in theirs.items():
            for o, expected in zip(OUTPUTS, values, strict=True):
                m = parse_measure(with_params(name, f"{gains},depth={depth},out={o}"))
                assert m(batch)[s, 0] == pytest.approx(expected, abs=1e-9), (name, o, r, j, depth)


# --------------------------------------------------------------------------- by hand
def one_ranking(labels: list[int]) -> Batch:
    return Batch.from_labels(np.array([[labels]]), Topics.from_ideal(np.array([[1, 1]])))


def test_inst_by_hand():
    """Gains 1, 0, 1 read to depth 3, T = 1: i + T + T_i = 2, 3, 3, so C = 1/4, 4/9, 4/9;
    V = 1, 1/4, 1/9; ED = 49/36, W = 36/49, 9/49, 4/49; L = 3/4, 5/36, 5/81."""
    batch = one_ranking([1, 0, 1])
    value = {o: parse_measure(f"INST(T=1,depth=3,out={o})")(batch)[0, 0] for o in OUTPUTS}
    assert value["eu"] == pytest.approx(40 / 49, abs=1e-12)
    assert value["ed"] == pytest.approx(49 / 36, abs=1e-12)
    assert value["ec"] == pytest.approx(1.0, abs=1e-12)
    assert value["etu"] == pytest.approx(3 / 4 * 1 + 5 / 36 * 1 + 5 / 81 * 2, abs=1e-12)
    assert value["etc"] == pytest.approx(3 / 4 * 1 + 5 / 36 * 2 + 5 / 81 * 3, abs=1e-12)


def test_insq_by_hand():
    """INSQ, T = 1: C(i) = ((i + 1)/(i + 2))² = 4/9, 9/16, 16/25, so V = 1, 4/9, 1/4 and
    W = 36/61, 16/61, 9/61: EU = (36 + 9)/61 for gains 1, 0, 1."""
    batch = one_ranking([1, 0, 1])
    assert parse_measure("INSQ(depth=3)")(batch)[0, 0] == pytest.approx(45 / 61, abs=1e-12)
    assert parse_measure("INSQ(depth=3,out=ed)")(batch)[0, 0] == pytest.approx(61 / 36, abs=1e-12)
    stops = [5 / 9, 4 / 9 * 7 / 16, 1 / 4 * 9 / 25]
    assert parse_measure("INSQ(depth=3,out=etu)")(batch)[0, 0] == pytest.approx(
        stops[0] + stops[1] + 2 * stops[2], abs=1e-12)


def test_inst_adapts_where_insq_does_not():
    """INST's user stops sooner after a relevant first document (T_1 = T − 1), INSQ's does not notice."""
    hit, miss = one_ranking([1, 0, 0]), one_ranking([0, 0, 0])
    inst, insq = parse_measure("INST(out=ed)"), parse_measure("INSQ(out=ed)")
    assert inst(hit)[0, 0] < inst(miss)[0, 0]
    assert insq(hit)[0, 0] == insq(miss)[0, 0]


def test_precision_past_the_depth_reads_the_depth():
    """cwl_eval cannot compute P@k for k > depth + 1 (its vectors differ in length); here it is
    P@(depth + 1): the user reads on past the depth, so EU and ED are P@depth's, while ETU and ETC,
    which count only stops within the depth, are 0 (as cwl_eval has them for P@(depth + 1))."""
    batch = one_ranking([1, 0, 1, 1])
    for o in OUTPUTS:
        deep = parse_measure(f"CWL-P(depth=3,out={o})@50")(batch)
        assert np.array_equal(deep, parse_measure(f"CWL-P(depth=3,out={o})@4")(batch)), o
        if o in ("eu", "ec", "ed"):
            assert np.array_equal(deep, parse_measure(f"CWL-P(depth=3,out={o})@3")(batch)), o
        else:
            assert deep[0, 0] == 0


def test_names_and_defaults():
    assert str(parse_measure("NDCG-k@5")) == "SDCG@5"
    assert str(parse_measure("BPM-Static(T=1,K=10)")) == "BPM"
    assert str(parse_measure("BPM-Dynamic(hb=1)")) == "BPM-D"
    assert str(parse_measure("INST(T=3,out=etu)")) == "INST(T=3,out=etu)"
    with pytest.raises(cranfield.errors.MeasureError, match=r"'T' parameter of INST must be a float in the range"):
        parse_measure("INST(T=0.25)")


# --------------------------------------------------------------------------- the command line
def test_cwl_eval_command_line_default_metrics(tmp_path):
    """``cwl-eval -n`` on ir_measures' C/W/L sample (run in tmp_path: it writes cwl.log there):
    its column names, and every value it prints (4 decimals) for the metrics of its default list
    that are C/W/L measures here (its RR and AP are not)."""
    tiny = DATA / "tiny"
    qrels, run = tiny / "ir_measures-cwl.qrels", tiny / "ir_measures-cwl.run"
    printed = subprocess.run(["cwl-eval", "-n", str(qrels), str(run)], cwd=tmp_path, capture_output=True,
                             text=True, check=True).stdout.splitlines()
    assert printed[0].split("\t") == ["Topic", "Metric", "EU", "ETU", "EC", "ETC", "ED"]
    rows = [line.split("\t") for line in printed[1:]]
    translate = {"P": "CWL-P@{}", "RBP": "CWL-RBP(p={})", "NDCG-k": "NDCG-k@{}", "INST-T": "INST(T={})"}
    wanted: dict[str, str] = {}
    for _, metric, *_ in rows:
        head, _, value = metric.replace("=", "@").partition("@")
        if head in translate:
            wanted[metric] = translate[head].format(value)
    assert len(wanted) == 14  # P@1..5, P@10, RBP@0.2/0.4/0.8, NDCG-k@5/10, INST-T=1/2/3
    names = {f"{name}|{o}": with_params(name, f"out={o}") for name in wanted.values() for o in OUTPUTS}
    df = cranfield.evaluate(qrels, run, list(names.values()), order="file")
    ours = {(t, m): v for t, m, v in zip(df.topic, df.measure, df.value, strict=True)}
    checked = 0
    for topic, metric, *values in rows:
        if metric not in wanted:
            continue
        for o, text in zip(OUTPUTS, values, strict=True):
            value = ours[topic, names[f"{wanted[metric]}|{o}"]]
            assert abs(value - float(text)) <= 5e-5 + 1e-12, (topic, metric, o, value, text)
            checked += 1
    assert checked == 3 * 14 * 5


def test_u_measure_at_depth_one():
    """Read to depth 1, U-measure's one weight is 0 (the last rank read weighs 0), which cwl_eval
    divides by 0 (NaN everywhere); cranfield's reader stops at the one item: EU = its gain, ED = 1."""
    batch = one_ranking([1, 0])
    assert [parse_measure(f"U-measure(depth=1,out={o})")(batch)[0, 0] for o in OUTPUTS] == [1.0, 1.0, 1.0, 1.0, 1.0]


def test_nerr_and_tbg_by_hand():
    """Gains 1/2, 1 (max_rel=2 scales labels 1, 2), depth 3. NERR8@3: C = 1/2, 0, 0 (the second
    item ends the search), V = 1, 1/2, 0, W = 2/3, 1/3, 0: EU = 1/3 + 1/3 = 2/3, ETU =
    (1/2)(1/2) + (1/2)(3/2) = 1. TBG with H = 1: W ∝ 1, 1/2, 1/4, so W = 4/7, 2/7, 1/7 and EU =
    2/7 + 2/7 = 4/7."""
    batch = one_ranking([1, 2, 0])
    nerr = {o: parse_measure(f"NERR8(max_rel=2,depth=3,out={o})@3")(batch)[0, 0] for o in OUTPUTS}
    assert nerr["eu"] == pytest.approx(2 / 3) and nerr["etu"] == pytest.approx(1.0) and nerr["ed"] == pytest.approx(1.5)
    assert parse_measure("TBG(halflife=1,max_rel=2,depth=3)")(batch)[0, 0] == pytest.approx(4 / 7)
