"""graphbench.measure.processes: fresh processes, one on the GPU at a time,
each started (importing) two turns ahead, once the one before the one
before has timed; none times until the next has imported. The children
here are stand-ins that log what they do; no GPU.

Covers graphbench/cli/child.py."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from graphbench.config import RunConfig
from graphbench.errors import EXIT_INTERRUPTED, GraphbenchError
from graphbench.measure import processes
from graphbench.record.codec import to_json, write_record
from conftest import make_record

STAND_IN = textwrap.dedent("""
    import json, os, sys, time
    config, record, go, timed = sys.argv[1:5]
    index = int(config.rsplit("config", 1)[1].split(".")[0])
    log, template, failing = sys.argv[5:8]

    def say(what):
        with open(log, "a") as out:
            out.write(f"{what} {index} {os.getpid()}\\n")

    say("spawned")
    time.sleep(0.2)  # the imports
    if str(index) + "i" == failing:
        print("ImportError: no module named cupy", file=sys.stderr)
        sys.exit(1)  # as a traceback does
    say("imported")
    os.write(int(timed), b"i")
    for word in ("go", "timing"):
        if not os.read(int(go), 1):
            say("cancelled")
            sys.exit(130)
        say(word)
        time.sleep(0.1)  # the set-up; the timed rounds
    say("timed")
    os.write(int(timed), b"t")
    time.sleep(0.2)  # the checks
    if str(index) == failing:
        print("graphbench: error: boom", file=sys.stderr)
        sys.exit(2)
    document = json.load(open(template))
    document["runs"][0]["seed"] = index  # which process wrote it
    json.dump(document, open(record, "w"))
    say("exit")
""")


@pytest.fixture
def stand_in(monkeypatch, tmp_path):
    """Children that run STAND_IN; returns (log path, failing index setter)."""
    script, log, template = tmp_path / "child.py", tmp_path / "log.txt", tmp_path / "run.json"
    script.write_text(STAND_IN)
    write_record(template, make_record())
    failing = {"index": "-1"}

    def command(config_path, record_path, go_fd=None, timed_fd=None):
        return [sys.executable, str(script), config_path, record_path, str(go_fd),
                str(timed_fd), str(log), str(template), failing["index"]]

    monkeypatch.setattr(processes, "child_command", command)
    return log, failing


def events(log) -> list[tuple[str, int, int]]:
    return [(what, int(index), int(pid)) for what, index, pid in
            (line.split() for line in log.read_text().splitlines())]


def at(log, what: str, index: int) -> int:
    return next(i for i, (w, k, _) in enumerate(events(log)) if (w, k) == (what, index))


@pytest.mark.slow
def test_one_process_uses_the_gpu_at_a_time_and_none_imports_beside_a_timing(stand_in):
    log, _ = stand_in
    done = []
    (records,) = processes.run_sets([RunConfig()], 4, done.append)
    assert len(records) == 4 and done == [1, 2, 3, 4]
    for index in (0, 1, 2):
        assert at(log, "go", index + 1) > at(log, "exit", index)  # never two on the GPU at once
        assert at(log, "imported", index + 1) < at(log, "timing", index)
    for index in (0, 1):  # two ahead: beside this one's checks and the next one's set-up
        assert at(log, "timed", index) < at(log, "spawned", index + 2) < at(log, "exit", index)
    assert at(log, "spawned", 1) < at(log, "go", 0)  # the first two import side by side


def test_a_process_whose_imports_fail_lets_the_one_before_finish_then_stops_the_run(stand_in):
    log, failing = stand_in
    failing["index"] = "1i"
    with pytest.raises(GraphbenchError, match="process 2 of 3 failed: ImportError: no module"):
        processes.run_sets([RunConfig()], 3)
    logged = [(what, index) for what, index, _ in events(log)]
    assert ("exit", 0) in logged and ("go", 2) not in logged  # the first one's run went on
    (waiting,) = [pid for what, index, pid in events(log) if (what, index) == ("spawned", 2)]
    with pytest.raises(ProcessLookupError):  # the third, started beside the first's checks:
        os.kill(waiting, 0)                  # killed and reaped, never told to go


def test_a_failed_process_stops_the_run_and_the_one_waiting_never_starts(stand_in):
    log, failing = stand_in
    failing["index"] = "1"
    with pytest.raises(GraphbenchError, match="process 2 of 3 failed: graphbench: error: boom"):
        processes.run_sets([RunConfig()], 3)
    waiting = [pid for what, index, pid in events(log) if (what, index) == ("spawned", 2)]
    assert waiting and not any(what == "go" and index == 2 for what, index, _ in events(log))
    with pytest.raises(ProcessLookupError):  # killed and reaped, not left behind
        os.kill(waiting[0], 0)


@pytest.mark.slow
def test_each_process_gets_its_own_seed(monkeypatch, stand_in):
    seeds = []
    started = processes.Child.__init__

    def recording(self, folder, config, index):
        seeds.append(config.seed)
        started(self, folder, config, index)

    monkeypatch.setattr(processes.Child, "__init__", recording)
    processes.run_sets([RunConfig(seed=7), RunConfig(seed=0)], 2)
    assert seeds == [7, 8, 0, 1]


@pytest.mark.slow
def test_several_configs_run_as_one_queue_and_come_back_by_config(stand_in):
    log, _ = stand_in
    sets = processes.run_sets([RunConfig(), RunConfig(elements=2**20)], 2)
    assert [[r.runs[0].seed for r in records] for records in sets] == [[0, 1], [2, 3]]
    # the first of the second config imports beside the last two of the first
    assert at(log, "timed", 0) < at(log, "spawned", 2) < at(log, "exit", 0)
    assert at(log, "imported", 2) < at(log, "timing", 1) < at(log, "exit", 1) < at(log, "go", 2)


def real_child(tmp_path):
    """The real child (graphbench.cli.child) with both pipes; returns the
    process, the record path, the parent's ends (go write, timed read)."""
    config, record = tmp_path / "config0.json", tmp_path / "process0.json"
    config.write_text(__import__("json").dumps(to_json(RunConfig())))
    go_read, go_write = os.pipe()
    timed_read, timed_write = os.pipe()
    child = subprocess.Popen(processes.child_command(str(config), str(record), go_read,
                                                     timed_write),
                             pass_fds=(go_read, timed_write), stderr=subprocess.PIPE, text=True)
    os.close(go_read)
    os.close(timed_write)
    return child, record, go_write, timed_read


