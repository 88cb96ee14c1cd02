"""A project's defaults for the command line, from its pyproject.toml:

    [tool.graphbench]            # every command that has the option
    max-noise = "2%"
    fail-on = ["graph.wall:10%", "individual.busy:5%"]
    [tool.graphbench.run]        # one command's own
    processes = 3
    baseline = "perf/baseline.json"

A key is an option's long name without its dashes, read by the option's own
parser, so a default is checked exactly as the option typed would be. An
option given on the command line replaces the project's (a list option too).
The file is the first pyproject.toml found from the working directory up to
the repository's root."""

from __future__ import annotations

import sys
from pathlib import Path

from graphbench.errors import UsageError
from graphbench.spelling import nearest

TABLE = "tool.graphbench"
GATED_BY = {"--baseline", "--ab"}  # what run's --fail-on judges against


def find_pyproject(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        if (folder / "pyproject.toml").is_file():
            return folder / "pyproject.toml"
        if (folder / ".git").exists():
            return None
    return None


def read_table(path: Path) -> dict:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        try:
            import tomli as tomllib
        except ImportError:
            raise UsageError(f"{path} has [{TABLE}], which needs Python 3.11 or tomli to read",
                             "pip install tomli") from None
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"{path}: cannot read it: {exc}", "fix the file, or run elsewhere") \
            from None
    table = data.get("tool", {}).get("graphbench", {})
    if not isinstance(table, dict):
        raise UsageError(f"{path}: [{TABLE}] must be a table")
    return table


def project_options(table: dict, command: str, actions: dict, commands: list[str],
                    where: str) -> dict[str, list[str]]:
    """The tokens of each option `table` sets for `command` (actions: its long
    options by name), by flag; UsageError for a key of the command's own
    table that it has no option for, or a value of the wrong kind."""
    own = table.get(command, {})
    if not isinstance(own, dict):
        raise UsageError(f"{where}: [{TABLE}.{command}] must be a table")
    shared = {k: v for k, v in table.items() if k not in commands}
    options: dict[str, list[str]] = {}
    for key, value in {**shared, **own}.items():
        if key not in actions:
            if key in own:
                _unknown(key, actions, f"{where} [{TABLE}.{command}]")
            continue  # a shared key for other commands
        options[f"--{key}"] = _tokens(actions[key], key, value, where)
    return options


def _unknown(key: str, actions: dict, where: str) -> None:
    close = nearest(key, actions)
    raise UsageError(f"{where}: no option --{key}" + (f" (did you mean {close}?)" if close else ""),
                     "use an option's long name without its dashes")


def _tokens(action, key: str, value, where: str) -> list[str]:
    flag = f"--{key}"
    if action.nargs == 0:  # a flag: true sets it, false leaves it
        if not isinstance(value, bool):
            raise UsageError(f"{where}: {key} = {value!r}: a flag takes true or false")
        return [flag] if value else []
    if isinstance(value, bool) or isinstance(value, dict):
        raise UsageError(f"{where}: {key} = {value!r}: give the value as on the command line")
    if isinstance(value, list):
        if action.__class__.__name__ == "_AppendAction" or getattr(action, "repeatable", False):
            return [t for item in value for t in (flag, str(item))]
        value = ",".join(str(item) for item in value)
    return [flag, str(value)]


def with_project_defaults(argv: list[str], parser, start: Path | None = None) -> list[str]:
    """argv with the project's defaults for its command inserted after the
    command's name, except options argv gives itself."""
    from graphbench.cli.suggest import commands, parser_options, subparser

    command = argv[0] if argv else None
    own = subparser(parser, command)
    path = find_pyproject(start or Path.cwd()) if own is not None else None
    table = read_table(path) if path else {}
    if not table:
        return argv
    actions = {o[2:]: a for a in own._actions for o in a.option_strings if o.startswith("--")}
    names = commands(parser)
    anywhere = {o[2:] for name in names for o in parser_options(subparser(parser, name))}
    for key in table:
        if key not in names and key not in anywhere:
            _unknown(key, anywhere, f"{path} [{TABLE}]")
    options = project_options(table, command, actions, names, str(path))
    given = {t.split("=", 1)[0] for t in argv[1:] if t.startswith("--")}
    if command == "run" and not (given | set(options)) & GATED_BY:
        options.pop("--fail-on", None)  # a shared gate for compare: a plain run has nothing to gate
    kept = [t for flag, tokens in options.items() if flag not in given for t in tokens]
    if kept:
        print(f"graphbench: defaults from {path} [{TABLE}]: {' '.join(kept)}", file=sys.stderr)
    return [command, *kept, *argv[1:]]
