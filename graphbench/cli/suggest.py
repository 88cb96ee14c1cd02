""""Did you mean" for the command line: the option or sub-command nearest
to an unknown one (graphbench.spelling), read from argparse's own parsers
so that a new option or command is suggested with no list to keep."""

from __future__ import annotations

import re

from graphbench.spelling import nearest


def parser_options(parser) -> list[str]:
    return [o for action in parser._actions for o in action.option_strings if o.startswith("--")]


def subparser(parser, command: str | None):
    """The sub-command's own parser (argparse keeps them in its choices)."""
    for action in parser._actions:
        choices = getattr(action, "choices", None)
        if isinstance(choices, dict) and command in choices:
            return choices[command]
    return None


def unknown_option_hint(message: str, parser) -> str | None:
    """'did you mean --elements?' for argparse's 'unrecognized arguments: --elments 5'."""
    if not message.startswith("unrecognized arguments:"):
        return None
    options = parser_options(parser)
    for token in message.split(":", 1)[1].split():
        word = token.split("=", 1)[0]
        if word.startswith("--") and (match := nearest(word, options)):
            return f"did you mean {match}?"
    return None


def commands(parser) -> list[str]:
    return [name for action in parser._actions
            if isinstance(getattr(action, "choices", None), dict) for name in action.choices]


def unknown_command_hint(message: str, parser) -> str | None:
    found = re.match(r"argument COMMAND: invalid choice: '([^']*)'", message)
    match = nearest(found.group(1), commands(parser)) if found else None
    return f"did you mean {match}?" if match else None
