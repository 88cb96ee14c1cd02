"""Odd command-line inputs: each is refused in one line with exit 2 before
any GPU work (the driver is never asked), or handled on purpose."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from tests_helpers import short_error

from graphbench.cli import main
from graphbench.config import RunConfig
from graphbench.errors import ConfigError
from graphbench.pipeline.spec import SpecError
from graphbench.pipeline.files import load_pipeline

ROOT = Path(__file__).resolve().parents[1]
RECORD = str(ROOT / "tests" / "records" / "h200" / "host_speed" / "default_4096_4.json")  # 170 KB as --json


@pytest.fixture
def no_driver(monkeypatch):
    """Any command that gets as far as the driver fails the test; the
    pipeline preflight (NVRTC) is skipped, as these inputs need none."""
    def asked(*args, **kwargs):
        raise AssertionError("the driver was asked")
    monkeypatch.setattr("graphbench.cli.commands.measured", asked)
    monkeypatch.setattr("graphbench.cli.commands.resolve_devices", asked)
    monkeypatch.setattr("graphbench.cli.commands.check_run", lambda *a, **k: None)
    monkeypatch.setattr("graphbench.cli.commands.check_configs", lambda *a, **k: None)


def refused(argv: list[str], capsys) -> str:
    """The error of a refused command: one or two short lines."""
    assert main(argv) == 2
    return short_error(capsys.readouterr().err)


def graphbench(*argv: str, **kwargs) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "graphbench", *argv], env=env,
                          capture_output=True, timeout=60, **kwargs)


# --- empty paths --------------------------------------------------------------

@pytest.mark.parametrize("extra", [[], ["--fail-on", "graph.wall:5%"]])
def test_an_empty_baseline_is_refused_naming_the_option(no_driver, capsys, extra):
    err = refused(["run", "--baseline", "", *extra], capsys)
    assert "--baseline ''" in err and "empty" in err and "--fail-on" not in err


@pytest.mark.parametrize("argv, named", [(["report", ""], "FILE"), (["compare", ""], "BASELINE"),
                                         (["compare", RECORD, ""], "CURRENT")])
def test_an_empty_record_path_says_it_is_empty(capsys, argv, named):
    err = refused(argv, capsys)
    assert f"{named} '': the path is empty" in err and "cannot read ." not in err


# --- standard output closed early --------------------------------------------

def test_a_reader_that_leaves_early_fails_the_command():
    """The record is larger than a pipe holds: the reader takes 10 bytes and
    closes, so the rest cannot be written, and exit 0 would claim it was."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, "-m", "graphbench", "report", RECORD, "--json",
                              "-", "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=env)
    child.stdout.read(10)
    child.stdout.close()
    err = child.stderr.read().decode()
    assert child.wait(timeout=60) == 2
    assert err.splitlines() == ["graphbench: error: cannot write standard output: Broken pipe; "
                                "the reader closed it before everything was written"]


# --- numbers ------------------------------------------------------------------

@pytest.mark.parametrize("argv", [["run", "--max-noise", "5e-324"], ["run", "--max-time", "1e-310"],
                                  ["sweep", "--threshold", "5e-324"]])
def test_a_subnormal_number_is_refused_stating_the_smallest(no_driver, capsys, argv):
    err = refused(argv, capsys)
    assert argv[1] in err and "subnormal" in err and "2.225e-308" in err


def test_the_smallest_normal_number_is_accepted():
    assert RunConfig(max_noise=sys.float_info.min).max_noise == sys.float_info.min


@pytest.mark.parametrize("argv, words", [
    (["run", "--gate-sizes", "2^20,1048576"], "--gate-sizes names 1,048,576 twice"),
    (["run", "--gate-sizes", "4096"], "--gate-sizes has 4,096, the run's own size"),
    (["sweep", "--elements", "2^12..2^16,8192"], "--elements names 8,192 twice"),
    (["sweep", "--depth", "1,4,1"], "--depth names 1 twice"),
    (["run", "--elements", "0^0"], "--elements 0^0 has no value"),
])
def test_duplicate_and_degenerate_counts_are_refused(no_driver, capsys, argv, words):
    assert words in refused(argv, capsys)


def test_a_library_caller_cannot_repeat_a_gate_size():
    with pytest.raises(ConfigError, match="twice"):
        RunConfig(gate_sizes=(2**20, 2**20))


def test_the_stage_list_is_capped_and_help_says_so(no_driver, capsys):
    with pytest.raises(SystemExit):  # argparse exits after the help
        main(["run", "--help"])
    assert "at most 64" in " ".join(capsys.readouterr().out.split())
    err = refused(["run", "--stages", ",".join(["add"] * 100_000)], capsys)
    assert "--stages needs 1 to 64 stages, got 100,000" in err


# --- several outputs from one path ---------------------------------------------

@pytest.mark.parametrize("output", ["/dev/stdout", ".", "..", "nowhere/.."])
def test_several_launch_shapes_refuse_an_output_that_takes_one_file(
        no_driver, capsys, tmp_path, monkeypatch, output):
    monkeypatch.chdir(tmp_path)
    err = refused(["run", "--grid", "auto,1056", "--json", output], capsys)
    assert f"--json {output}" in err
    assert sorted(os.listdir(tmp_path)) == []


@pytest.mark.parametrize("output", [".", "..", "/proc/self/status", "nowhere/.."])
def test_every_device_setting_checks_outputs_before_the_driver(
        no_driver, capsys, tmp_path, monkeypatch, output):
    monkeypatch.chdir(tmp_path)
    assert f"--json {output}" in refused(["run", "--device", "all", "--json", output], capsys)


# --- what an output or input is -----------------------------------------------

