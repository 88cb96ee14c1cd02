""""Did you mean": the nearest known name to a mistyped option, sub-command
or shipped pipeline, in the one line of the usage error."""

import pytest

from graphbench.cli import main
from graphbench.spelling import nearest


@pytest.mark.parametrize("typed, known, expected", [
    ("--elments", ["--elements", "--depth"], "--elements"),
    ("rnu", ["run", "sweep", "report"], "run"),
    ("sofmax", ["softmax", "jacobi"], "softmax"),
    ("--xyz", ["--elements", "--depth"], None),
    ("", ["run"], None),
])
def test_the_nearest_known_name_or_none(typed, known, expected):
    assert nearest(typed, known) == expected


@pytest.mark.parametrize("argv, hint", [
    (["run", "--elments", "5"], "(did you mean --elements?); see graphbench run --help"),
    (["sweep", "--dpeth", "3"], "(did you mean --depth?); see graphbench sweep --help"),
    (["report", "--jsn", "x"], "(did you mean --json?); see graphbench report --help"),
    (["rnu"], "(did you mean run?)"),
    (["run", "--pipeline", "sofmax"], "not found (did you mean softmax?)"),
])
def test_a_mistyped_name_is_one_line_that_names_the_nearest(argv, hint, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and hint in err[0]


def test_nothing_close_suggests_nothing(capsys):
    assert main(["run", "--xyz"]) == 2
    assert "did you mean" not in capsys.readouterr().err