def test_a_child_told_nothing_says_it_imported_and_exits_without_measuring(tmp_path):
    child, record, go_write, timed_read = real_child(tmp_path)
    os.close(go_write)  # the parent gives up before its turn
    assert child.wait(timeout=60) == EXIT_INTERRUPTED
    assert os.read(timed_read, 2) == processes.IMPORTED and not record.exists()
    assert os.read(timed_read, 1) == b""
    os.close(timed_read)


def test_a_child_whose_parent_is_gone_before_its_imports_end_exits_quietly(tmp_path):
    child, record, go_write, timed_read = real_child(tmp_path)
    os.close(timed_read)  # nobody left to hear it
    os.close(go_write)
    assert child.wait(timeout=60) == EXIT_INTERRUPTED
    assert child.stderr.read() == "" and not record.exists()


def test_a_child_ends_with_its_own_exit_code_and_message_skipping_finalization(tmp_path):
    # the child leaves by os._exit (graphbench.cli.child.exit_now): its code and
    # its one error line must still reach the parent
    bad = tmp_path / "config0.json"
    bad.write_text('{"elements": "many"}')
    ended = subprocess.run(processes.child_command(str(bad), str(tmp_path / "r.json")),
                           capture_output=True, text=True, timeout=60)
    assert ended.returncode == 2 and ended.stdout == ""
    lines = ended.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("graphbench: error: config.elements: expected a whole number")


@pytest.mark.slow
def test_a_process_that_never_says_its_timing_is_over_is_followed_all_the_same(
        monkeypatch, stand_in):
    log, _ = stand_in
    def never_said(self):
        self.process.wait()  # it ended without a word (as a child that failed would)
        return False

    monkeypatch.setattr(processes.Child, "timed", never_said)
    sets = processes.run_sets([RunConfig()], 3)
    assert [r.runs[0].seed for r in sets[0]] == [0, 1, 2]
    for index in (0, 1):  # still one on the GPU at a time
        assert at(log, "exit", index) < at(log, "go", index + 1)
