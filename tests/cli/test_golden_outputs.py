"""Every command prints the bytes it printed before the output registry (issue: results as data,
one output registry): golden outputs of a spread of commands and formats on bundled data, made
with the code before the change and compared byte for byte.

Regenerate (only for a deliberate change of an output, reviewed in the diff) with
``CRANFIELD_UPDATE_GOLDEN=1 python -m pytest tests/cli/test_golden_outputs.py``.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
D = ROOT / "tests" / "data"
S = ROOT / "src" / "cranfield" / "data"
GOLDEN = D / "golden"

R03 = f"{D}/robust03/qrels.txt.gz {D}/robust03/input.NLPR03vb10.gz {D}/robust03/input.humR03dc.gz " \
      f"{D}/robust03/input.pircRBa1.gz {D}/robust03/input.uic0301.gz"
RUNS03 = " ".join(R03.split()[1:])
QRELS03 = R03.split()[0]
W12 = f"{S}/web2012.diversity.qrels.gz {S}/web2012.ql.run.gz {S}/web2012.rm.run.gz"
W12_RUNS = f"{S}/web2012.ql.run.gz {S}/web2012.rm.run.gz"
W09 = f"{D}/web2009/qrels.diversity.gz"

# name -> the command line after `cranfield`
CASES: dict[str, str] = {
    **{f"eval-{f}": f"eval {R03} -m AP -m nDCG@10 -m P@10 --format {f}" for f in ("table", "csv", "json", "trec")},
    "eval-per-topic-csv": f"eval {R03} -m AP -m RBP -q --format csv",
    "eval-risk-table": f"eval {R03} -m AP -m nDCG@10 -q --baseline {D}/robust03/input.uic0301.gz",
    "eval-risk-json": f"eval {R03} -m AP --baseline {D}/robust03/input.uic0301.gz --format json",
    "eval-risk-trec": f"eval {R03} -m AP --baseline {D}/robust03/input.uic0301.gz --format trec",
    "eval-compat-trec_eval": f"eval --compat trec_eval -q {QRELS03} {D}/robust03/input.pircRBa1.gz",
    "eval-compat-trec_eval10": f"eval --compat trec_eval10 -m rbp -m unj {QRELS03} {D}/robust03/input.pircRBa1.gz",
    "eval-div-table": f"eval {W12} -m alpha-nDCG@20 -m ERR-IA@20 -m I-rec@20",
    "eval-div-json-per-intent": f"eval {W12} -m nDCG_IA@10 --per-intent --format json",
    "eval-compat-ndeval": f"eval --compat ndeval {W12}",
    "eval-compat-gdeval": f"eval --compat gdeval {S}/web2012.adhoc.qrels.gz {S}/web2012.ql.run.gz",
    "eval-compat-ntcireval": f"eval --compat ntcireval -g 1:2:3 {W12}",
    "eval-dd-per-iteration": f"eval --dd-truth {D}/trec-dd/trecdd2016-truth.xml.gz "
                             f"{D}/trec-dd/trecdd2016-sample-run.txt -m CT@10 --per-iteration --format json",
    "measures-json": "measures --format json",
    **{f"compare-{f}": f"compare {R03} -m AP -m P@10 --format {f}"
       for f in ("table", "csv", "json", "latex", "markdown")},
    **{f"discpower-{f}": f"discpower {R03} -m AP -m P@10 --test t --format {f}" for f in ("table", "csv", "json")},
    **{f"correlate-{f}": f"correlate {R03} -m AP -m P@10 -m nDCG@10 --format {f}" for f in ("table", "json")},
    "intuitiveness-json": f"intuitiveness {W12} -m alpha-nDCG@10 -m ERR-IA@10 --gold I-rec@10 --format json",
    **{f"axioms-{f}": f"axioms -m AP -m RBU --depth 4 --aspects 2 --format {f}" for f in ("table", "json")},
    **{f"collection-{f}": f"collection {W09} --format {f}" for f in ("table", "json")},
    "collection-runs-csv": f"collection {W12} -m ERR-IA@20 --format csv",
    **{f"dss-{f}": f"dss {W09} -m alpha-nDCG,ERR-IA --k 5,10 --n 50 --format {f}" for f in ("table", "csv", "json")},
    **{f"truncation-{f}": f"truncation {R03} -m RBU -m OIE --format {f}" for f in ("table", "csv", "json")},
    **{f"topicsize-{f}": f"topicsize {QRELS03} --runs {RUNS03} -m AP --min-delta 0.1 --format {f}"
       for f in ("table", "csv", "json")},
    **{f"similarity-{f}": f"similarity {RUNS03} -m 'RBO(p=0.9)' -m KTU@10 -m Jaccard@10 --format {f}"
       for f in ("table", "csv", "json")},
    **{f"repro-{f}": f"repro --qrels {QRELS03} --orig-baseline {D}/robust03/input.uic0301.gz "
                     f"--orig-advanced {D}/robust03/input.pircRBa1.gz --rep-baseline {D}/robust03/input.humR03dc.gz "
                     f"--rep-advanced {D}/robust03/input.NLPR03vb10.gz -m AP -m P@10 --format {f}"
       for f in ("table", "csv", "json")},
    **{f"judges-{f}": f"judges {S}/web2012.adhoc.qrels.gz second={D}/web2012/qrels.adhoc.txt "
                      f"--runs {W12_RUNS} -m AP --ci-B 50 --format {f}"
       for f in ("table", "csv", "json")},
    **{f"nuggets-{f}": f"nuggets {S}/rag.nuggets.jsonl -m V_strict -m A --format {f}"
       for f in ("table", "csv", "json")},
}


def _run(line: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONHASHSEED": "0", "COLUMNS": "100"}
    return subprocess.run([sys.executable, "-m", "cranfield.cli.main", *shlex.split(line)], capture_output=True,
                          env=env, cwd=ROOT, timeout=600)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_output(name: str) -> None:
    done = _run(CASES[name])
    assert done.returncode == 0, done.stderr.decode()
    out = done.stdout.replace(str(ROOT).encode(), b"ROOT")
    path = GOLDEN / f"{name}.out.gz"
    if os.environ.get("CRANFIELD_UPDATE_GOLDEN"):
        path.write_bytes(gzip.compress(out, mtime=0))
    expected = gzip.decompress(path.read_bytes())
    assert out == expected, (f"{name}: output changed (sha256 {hashlib.sha256(out).hexdigest()[:12]} vs "
                             f"{hashlib.sha256(expected).hexdigest()[:12]})")
