"""The conventions people type by habit: `-` is standard output (and then
the only thing on it), a link to stdout works, --csv, --quiet, NO_COLOR,
and paths that say nothing or name a folder are refused.

Covers graphbench/cli/gate.py.
Covers graphbench/cli/progress.py.
Covers graphbench/report/csv_rows.py."""

import csv
import io
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from tests_helpers import short_error

from graphbench.cli import main
from graphbench.record.codec import read_run
from graphbench.report.csv_rows import COMPARE_COLUMNS, REPORT_COLUMNS, RUN_COLUMNS

ROOT = Path(__file__).resolve().parent.parent
RECORDS = Path(__file__).parent / "records"
RECORD, SWEEP, SLOWER = (str(RECORDS / name) for name in
                         ("baseline.json", "sweep.json", "graph_slower_20.json"))


def cli(*argv, stdout=subprocess.PIPE, cwd=None):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100"}
    return subprocess.run([sys.executable, "-m", "graphbench", *argv], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, env=env, cwd=cwd, timeout=60)


@pytest.fixture
def fake_run(monkeypatch):
    """`graphbench run` without a GPU: the stored record stands for the measurement."""
    monkeypatch.setattr("graphbench.cli.commands.check_configs", lambda configs: None)
    monkeypatch.setattr("graphbench.cli.commands.resolve_devices", lambda spec: [0])
    monkeypatch.setattr("graphbench.cli.commands.check_run", lambda config, processes: None)
    monkeypatch.setattr("graphbench.cli.commands.measured",
                        lambda config, processes, progress: read_run(RECORD))


def test_report_json_dash_is_the_only_thing_on_stdout_so_jq_reads_it():
    done = cli("report", RECORD, "--json", "-")
    assert done.returncode == 0 and json.loads(done.stdout)["summary"]["modes"]
    assert "the launch ladder" in done.stderr  # the report moved, it was not lost


def test_run_json_dash_sends_the_record_alone_to_stdout(fake_run, capfd):
    assert main(["run", "--json", "-", "--no-progress"]) == 0
    out, err = capfd.readouterr()
    assert json.loads(out)["schema"] == "graphbench/run" and "launch ladder" in err


def test_markdown_to_dev_stdout_through_a_pipe_works():
    done = cli("report", RECORD, "--markdown", "/dev/stdout")
    assert done.returncode == 0 and done.stdout.startswith("|  |") and "ladder" in done.stderr


@pytest.mark.parametrize("to_file", [False, True])
def test_a_link_to_stdout_is_written_through_it(tmp_path, to_file):
    """Piped, it once failed in /proc/N/fd; redirected to a file, it once
    replaced the file and lost the console report with the old inode."""
    link = tmp_path / "LINK"
    link.symlink_to("/proc/self/fd/1")
    if not to_file:
        done = cli("report", RECORD, "--markdown", str(link))
        written = done.stdout
    else:
        with open(tmp_path / "out.txt", "w") as out:
            done = cli("report", RECORD, "--markdown", str(link), stdout=out)
        written = (tmp_path / "out.txt").read_text()
    assert done.returncode == 0, done.stderr
    assert written.startswith("|  |") and "launch ladder" in done.stderr and link.is_symlink()


def test_the_file_stdout_is_redirected_to_is_appended_not_replaced(tmp_path):
    target = tmp_path / "both.md"
    with open(target, "w") as out:
        done = cli("report", RECORD, "--markdown", str(target), stdout=out)
    assert done.returncode == 0 and target.read_text().startswith("|  |")
    assert "launch ladder" in done.stderr


def test_compare_json_dash_then_its_decision_on_stderr():
    done = cli("compare", RECORD, SLOWER, "--json", "-", "--csv", str(os.devnull))
    assert done.returncode == 1 and json.loads(done.stdout)["regressions"] == ["graph.wall"]
    assert "FAIL: regression in graph.wall" in done.stderr


