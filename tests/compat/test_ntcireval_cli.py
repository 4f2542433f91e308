"""``cranfield eval --compat ntcireval``: NTCIREVAL ``compute``'s measures, names and value
lines, checked against NTCIREVAL's published output for its sample and against pyNTCIREVAL's
own command (whose 0.0.3 release prints class names, e.g. ``QMeasure``, mapped here) on random
topics."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from conftest import DATA

click_testing = pytest.importorskip("click.testing")
ntcir_main = pytest.importorskip("pyNTCIREVAL.main")


# NTCIREVAL's output for its sample, gains 1:2:3 (pyNTCIREVAL tests/dat/res_test_compute.txt, the
# value lines; printed with an empty --out, hence the leading space)
PUBLISHED = """\
 RR=                  0.5000
 O-measure=           0.5000
 P-measure=           0.5000
 P-plus=              0.5000
 AP=                  0.1000
 Q-measure=           0.0967
 NCUgu,P=             0.1316
 NCUgu,BR=            0.1281
 NCUrb,P=             0.1215
 NCUrb,BR=            0.1175
 RBP=                 0.0761
 ERR=                 0.4062
 AP@1000=             0.1000
 Q@1000=              0.0967
 nDCG@1000=           0.3380
 MSnDCG@1000=         0.2760
 P@1000=              0.0020
 nERR@1000=           0.4710
 Hit@1000=            1.0000
