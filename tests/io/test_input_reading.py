"""Issues #30 and #31, input reading: one rule per class of input, a family of tests per rule
(docs/conventions.md#input-reading).

1. The layout of a run (TREC or TREC DD) is told from its shape, for every kind of input.
2. A line ends at ``\\n``, ``\\r\\n`` or ``\\r``, in every text reader.
3. Ids are text or integers.
4. Memory is linear in the bytes read: a field over 64 KB or a line over 1 MB is an error.
5. The DD truth XML reader is linear in its text and refuses entity declarations.
6. Standard input, pipes and FIFOs are read once (gzip too).
7. Every message names the file (and line) it is about.
8. An ir_datasets id that cannot be downloaded is one line.
9. A directory is NTCIREVAL's; swapped qrels and run are said so.
10. ``#`` lines are comments (counted in the provenance); ``-`` is standard input, once.
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cranfield import CranfieldError, EvaluationWarning, Evaluator, InputError, evaluate, read_qrels, read_run
from cranfield.cli.main import main
from cranfield.io import _tokens, as_qrels, as_run, read_intents, run_from_frame
from cranfield.io.dd import dd_run_evidence, looks_like_dd_run, read_dd_truth

DATA = Path(__file__).parent.parent / "data" / "trec-dd"
DD_RUN = DATA / "trecdd2016-sample-run.txt"
DD_QRELS = DATA / "trecdd2016-qrels.txt.gz"
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
CLI = [sys.executable, "-c", "import sys; from cranfield.cli.main import main; sys.exit(main(sys.argv[1:]))"]


def cli(*args: object, stdin: bytes | None = None, shell: str | None = None, env: dict | None = None,
        ) -> subprocess.CompletedProcess:
    """``cranfield args`` in a fresh process (``shell``: a bash command line instead, where
    ``$CRANFIELD`` runs cranfield), for inputs only a process has: pipes, /dev/stdin."""
    environment = {**os.environ, **(env or {})}
    if shell is not None:
        environment["PY"], environment["CODE"] = CLI[0], CLI[2]
        command = shell.replace("$CRANFIELD", '"$PY" -c "$CODE"')
        return subprocess.run(["bash", "-c", command], capture_output=True, env=environment, timeout=300)
    return subprocess.run([*CLI, *map(str, args)], input=stdin, capture_output=True, env=environment, timeout=300)


def run_main(capsys, *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def last_column(text: str) -> dict[str, str]:
    """{measure: value} of the one run row of an aligned table."""
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    return dict(zip(lines[0].split()[1:], lines[1].split()[1:]))


def dd_run_with_sixth(field: str) -> bytes:
    """The real 2016 sample run with its sixth column (ignored by the DD jig) replaced."""
    rows = [line.split("\t") for line in DD_RUN.read_text().splitlines()]
    return "".join("\t".join(r[:5] + [field]) + "\n" for r in rows).encode()


# --------------------------------------------------------------------------- 1. DD runs by shape

@pytest.mark.parametrize("sixth", ["x", "NULL", "-", "none", "0", "DD16-1.3:3", ""])
def test_a_dd_run_is_read_as_one_whatever_its_sixth_column(write, capsys, sixth):
    run = write("run.txt", dd_run_with_sixth(sixth))
    assert looks_like_dd_run(run)
    code, out, err = run_main(capsys, "eval", "--dd-truth", DD_QRELS, run, "-m", "CT@2", "-m", "CT@10")
    assert code == 0 and last_column(out) == {"CT@2": "0.2707", "CT@10": "0.1585"}
    # inferred from the shape alone: a warning says so (the jig's own form needs none)
    jig = sixth in ("", "DD16-1.3:3")
    assert ("read as a TREC Dynamic Domain run" in err) is not jig


@pytest.mark.parametrize("how", ["pipe", "dev-stdin", "dash", "fifo"])
def test_a_dd_run_from_a_pipe_fifo_or_stdin_is_read_as_one(tmp_path, how):
    data = dd_run_with_sixth("x")
    args = ["eval", "--dd-truth", DD_QRELS, "-m", "CT@2", "-m", "CT@10"]
    if how == "fifo":
        fifo = tmp_path / "run.fifo"
        os.mkfifo(fifo)
        (tmp_path / "run.txt").write_bytes(data)
        done = cli(shell=f"cat {tmp_path / 'run.txt'} > {fifo} & $CRANFIELD {' '.join(map(str, args))} {fifo}")
    elif how == "pipe":
        (tmp_path / "run.txt").write_bytes(data)
        done = cli(shell=f"$CRANFIELD {' '.join(map(str, args))} <(cat {tmp_path / 'run.txt'})")
    else:
        done = cli(*args, "/dev/stdin" if how == "dev-stdin" else "-", stdin=data)
    assert done.returncode == 0, done.stderr
    assert last_column(done.stdout.decode()) == {"CT@2": "0.2707", "CT@10": "0.1585"}


def test_a_trec_run_with_an_integer_second_column_and_0_1_scores_stays_a_trec_run(write):
    """The iteration must change within a topic (or the line be as the jig writes it)."""
    run = write("run.txt", "".join(f"{q} 0 d{k} {k} {k % 2} tag\n" for q in (1, 2) for k in range(1, 8)))
    assert dd_run_evidence(run) is None
    assert as_run(run).iteration is None


@SETTINGS
@given(topics=st.integers(1, 4), per=st.integers(1, 6), iterations=st.integers(2, 4),
       sixth=st.sampled_from(["x", "NULL", "junk", "1"]))
def test_any_dd_run_with_changing_iterations_is_told_apart(write, topics, per, iterations, sixth):
    rows = [f"T{t}\t{i}\td{t}-{i}-{k}\t{1.0 / (k + 1):.3f}\t{k % 2}\t{sixth}\n"
            for t in range(topics) for i in range(iterations) for k in range(per)]
    run = write("run.txt", "".join(rows))
    with pytest.warns(EvaluationWarning, match="iteration number that changes within a topic"):
        read = as_run(run)
    assert read.iteration is not None and sorted(set(read.iteration.tolist())) == list(range(iterations))


def test_ct_on_a_plain_run_says_what_an_iteration_was_taken_to_be_once(write, capsys):
    qrels = write("q.txt", "1 1 a 1\n1 2 b 1\n2 1 c 1\n")
    run = write("r.txt", "1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n2 Q0 c 1 1 r\n")
    other = write("s.txt", "1 Q0 b 1 3 s\n2 Q0 c 1 1 s\n")
    code, _, err = run_main(capsys, "eval", qrels, run, other, "-m", "CT@2", "-m", "ACT@2")
    assert code == 0 and err.count("whole ranking is taken as one iteration") == 1
    assert "CT@2, ACT@2" in err and "r, s" in err and "--docs-per-iteration" in err
    code, _, err = run_main(capsys, "eval", qrels, run, "-m", "CT@2", "--docs-per-iteration", "1")
    assert code == 0 and "iteration" not in err


# --------------------------------------------------------------------------- 2. line endings

ENDINGS = ["\n", "\r\n", "\r"]


def _with_ending(text: str, ending: str) -> bytes:
    return text.replace("\n", ending).encode()


@SETTINGS
@given(data=st.data(), ending=st.sampled_from(ENDINGS[1:]), last=st.booleans())
def test_the_same_content_with_any_line_ending_gives_the_same_results(tmp_path, data, ending, last):
    topics = data.draw(st.integers(1, 3))
    docs = [f"d{k}" for k in range(8)]
    qrels = "".join(f"{t} 0 {d} {data.draw(st.integers(0, 2))}\n" for t in range(topics) for d in docs[:5])
    run = "".join(f"{t} Q0 {d} {k} {data.draw(st.integers(0, 50)) / 7:.4f} r\n"
                  for t in range(topics) for k, d in enumerate(docs))
    intents = "".join(f"{t} 0 1\n" for t in range(topics))
    if not last:  # the last line without its line break
        qrels, run = qrels.rstrip("\n"), run.rstrip("\n")
    results = []
    for style in ("\n", ending):
        q, r, i = (tmp_path / f"{name}{len(style)}{ord(style[0])}" for name in ("q", "r", "i"))
        q.write_bytes(_with_ending(qrels, style))
        r.write_bytes(_with_ending(run, style))
        i.write_bytes(_with_ending(intents, style))
        assert len(read_qrels(q)) == 5 * topics and read_run(r).docno.size == 8 * topics
        assert read_intents(i).topic == tuple(str(t) for t in range(topics))
        results.append(evaluate(q, r, ["P@5", "AP", "nDCG@10"]).values)
    np.testing.assert_array_equal(results[0], results[1])


@pytest.mark.parametrize("ending", ENDINGS)
def test_line_numbers_count_every_line_ending(write, ending):
    text = _with_ending("1 Q0 a 1 1 r\n\n1 Q0 b 2 x r\n", ending)
    with pytest.raises(InputError, match=r"r\.txt:3: score 'x'"):
        read_run(write("r.txt", text))
    with pytest.raises(InputError, match=r"r\.txt\.gz:3: score 'x'"):
        read_run(write("r.txt.gz", gzip.compress(text)))


def test_a_crlf_split_across_blocks_is_one_line_break(write, monkeypatch):
    monkeypatch.setattr(_tokens, "BLOCK_BYTES", 16)
    text = "".join(f"1 Q0 doc{k} {k} {1 / (k + 1):.3f} r\r\n" for k in range(40)).encode()
    for cut in range(16):  # the CR of a CR LF at every position relative to the blocks
        run = read_run(write("r.txt", b"#" * cut + b"\r\n" + text), order="file")
        assert run.docno.size == 40 and run.line.tolist() == list(range(2, 42))


# --------------------------------------------------------------------------- 3. ids: text or integers

def test_parquet_id_columns_of_list_or_struct_type_are_refused(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    base = {"qid": ["1", "1"], "docno": ["a", "b"], "score": [2.0, 1.0]}
    for column, values in [("docno", [["a"], ["b"]]), ("qid", [{"x": 1}, {"x": 2}]), ("docno", [1.5, 2.5])]:
        path = tmp_path / f"{column}.parquet"
        pq.write_table(pa.table({**base, column: values}), path)
        with pytest.raises(InputError, match=rf"{path.name}: column '{column}' is of type .*; ids are text or "):
            as_run(path)
    ok = tmp_path / "ok.parquet"
    pq.write_table(pa.table({**base, "qid": pa.array([1, 1], pa.int32())}), ok)
    assert as_run(ok).topic_ids == ("1",)


@pytest.mark.parametrize("bad", [["a"], ("a",), {"a": 1}, np.array([1]), 1.5, True])
def test_dataframe_ids_that_are_not_text_or_integers_are_refused(bad):
    import pandas as pd

    frame = pd.DataFrame({"qid": ["1", "1"], "docno": [bad, "b"], "score": [2.0, 1.0]})
    with pytest.raises(InputError, match="row 1: the document id .* ids are text or integers"):
        run_from_frame(frame)


# --------------------------------------------------------------------------- 4. memory linear in the bytes

@pytest.mark.parametrize("size", [_tokens.MAX_FIELD + 1, 300_000])
def test_a_field_over_64_kb_is_an_error_at_its_line(write, size):
    text = f"1 Q0 a 1 1 r\n1 Q0 {'d' * size} 2 0.5 r\n"
    with pytest.raises(InputError, match=rf"r\.txt:2: a field of {size:,} bytes \(column 3\)"):
        read_run(write("r.txt", text))
    with pytest.raises(InputError, match=rf"q\.txt:2: a field of {size:,} bytes \(column 3\)"):
        read_qrels(write("q.txt", f"1 0 a 1\n1 0 {'d' * size} 1\n"))
    assert read_run(write("ok.txt", f"1 Q0 {'d' * _tokens.MAX_FIELD} 1 1 r\n")).docno.size == 1


def test_a_long_comment_is_no_field(write):
    run = read_run(write("r.txt", f"# {'x' * 100_000}\n1 Q0 a 1 1 r\n"))
    assert run.docno.tolist() == [b"a"] and run.comments == 1


def test_a_gzip_inflating_to_one_huge_line_is_one_error_in_bounded_memory(tmp_path):
    path = tmp_path / "bomb.gz"
    with gzip.open(path, "wb", compresslevel=9) as f:
        for _ in range(128):
            f.write(b"d" * (1 << 20))
    assert path.stat().st_size < 2 << 20
    code = ("import resource, sys; from cranfield.cli.main import main; c = main(sys.argv[1:]); "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss); sys.exit(c)")
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 a 1\n")
    done = subprocess.run([sys.executable, "-c", code, "eval", str(qrels), str(path)], capture_output=True,
                          timeout=300)
    err = done.stderr.decode()
    assert done.returncode == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"cranfield: error: {path}:1: a line longer than 1 MB")
    # KB. Usually ~50 MB (the interpreter, numpy and a few blocks); one full CI run on a loaded machine
    # peaked at 1.1 GB (cause not found yet, never reproduced alone): the bound still refuses the
    # quadratic blow-up this guards against (8 GB for a 64 KB token before the fix).
    assert int(done.stdout) < 2_000_000


@SETTINGS
@given(lengths=st.lists(st.integers(1, 1200), min_size=1, max_size=30))
def test_gathered_fields_are_the_bytes_whatever_their_lengths(lengths):
    """Both ways of masking the bytes past a field's end (a table by length for short fields,
    each row's masks for long ones) give the fields' bytes."""
    rng = np.random.default_rng(len(lengths))
    fields = [bytes(rng.integers(33, 127, n, dtype=np.uint8)) for n in lengths]
    buf = np.frombuffer(b" ".join(fields), dtype=np.uint8)
    start = np.cumsum([0] + [n + 1 for n in lengths[:-1]])
    got = _tokens.padded_strings(buf, start, start + np.array(lengths))
    assert got.tolist() == fields


# --------------------------------------------------------------------------- 5. DD truth XML

def _truth(docno: str, text: str) -> str:
    return (f'<root><domain><topic id="1"><subtopic id="1"><passage id="1"><docno>{docno}</docno>'
            f"<rating>2</rating><text>{text}</text></passage></subtopic></topic></domain></root>\n")


def test_the_truth_xml_reader_is_linear_in_a_passage_text(write):
    # 4 MB of passage text in 400,000 pieces (entity references split expat's character data)
    path = write("truth.xml", _truth("d1", "a &amp; b " * 400_000))
    began = time.perf_counter()
    qrels = read_dd_truth(path)
    assert time.perf_counter() - began < 20  # quadratic: minutes
    assert qrels.docno.tolist() == [b"d1"] and qrels.rel.tolist() == [2.0]
    assert read_dd_truth(write("t2.xml", _truth("d&amp;1", ""))).docno.tolist() == [b"d&1"]


def test_entity_declarations_in_a_truth_xml_are_refused_before_any_expansion(write):
    laughs = "".join(f'<!ENTITY l{k} "{f"&l{k - 1};" * 10}">\n' for k in range(1, 10))
    text = f'<?xml version="1.0"?>\n<!DOCTYPE root [\n<!ENTITY l0 "lol">\n{laughs}]>\n' + _truth("&l9;", "")
    began = time.perf_counter()
    with pytest.raises(InputError, match=r"truth\.xml:3: an entity declaration \(<!ENTITY l0"):
        read_dd_truth(write("truth.xml", text))
    assert time.perf_counter() - began < 5


# --------------------------------------------------------------------------- 6. read once

@pytest.mark.parametrize("how", ["pipe", "dev-stdin", "dash"])
def test_a_gzip_run_from_a_pipe_or_stdin_is_read(tmp_path, how):
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 a 1\n1 0 c 1\n")
    run = tmp_path / "r.gz"
    run.write_bytes(gzip.compress(b"1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n1 Q0 c 3 1 r\n"))
    if how == "pipe":
        done = cli(shell=f"$CRANFIELD eval {qrels} <(cat {run}) -m P@3")
    else:
        done = cli("eval", qrels, "/dev/stdin" if how == "dev-stdin" else "-", "-m", "P@3", stdin=run.read_bytes())
    assert done.returncode == 0, done.stderr
    assert last_column(done.stdout.decode()) == {"P@3": "0.6667"}


def test_a_fifo_is_read_once_whatever_sniffs_it(tmp_path):
    fifo = tmp_path / "qrels.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(b"1 0 a 1\n1 0 b 0\n"))
    writer.start()
    qrels = as_qrels(fifo)  # sniffed (NTCIREVAL?), then read
    writer.join()
    assert len(qrels) == 2 and qrels.source == str(fifo)


# --------------------------------------------------------------------------- 7. messages name the file

def test_a_run_without_judged_topics_is_named_by_its_file(write, capsys):
    qrels = write("q.txt", "1 0 a 1\n")
    run = write("mine.txt", "9 Q0 a 1 1 tag\n")
    code, _, err = run_main(capsys, "eval", qrels, run, "-m", "P@5")
    assert code == 2 and err.startswith(f"cranfield: error: {run}: no topic of the run has judgments")


@pytest.mark.parametrize("score", [1e39, -4e38, 1e300])
def test_scores_beyond_a_c_float_are_said_once_by_file_and_line(write, score):
    run = write("r.txt", f"1 Q0 a 1 1 r\n1 Q0 b 2 {2 * score!r} r\n1 Q0 c 3 {score!r} r\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        read = read_run(run)
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1 and messages[0].startswith(f"{run}:2: score {2 * score:g} is beyond the range")
    assert all(w.category is EvaluationWarning for w in caught)  # no numpy RuntimeWarning
    # trec_eval 9 compares C floats: the overflowed scores tie, ranked by docno descending
    assert read.ranking("1") == (["c", "b", "a"] if score > 0 else ["a", "c", "b"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        doubles = read_run(run, score_dtype="float64")
    assert doubles.ranking("1") == (["b", "c", "a"] if score > 0 else ["a", "c", "b"])


# --------------------------------------------------------------------------- 8. ir_datasets offline

def test_an_ir_datasets_id_that_cannot_be_downloaded_is_one_line(tmp_path):
    pytest.importorskip("ir_datasets")
    env = {"IR_DATASETS_HOME": str(tmp_path / "irds"), "HTTPS_PROXY": "http://127.0.0.1:9",
           "HTTP_PROXY": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9", "http_proxy": "http://127.0.0.1:9"}
    run = tmp_path / "r.txt"
    run.write_text("1 Q0 a 1 1 r\n")
    done = cli("eval", "irds:antique/test", run, "-m", "P@5", env=env)
    err = done.stderr.decode()
    assert done.returncode == 2 and err.count("\n") == 1, err
    assert err.startswith("cranfield: error: irds:antique/test: the qrels are not downloaded")
    assert "ir_datasets export antique/test qrels" in err and len(err) < 400


# --------------------------------------------------------------------------- 9. directories, swapped arguments

def test_a_directory_of_trec_runs_is_said_to_be_for_ntcireval(tmp_path, capsys):
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a.txt").write_text("1 Q0 a 1 1 r\n")
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 a 1\n")
    code, _, err = run_main(capsys, "eval", qrels, runs, "-m", "P@5")
    assert code == 2 and err.count("\n") == 1
    assert "a directory is read only as NTCIREVAL's per-topic ranked lists" in err and f"{runs.as_posix()}/*" in err


def test_swapped_qrels_and_run_are_said_so(write, capsys):
    run = write("r.txt", "# a comment\n1 Q0 a 1 1 r\n")
    qrels = write("q.txt", "1 0 a 1\n")
    code, _, err = run_main(capsys, "eval", run, qrels, "-m", "P@5")
    assert code == 2 and err == (f"cranfield: error: {run}:2: expected at most 5 columns, got 6 (a TREC run's six "
                                 "columns: did you swap the qrels and the run?)\n")
    with pytest.raises(InputError, match=r"q\.txt:2: expected at most 5 columns, got 6$"):
        read_qrels(write("q.txt", "1 0 a 1\n1 0 b 1 x y\n"))  # further down: no guess


# --------------------------------------------------------------------------- 10. comments and stdin

COMMENTS = ["# ir_metadata.start\n# tag: r\n# ir_metadata.end\n", "#\n", "  # indented\n", "#1 Q0 z 1 9 r\n"]


@SETTINGS
@given(data=st.data())
def test_comment_lines_anywhere_change_nothing_but_the_count(tmp_path, data):
    qrels = ["1 0 a 1\n", "1 0 b 0\n", "1 0 c 2\n", "2 0 a 1\n"]
    run = [f"{q} Q0 {d} {k} {5 - k} r\n" for q in (1, 2) for k, d in enumerate("abcd")]

    def sprinkled(lines: list[str]) -> tuple[str, int]:
        out, n = [], 0
        for line in [*lines, ""]:
            block = data.draw(st.sampled_from(["", *COMMENTS]))
            out.append(block + line)
            n += block.count("\n")
        return "".join(out), n

    (q_text, q_n), (r_text, r_n) = sprinkled(qrels), sprinkled(run)
    plain = Evaluator(_put(tmp_path, "q0", "".join(qrels)), ["P@2", "AP"]).evaluate(_put(tmp_path, "r0", "".join(run)))
    commented = Evaluator(_put(tmp_path, "q1", q_text), ["P@2", "AP"]).evaluate(_put(tmp_path, "r1", r_text))
    np.testing.assert_array_equal(plain.values, commented.values)
    said = commented.provenance.get("comment_lines", [])
    assert said == [f"{p}({n})" for p, n in ((tmp_path / "q1", q_n), (tmp_path / "r1", r_n)) if n]


def _put(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("comment", ["# ir_metadata.start\n# a b c d e\n# ir_metadata.end\n", "#1 Q0 z 1 9 r\n"])
def test_comments_are_skipped_by_the_fast_reader_too(tmp_path, comment):
    """A file large enough for pyarrow's reader (io/fastcsv.py), whose comment may have six fields."""
    rows = "".join(f"{q} Q0 doc{k:06d} {k} {1 / (k + 1):.6f} r\n" for q in range(5) for k in range(60_000))
    path = _put(tmp_path, "big.txt", comment + rows + comment)
    run = read_run(path)
    n = comment.count("\n")
    assert run.comments == 2 * n and run.docno.size == 300_000 and int(run.line.min()) == n + 1
    assert b"z" not in set(run.docno.tolist())