@pytest.mark.parametrize("argv, message", [
    (["report", RECORD, "--json", "-", "--csv", "-"], "both write to standard output"),
    (["report", RECORD, "--markdown", "-", "--csv", "/dev/stdout"], "both write to standard"),
    (["report", SWEEP, "--plot", "-"], ".svg or .png"),
    (["run", "--device", "0,1", "--json", "-"], "a stream holds one output"),
    (["report", RECORD, SWEEP, "--json", "-"], "give one FILE"),
])
def test_dash_mistakes_are_one_line(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


OUTPUT_OPTIONS = [("run", "--json"), ("run", "--csv"), ("sweep", "--json"),
                  ("sweep", "--markdown"), ("sweep", "--csv"), ("sweep", "--plot"),
                  ("report", "--markdown"), ("report", "--csv"), ("report", "--plot"),
                  ("report", "--json"), ("compare", "--json"), ("compare", "--csv"),
                  ("compare", "--markdown")]
INPUTS = {"run": [], "sweep": [], "report": [RECORD], "compare": [RECORD, SLOWER]}


@pytest.mark.parametrize("command, option", OUTPUT_OPTIONS)
@pytest.mark.parametrize("path, message", [
    ("", "an empty path"), ("newdir/", "ends in a folder"), ("{tmp}/", "ends in a folder"),
    ("{tmp}/.", "ends in a folder")])
def test_empty_and_folder_paths_are_refused_in_one_line(tmp_path, capsys, command, option,
                                                        path, message):
    argv = [command, *INPUTS[command], option, path.format(tmp=tmp_path)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in short_error(err) and "driver" not in err
    assert not Path("newdir").exists()


def test_an_unwritable_path_fails_before_device_all_asks_the_driver(capsys):
    assert main(["run", "--device", "all", "--csv", "/proc/nope/out.csv"]) == 2
    err = capsys.readouterr().err
    assert "/proc" in err and "driver" not in err


def test_run_csv_has_one_row_per_mode_with_the_ladder_figures(fake_run, tmp_path):
    from graphbench.stats.ladder import ladder
    from graphbench.stats.summary import summarize_run

    path = tmp_path / "run.csv"
    assert main(["run", "--csv", str(path), "--no-progress", "-q"]) == 0
    rows = list(csv.DictReader(path.open()))
    assert tuple(rows[0]) == RUN_COLUMNS == (
        "device", "elements", "depth", "iters", "mode", "verified", "rounds", "wall_median_us",
        "wall_iqr_us", "submit_us", "busy_us", "idle_us", "speedup_x", "x_floor", "grid", "block",
        "params")
    expected = ladder(summarize_run(read_run(RECORD))).rows
    assert [r["mode"] for r in rows] == [row.mode for row in expected]
    for got, row in zip(rows, expected):
        assert float(got["wall_median_us"]) == pytest.approx(row.wall_us, rel=1e-5)
        assert float(got["speedup_x"]) == pytest.approx(row.speedup, rel=1e-5)


def test_report_and_compare_csv_headers_are_pinned(capfd):
    assert main(["report", RECORD, SWEEP, "--csv", "-"]) == 0
    rows = list(csv.reader(io.StringIO(capfd.readouterr().out)))
    assert tuple(rows[0]) == REPORT_COLUMNS == ("record",) + RUN_COLUMNS
    sweep_rows = [r for r in rows[1:] if r[0] == SWEEP]
    stored = json.loads(Path(SWEEP).read_text())["points"]
    assert len(sweep_rows) == sum(len(p["summary"]["modes"]) for p in stored)
    assert main(["compare", RECORD, SLOWER, "--csv", "-", "-q"]) == 1
    rows = list(csv.DictReader(io.StringIO(capfd.readouterr().out)))
    assert tuple(rows[0]) == COMPARE_COLUMNS == (
        "metric", "unit", "baseline", "current", "change_pct", "detects_pct", "threshold",
        "gated", "verdict", "p_value", "note")
    graph = next(r for r in rows if r["metric"] == "graph.wall")
    assert graph["verdict"] == "slower" and graph["unit"] == "us" and graph["gated"] == "true"


@pytest.mark.parametrize("argv, code", [
    (["report", RECORD], 0), (["report", SWEEP, "--markdown", "{tmp}/s.md"], 0),
    (["compare", RECORD, RECORD], 0), (["kernels"], 0)])
def test_quiet_prints_nothing_when_all_is_well(tmp_path, capfd, argv, code):
    assert main([a.format(tmp=tmp_path) for a in argv] + ["--quiet"]) == code
    assert capfd.readouterr() == ("", "")


def test_quiet_still_says_why_it_failed(capfd):
    assert main(["compare", RECORD, SLOWER, "-q"]) == 1
    out, err = capfd.readouterr()
    assert out == "" and err == "graphbench: FAIL: regression in graph.wall\n"
    assert main(["report", "missing.json", "-q"]) == 2
    assert capfd.readouterr().err.startswith("graphbench: error: cannot read missing.json")


def test_no_color_is_documented_and_honoured():
    done = subprocess.run([sys.executable, "-m", "graphbench", "run", "--help"],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert "NO_COLOR" in done.stdout and "--quiet" in done.stdout
    assert "NO_COLOR" in (ROOT / "README.md").read_text()


def test_a_sweep_to_a_fifo_is_written_once_when_it_ends(tmp_path, monkeypatch):
    import graphbench.runner as benchmark
    from conftest import synthetic_point

    monkeypatch.setattr(benchmark, "run_benchmark",
                        lambda c, on_round=None, kernels=None, spec=None: synthetic_point(c))
    monkeypatch.setattr("graphbench.cli.commands.resolve_devices", lambda spec: [0])
    monkeypatch.setattr("graphbench.cli.commands.check_configs", lambda configs: None)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    assert main(["sweep", "--elements", "4096,65536", "--depth", "1", "--json", str(fifo),
                 "-q"]) == 0
    reader.join(timeout=10)
    assert len(json.loads(received[0])["points"]) == 2  # one document, not one per point
