"""A project's [tool.graphbench] defaults in its pyproject.toml: applied
to the command they name, read by each option's own parser, replaced by an
option on the command line, said in one line; a key that is no option is
refused naming the nearest."""

import textwrap

import pytest
from tests_helpers import short_error

from graphbench.cli import main
from graphbench.cli.parser import build_parser
from graphbench.cli.project_defaults import with_project_defaults


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)

    def write(text: str):
        (tmp_path / "pyproject.toml").write_text(textwrap.dedent(text))
        return tmp_path
    return write


def expanded(argv):
    return with_project_defaults(argv, build_parser())


def test_shared_and_command_defaults_go_after_the_command(project, capsys):
    project("""
        [tool.graphbench]
        max-noise = "0.5%"
        fail-on = ["graph.wall:10%", "individual.busy:5%"]
        [tool.graphbench.run]
        processes = 3
        baseline = "base.json"
    """)
    assert expanded(["run", "--elements", "8"]) == [
        "run", "--max-noise", "0.5%", "--fail-on", "graph.wall:10%", "--fail-on",
        "individual.busy:5%", "--processes", "3", "--baseline", "base.json", "--elements", "8"]
    assert "defaults from" in capsys.readouterr().err
    # compare has --fail-on but not --max-noise or run's own keys
    assert expanded(["compare", "a", "b"]) == [
        "compare", "--fail-on", "graph.wall:10%", "--fail-on", "individual.busy:5%", "a", "b"]


def test_an_option_on_the_command_line_replaces_the_project_s(project):
    project("""
        [tool.graphbench]
        fail-on = ["graph.wall:10%"]
        [tool.graphbench.run]
        processes = 3
        baseline = "base.json"
    """)
    argv = expanded(["run", "--processes=1", "--fail-on", "graph.busy:2%"])
    assert argv == ["run", "--baseline", "base.json", "--processes=1", "--fail-on", "graph.busy:2%"]


def test_a_shared_gate_is_left_out_of_a_run_with_nothing_to_gate(project):
    project("""
        [tool.graphbench]
        fail-on = ["graph.wall:10%"]
    """)
    assert expanded(["run"]) == ["run"]
    assert expanded(["run", "--ab", "base.cu"])[:3] == ["run", "--fail-on", "graph.wall:10%"]


def test_a_flag_takes_true_or_false(project):
    project("""
        [tool.graphbench.run]
        flush-l2 = true
        no-pin = false
    """)
    assert expanded(["run"]) == ["run", "--flush-l2"]


@pytest.mark.parametrize("table, said", [
    ("[tool.graphbench]\nmax-nosie = '1%'", "no option --max-nosie (did you mean max-noise?)"),
    ("[tool.graphbench.run]\nbaselin = 'b.json'", "no option --baselin (did you mean baseline?)"),
    ("[tool.graphbench.run]\nflush-l2 = 'yes'", "a flag takes true or false"),
    ("[tool.graphbench.run]\nprocesses = {n = 3}", "give the value as on the command line"),
    ("[tool.graphbench]\nrun = 3", "[tool.graphbench.run] must be a table"),
    ("[tool.graphbench\n", "cannot read it"),
    ("[tool.graphbench.run]\nmax-noise = 'lots'", "--max-noise"),
])
def test_a_bad_default_is_one_line_naming_the_file(project, capsys, table, said):
    folder = project(table)
    assert main(["run"]) == 2
    err = capsys.readouterr().err  # the error, after the line naming the defaults where read
    assert said in short_error(err[err.index("graphbench: error: "):]) and "Traceback" not in err
    if "cannot read" in said or "no option" in said:  # a long path is shown by its ends
        assert f"{folder.name[-5:]}/pyproject.toml" in err
        assert main(["run", "-v"]) == 2
        assert str(folder / "pyproject.toml") in capsys.readouterr().err  # -v: all of it


def test_no_pyproject_or_no_table_changes_nothing(project, tmp_path):
    assert expanded(["run", "--elements", "8"]) == ["run", "--elements", "8"]
    project("[tool.black]\nline-length = 100\n")
    assert expanded(["report", "x.json"]) == ["report", "x.json"]


def test_the_search_stops_at_the_repository_root(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[tool.graphbench]\nmax-noise = '2%'\n")
    inner = tmp_path / "repo" / "src"
    inner.mkdir(parents=True)
    (tmp_path / "repo" / ".git").mkdir()
    monkeypatch.chdir(inner)
    assert expanded(["run"]) == ["run"]
