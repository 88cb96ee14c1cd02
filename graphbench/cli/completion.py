"""`graphbench completion SHELL`: the shell's completion script, made from
graphbench's own parsers by shtab (the `completion` extra), so that every
command and option completes with no list to keep. graphbench runs without
shtab; only this command needs it, and says how to add it."""

from __future__ import annotations

import argparse

from graphbench._version import install_command
from graphbench.errors import UsageError

SHELLS = ("bash", "zsh", "tcsh")
# the one command that enables completion, for each shell (bash-completion
# loads a command's script from this folder the first time it completes it)
BASH_FOLDER = "~/.local/share/bash-completion/completions"
ENABLE = {"bash": f"mkdir -p {BASH_FOLDER} && graphbench completion bash > "
                  f"{BASH_FOLDER}/graphbench",
          "zsh": 'graphbench completion zsh > "${fpath[1]}/_graphbench"',
          "tcsh": "graphbench completion tcsh > ~/.graphbench.tcsh; "
                  "echo 'source ~/.graphbench.tcsh' >> ~/.tcshrc"}
EPILOG = ("shell completion (the completion extra; other shells: graphbench completion "
          f"--help):\n  {ENABLE['bash']}")
PATHS = ("baseline", "current", "files")  # positional arguments that name record files


def add_completion(commands) -> None:
    lines = "\n".join(f"  {shell}: {line}" for shell, line in ENABLE.items())
    completion = commands.add_parser(
        "completion", help="print the shell's completion script (needs the completion extra)",
        description="Print the completion script of graphbench's commands and options for\n"
        "SHELL, made from its own parsers by shtab.",
        epilog=f"enable it once, then start a new shell:\n{lines}\n"
        f"shtab comes with the completion extra: {install_command('completion')}",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    completion.add_argument("shell", choices=SHELLS, metavar="SHELL",
                            help=f"the shell: {', '.join(SHELLS)}")


def completion_script(shell: str, parser) -> str:
    """The script shtab makes of graphbench's parser (build_parser's), file
    names completed where an option or argument takes a file."""
    try:
        import shtab
    except ImportError:
        raise UsageError("shell completion needs shtab, which is not installed",
                         install_command("completion")) from None
    for action in _actions(parser):
        if "FILE" in str(action.metavar or "") or action.dest in PATHS:
            action.complete = shtab.FILE  # type: ignore[attr-defined]
    return shtab.complete(parser, shell=shell)


def _actions(parser):
    """Every action of `parser` and of its sub-commands' parsers."""
    for action in parser._actions:
        yield action
        choices = getattr(action, "choices", None)
        if isinstance(choices, dict):  # a sub-command's parser by its name
            for sub in choices.values():
                yield from _actions(sub)
