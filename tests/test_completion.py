"""`graphbench completion SHELL` (graphbench/cli/completion.py): the script
shtab makes of the parsers offers every command and option, checked in a
real bash with its own completion machinery; without shtab, graphbench
works and the command says how to add it.

Covers graphbench/cli/suggest.py."""

import shutil
import subprocess
import sys

import pytest

from graphbench.cli import main
from graphbench.cli.completion import ENABLE, SHELLS, completion_script
from graphbench.cli.parser import build_parser
from graphbench.cli.suggest import commands

shtab = pytest.importorskip("shtab")
BASH = shutil.which("bash")


def completions(script: str, line: str) -> set[str]:
    """What bash offers at the end of `line`, by the function the script
    registers for graphbench with `complete`."""
    words = line.split(" ")
    program = f"""
source "$1"
spec=$(complete -p graphbench) || exit 3
function=$(sed -E 's/.* -F ([^ ]+) .*/\\1/' <<< "$spec")
COMP_LINE="$2"; COMP_POINT=${{#COMP_LINE}}
read -r -a COMP_WORDS <<< "$2"
[[ "$2" == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))
"$function" graphbench "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"
printf '%s\\n' "${{COMPREPLY[@]}}"
"""
    done = subprocess.run([BASH, "-c", program, "bash", script, line], capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert words[0] == "graphbench"
    return {word for word in done.stdout.split("\n") if word}


@pytest.fixture(scope="module")
def bash_script(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("completion") / "graphbench.bash"
    path.write_text(completion_script("bash", build_parser()))
    return str(path)


def test_the_command_prints_the_script_for_each_shell(capsys):
    for shell in SHELLS:
        assert main(["completion", shell]) == 0
        out = capsys.readouterr().out
        assert "graphbench" in out and "sweep" in out
        assert "--param" in out or shell == "tcsh"  # shtab's tcsh script: the commands


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
def test_bash_offers_every_command(bash_script):
    assert completions(bash_script, "graphbench ") >= set(commands(build_parser()))
    assert completions(bash_script, "graphbench sw") == {"sweep"}
    assert completions(bash_script, "graphbench completion ") == set(SHELLS)


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
def test_bash_offers_each_command_s_own_options(bash_script):
    assert completions(bash_script, "graphbench sweep --par") == {"--param"}
    assert {"--max-noise", "--min-rounds", "--max-time"} <= \
        completions(bash_script, "graphbench run --m")
    assert "--elements" not in completions(bash_script, "graphbench report --")
    assert "list" in completions(bash_script, "graphbench history ")


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
def test_bash_offers_files_where_an_option_takes_one(bash_script, tmp_path, monkeypatch):
    (tmp_path / "base.json").write_text("{}")
    monkeypatch.chdir(tmp_path)
    assert "base.json" in completions(bash_script, "graphbench compare ")
    assert "base.json" in completions(bash_script, "graphbench run --baseline ")


def test_without_shtab_graphbench_works_and_the_command_says_how_to_add_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "shtab", None)  # import shtab raises ImportError
    assert main(["completion", "bash"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and 'pip install ".[completion]"' in err
    assert main(["report", "tests/records/baseline.json", "--quiet"]) == 0


def test_graphbench_imports_no_shtab_until_asked():
    done = subprocess.run([sys.executable, "-c", "import sys; from graphbench.cli.parser import "
                           "build_parser; build_parser(); print('shtab' in sys.modules)"],
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "False", done.stderr


def test_the_help_says_the_one_command_that_enables_it(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    assert ENABLE["bash"] in capsys.readouterr().out  # on one line, to copy
    with pytest.raises(SystemExit):
        main(["completion", "--help"])
    out = capsys.readouterr().out
    assert all(line in out for line in ENABLE.values())