def test_a_file_of_comments_only_is_empty(write):
    with pytest.raises(InputError, match=r"q\.txt: the file is empty but for 2 comment lines"):
        read_qrels(write("q.txt", "# one\n# two\n"))


def test_dash_reads_the_run_or_the_qrels_from_stdin_once(tmp_path):
    qrels = _put(tmp_path, "q.txt", "1 0 a 1\n")
    run = b"# ir_metadata.start\n# ir_metadata.end\n1 Q0 a 1 1 r\n"
    done = cli("eval", qrels, "-", "-m", "P@1", stdin=run)
    assert done.returncode == 0 and last_column(done.stdout.decode()) == {"P@1": "1.0000"}
    assert "comment_lines=-(2)" in done.stdout.decode()
    done = cli("eval", "-", _put(tmp_path, "r.txt", "1 Q0 a 1 1 r\n"), "-m", "P@1", stdin=b"1 0 a 1\n")
    assert done.returncode == 0 and last_column(done.stdout.decode()) == {"P@1": "1.0000"}
    done = cli("eval", "-", "-", "-m", "P@1", stdin=b"1 0 a 1\n")
    assert done.returncode == 2 and done.stderr.decode() == (
        "cranfield: error: standard input ('-') can be read only once: give it as the qrels or as one run, and the "
        "other files by name\n")
    with pytest.raises(CranfieldError, match="can be read only once"):
        evaluate(qrels, ["-", "-"], ["P@1"])


@pytest.mark.parametrize("header", ["", "# ir_metadata.start\n# a b c d e f\n# ir_metadata.end\n", "#\r\n"])
def test_the_fast_reader_skips_a_comment_header_as_the_tokenizer_does(tmp_path, header):
    pytest.importorskip("pyarrow")
    from cranfield.io.fastcsv import read_run_columns

    rows = "".join(f"{q} Q0 doc{k:04d} {k} {1 / (k + 1):.6f} r\n" for q in range(3) for k in range(500))
    path = _put(tmp_path, "r.txt", header + rows)
    fast = read_run_columns(path, min_bytes=0)
    slow = _tokens.read_columns(path, 6, text=[2], numbers={4: "score"}, keys=[2], codes=[0], uniform=[5],
                                compact=True, ignore_extra=True)
    assert fast is not None and fast.comments == slow.comments == header.count("\n")
    for a, b in [(fast.line, slow.line), (fast.text[2], slow.text[2]), (fast.number[4], slow.number[4]),
                 (fast.key[2], slow.key[2]), (fast.code[0], slow.code[0])]:
        np.testing.assert_array_equal(a, b)
    assert read_run_columns(_put(tmp_path, "mid.txt", rows + "# end\n"), min_bytes=0) is None