""".splitlines()
PY_NAMES = {"OMeasure": "O-measure", "PMeasure": "P-measure", "PPlusMeasure": "P-plus", "QMeasure": "Q-measure",
            "NCUguP": "NCUgu,P", "NCUguBR": "NCUgu,BR", "NCUrbP": "NCUrb,P", "NCUrbBR": "NCUrb,BR",
            "QMeasure@": "Q@", "Precision@": "P@"}


def ntcireval_compute(tmp_path, topic: str, labels: dict[str, int], ranked: list[str], gains: str,
                      cutoffs: str = "") -> list[str]:
    """The value lines of ``pyNTCIREVAL label | pyNTCIREVAL compute --out <topic>``."""
    rel = tmp_path / f"{topic}.rel"
    rel.write_text("".join(f"{d} L{v}\n" for d, v in labels.items()))
    res = tmp_path / f"{topic}.res"
    res.write_text("".join(f"{d}\n" for d in ranked))
    runner = click_testing.CliRunner()
    labelled = runner.invoke(ntcir_main.cli, ["label", "-r", str(rel), str(res)])
    assert labelled.exit_code == 0, labelled.output
    lab = tmp_path / f"{topic}.lab"
    lab.write_text(labelled.output)
    args = (["compute", "-r", str(rel), "-g", gains, "--out", topic, str(lab)]
            + (["--cutoffs", cutoffs] if cutoffs else []))
    out = runner.invoke(ntcir_main.cli, args)
    assert out.exit_code == 0, out.output
    lines = []
    for line in out.output.splitlines():
        if line and "#" not in line:
            name, value = line[len(topic) + 1:].split("=")
            base, at, cut = name.strip().partition("@")
            name = PY_NAMES.get(base + at, base + at) + cut if at else PY_NAMES.get(base, base)
            lines.append(f"{topic} " + f"{name}=".ljust(21) + value.strip())
    return lines


def trec_files(write, topics: dict[str, tuple[dict[str, int], list[str]]]):
    qrels = "".join(f"{t} 0 {d} {v}\n" for t, (labels, _) in topics.items() for d, v in labels.items())
    run = "".join(f"{t} Q0 {d} {k + 1} {1000 - k} r\n"
                  for t, (_, ranked) in topics.items() for k, d in enumerate(ranked))
    return write("qrels.txt", qrels), write("run.txt", run)


def cranfield_lines(capsys, *args) -> list[str]:
    from cranfield.cli.main import main

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["eval", "--compat", "ntcireval", *map(str, args)]) == 0
    return capsys.readouterr().out.splitlines()


def test_sample_matches_published_output(write, capsys):
    rel = (DATA / "ntcireval" / "sample.rel").read_text().split()
    labels = {rel[k]: int(rel[k + 1][1:]) for k in range(0, len(rel), 2)}
    ranked = (DATA / "ntcireval" / "sample.res").read_text().split()
    got = cranfield_lines(capsys, "-g", "1:2:3", *trec_files(write, {"sample": (labels, ranked)}))
    assert [line[len("sample"):] for line in got[:19]] == PUBLISHED


@pytest.mark.parametrize("cutoffs", ["", "2", "5,20"])
def test_sample_matches_ntcireval(tmp_path, write, capsys, cutoffs):
    rel = (DATA / "ntcireval" / "sample.rel").read_text().split()
    labels = {rel[k]: int(rel[k + 1][1:]) for k in range(0, len(rel), 2)}
    ranked = (DATA / "ntcireval" / "sample.res").read_text().split()
    expected = ntcireval_compute(tmp_path, "sample", labels, ranked, "1:2:3", cutoffs)
    qrels, run = trec_files(write, {"sample": (labels, ranked)})
    got = cranfield_lines(capsys, "-g", "1:2:3", *(["--cutoffs", cutoffs] if cutoffs else []), qrels, run)
    assert got[: len(expected)] == expected
    assert got[len(expected)].startswith("all RR=") and len(got) == 2 * len(expected)


@pytest.mark.parametrize("seed", range(12))
def test_random_topics_match_ntcireval(tmp_path, write, capsys, seed):
    rng = np.random.default_rng(seed)
    gains = ":".join(str(g) for g in sorted(rng.choice([1, 2, 3, 5, 7], size=3, replace=False)))
    topics = {}
    for t in range(3):
        docs = [f"d{t}-{k}" for k in range(int(rng.integers(2, 20)))]
        labels = {d: int(rng.integers(0, 4)) for d in docs}
        labels[docs[0]] = 3
        pool = docs + [f"u{k}" for k in range(4)]
        ranked = [str(d) for d in rng.choice(pool, size=int(rng.integers(1, len(pool) + 1)), replace=False)]
        if docs[0] not in ranked:  # pyNTCIREVAL 0.0.3 crashes on a list without relevant documents
            ranked.insert(int(rng.integers(0, len(ranked) + 1)), docs[0])
        topics[f"T{t}"] = (labels, ranked)
    expected = [line for t, (labels, ranked) in topics.items()
                for line in ntcireval_compute(tmp_path, t, labels, ranked, gains, "3,10")]
    qrels, run = trec_files(write, topics)
    got = cranfield_lines(capsys, "-g", gains, "--cutoffs", "3,10", qrels, run)
    assert got[: len(expected)] == expected


@pytest.mark.parametrize("args, message", [
    ([], "needs the gain vector"), (["-g", "1:2:3", "--cutoffs", "10,x"], "--cutoffs must be ranks"),
    (["-g", "1:2:3", "--cutoffs", "0"], "of 1 or more"),
])
def test_errors(capsys, write, args, message):
    from cranfield.cli.main import main

    qrels, run = trec_files(write, {"1": ({"a": 1}, ["a"])})
    assert main(["eval", "--compat", "ntcireval", *args, str(qrels), str(run)]) == 2
    assert message in capsys.readouterr().err


def test_gains_option_sets_every_gains_parameter(capsys, write):
    from cranfield.cli.main import main

    qrels, run = trec_files(write, {"1": ({"a": 1, "b": 3, "c": 2}, ["a", "c", "x", "b"])})
    assert main(["eval", str(qrels), str(run), "-g", "1:2:3", "-m", "Q", "-m", "nDCG@3", "-m", "Q(gains=1:2:3)",
                 "-m", "nDCG(gains=1:2:3)@3", "-m", "AP", "--format", "json"]) == 0
    import json

    values = {r["measure"]: r["value"] for r in json.loads(capsys.readouterr().out)}
    assert values["Q"] == values["Q(gains=1:2:3)"] and values["nDCG@3"] == values["nDCG(gains=1:2:3)@3"]
