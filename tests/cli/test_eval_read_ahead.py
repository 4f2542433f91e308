"""cranfield eval starts reading its first run files before it reads the qrels
(cli/evaluate._read_ahead, evaluation/scheduling.prefetch): a command that stops before it
scores them keeps nothing of what was read ahead."""

from __future__ import annotations

from cranfield.cli.main import main
from cranfield.evaluation import scheduling


def test_a_command_stopped_by_bad_qrels_keeps_nothing_read_ahead(tmp_path, capsys):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n1 0 d2 high\n")
    runs = []
    for s in range(3):
        run = tmp_path / f"run{s}.txt"
        run.write_text("".join(f"1 Q0 d{k} {k} {1 - k / 10} tag{s}\n" for k in range(1, 4)))
        runs.append(str(run))
    assert main(["eval", str(qrels), *runs, "-m", "AP"]) == 2
    assert "qrels.txt:2" in capsys.readouterr().err
    assert not any(path in runs for path, _ in scheduling._PREFETCHED)