def test_a_socket_is_no_output(no_driver, capsys, tmp_path):
    path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        assert "is a socket" in refused(["run", "--json", str(path)], capsys)


@pytest.mark.parametrize("output", ["/proc/sys/kernel/hostname", "/proc/self/new.json",
                                    "/sys/kernel/x.json"])
def test_the_kernels_own_files_are_no_output(no_driver, capsys, output):
    assert "the kernel's own files" in refused(["run", "--json", output], capsys)


@pytest.fixture
def terminal():
    """A terminal device (a pty's far end) and its near end, to read from."""
    near, far = os.openpty()
    yield os.ttyname(far), near
    os.close(near)
    os.close(far)


def test_a_text_output_goes_to_a_terminal(capsys, terminal):
    path, near = terminal
    assert main(["report", RECORD, "--csv", path, "--quiet"]) == 0
    assert os.read(near, 100).startswith(b"record,device,")


def test_a_chart_is_refused_on_a_terminal(capsys, terminal, tmp_path):
    link = tmp_path / "chart.svg"
    link.symlink_to(terminal[0])
    assert "is a terminal" in refused(["report", RECORD, "--plot", str(link)], capsys)


def test_a_terminal_that_cannot_be_opened_is_refused(no_driver, capsys, tmp_path):
    """/dev/tty without a controlling terminal: ENXIO, said before any work."""
    result = graphbench("run", "--json", "/dev/tty", start_new_session=True)
    assert result.returncode == 2
    assert b"--json /dev/tty cannot be opened for writing" in result.stderr


def test_reading_its_own_standard_output_is_refused_not_waited_on():
    result = graphbench("report", "/dev/stdout")
    assert result.returncode == 2
    assert b"is this command's own output stream" in result.stderr


def test_a_fifo_nobody_writes_to_is_refused_not_waited_on(tmp_path):
    fifo = tmp_path / "record.json"
    os.mkfifo(fifo)
    result = graphbench("report", str(fifo))
    assert result.returncode == 2 and b"a FIFO that nothing writes to" in result.stderr


def test_a_stream_with_a_writer_is_read(tmp_path):
    result = graphbench("report", "/dev/stdin", "--quiet", stdin=open(RECORD, "rb"))
    assert result.returncode == 0, result.stderr
    with open(RECORD, "rb") as record:
        piped = graphbench("report", "/dev/stdin", "--quiet", input=record.read())
    assert piped.returncode == 0, piped.stderr


def test_a_terminal_is_no_input(capsys, terminal):
    assert "is a terminal" in refused(["report", terminal[0]], capsys)


# --- pipeline files -----------------------------------------------------------

PIPELINE = ("from graphbench.pipeline.spec import Pipeline, Stage, buffer\n"
            "def pipeline():\n"
            "    return Pipeline(name={name!r}, source='__global__ void k() {{}}',\n"
            "                    buffers=[buffer('x')], stages=[Stage('k')],\n"
            "                    reference=lambda inputs, n: {{}}, description={text!r})\n")


@pytest.mark.parametrize("name, text, said", [
    ("", "", "Pipeline name is empty"),
    ("red", "red \x1b[31m", "description holds the control character '\\x1b'"),
])
def test_pipeline_text_fields_say_what_is_wrong(tmp_path, name, text, said):
    path = tmp_path / "p.py"
    path.write_text(PIPELINE.format(name=name, text=text))
    with pytest.raises(SpecError) as error:
        load_pipeline(str(path))
    message = error.value.message
    assert said in message and "pipeline pipeline" not in message
    assert "must be a string" not in message


def test_a_pipeline_file_that_is_no_regular_file_or_is_empty_says_so(tmp_path):
    with pytest.raises(SpecError, match="'/dev/null' is not a regular file"):
        load_pipeline("/dev/null")
    (tmp_path / "empty.py").write_text("")
    with pytest.raises(SpecError, match="is empty"):
        load_pipeline(str(tmp_path / "empty.py"))


# --- a value of "--" ----------------------------------------------------------

@pytest.mark.parametrize("argv, said", [
    (["run", "--elements=--"], "--elements must be a positive integer, got '--'"),
    (["run", "--max-time=--"], "--max-time"),
    (["sweep", "--threshold=--"], "--threshold"),
    (["compare", "a.json", "b.json", "--fail-on=--"], "--fail-on '--'"),
    (["kernels", "--arch=--"], "--arch must look like sm_90, got '--'"),
])
def test_a_value_of_two_dashes_is_read_as_that_text(argv, said, capsys, no_driver):
    assert said in refused(argv, capsys)  # argparse stored [] unparsed: a TypeError


@pytest.mark.parametrize("argv", [["run", "--elements"], ["run", "--modes"], ["run", "--fail-on"],
                                  ["sweep", "--threshold"], ["compare", "a.json", "--fail-on"],
                                  ["kernels", "--arch"]])
def test_a_value_longer_than_any_setting_is_refused_by_its_length(argv, capsys, no_driver):
    err = refused([*argv, "a" * 5000], capsys)
    assert "is given 5,000 characters" in err and len(err) < 200  # not echoed whole


@pytest.mark.parametrize("argv", [["run", "--json"], ["run", "--csv"], ["report", RECORD, "--plot"],
                                  ["report", RECORD, "--json"], ["run", "--timeline"],
                                  ["sweep", "--plot"]])
def test_an_output_name_too_long_to_write_is_refused_first_in_one_short_line(argv, capsys,
                                                                            no_driver):
    for name in ("x" * 238 + ".svg", "x" * 5000):  # 242 bytes: its temporary file's name
        err = refused([*argv, name], capsys)  # would pass 255; a chart's suffix unchecked yet
        assert "holds a name longer than a result's file may have (241 bytes)" in err
        assert len(err) < 300
