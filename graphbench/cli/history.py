"""The results history on the command line: `history list|export|import`,
`run --save` (with --history and --commit) and the stored-record references
compare takes (graphbench.history.refs says how they are resolved)."""

from __future__ import annotations

import argparse
import re
import sys
from datetime import datetime, timedelta, timezone

from graphbench.cli.history_files import is_file
from graphbench.cli.progress import console
from graphbench.errors import EXIT_OK, EXIT_USAGE, GraphbenchError, UsageError
from graphbench.history.keys import SHORT_ID, Key, key_for, utc
from graphbench.history.store import History
from graphbench.limits import MIN_SERIES

HISTORY_HELP = ("the results history: a SQLite file (default: .graphbench/history.db in the "
                "git repository's root, else in the working directory; or $GRAPHBENCH_HISTORY) "
                "or a PostgreSQL database, postgresql://USER@HOST/DB")
REFERENCES = f"""\
references:
  BASELINE and CURRENT are record files, or records stored with run --save
  (docs/history.md). A path that exists is always the file, and so is a name
  ending in .json. Anything else is looked up in --history, in this order:
    last         as BASELINE, with a record file as CURRENT: CURRENT's series (its
                 pipeline, machine class and configuration) where {MIN_SERIES} or more
                 earlier records of it are stored, judged against its level;
                 else the newest stored run record of the other side's pipeline
                 and machine (never the other side itself); the newest of all
                 when the other side is a reference too
    HEX          a stored record's id (history list shows 10 digits), or a
                 stored commit, full or its unique start
    REVISION     a branch, tag or revision of the repository here (main, v1.0,
                 HEAD~1), through git rev-parse: the newest record at its commit
  For a commit, the other side's pipeline and machine are matched as for last.
  A reference that names nothing is one line and exit 2.
"""
LIST_EXAMPLES = """\
examples:
  graphbench history list                                  # the newest 20
  graphbench history list --pipeline softmax --since 7d --json -
  graphbench history export last --json latest.json        # a stored record, as run --json wrote it
  graphbench history import results/gate/*.json --commit 1a2b3c4
  graphbench history list --history postgresql://ci@db.example/graphbench
"""
COMMIT_DIGITS = 8
LIST_COLUMNS = ("id", "created (UTC)", "commit", "pipeline", "series", "machine", "GPU",
                "step starts here")


def add_history_option(parser) -> None:
    parser.add_argument("--history", metavar="FILE|URL", help=HISTORY_HELP)


def add_save_options(run) -> None:
    run.add_argument("--save", action="store_true", help="store each record in the results "
                     "history, filed under machine, commit, pipeline and time (docs/history.md)")
    add_history_option(run)
    run.add_argument("--commit", metavar="SHA", help="with --save: the commit to file the "
                     "records under (default: git rev-parse HEAD here; none outside a repository)")


def add_history(commands) -> None:
    history = commands.add_parser(
        "history", help="list, export and import stored records",
        description="The results history: records stored by run --save or history import, "
        "each filed under machine, commit, pipeline and time.", epilog=LIST_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = history.add_subparsers(dest="history_command", metavar="ACTION",
                                     parser_class=type(history), required=True)
    listing = actions.add_parser("list", help="stored records, newest first, each with its "
                                 "series and the steps of its series that start at it")
    for flag, what in (("--pipeline", "NAME|FILE"), ("--commit", "SHA")):
        listing.add_argument(flag, metavar=what, help=f"only records of this {flag[2:]}")
    add_machine_option(listing)
    listing.add_argument("--since", type=since, metavar="WHEN", help="only records made on or "
                         "after WHEN: 2026-12-01, 2026-12-01T10:00, 7d or 12h ago")
    listing.add_argument("--limit", type=limit, default=20, metavar="N",
                         help="at most N records (default 20)")
    listing.add_argument("--json", metavar="FILE", help="write the listing as JSON (- for "
                         "standard output)")
    export = actions.add_parser("export", help="write a stored record back out")
    export.add_argument("ref", metavar="ID|REF", help="a record id, last, a commit or a branch")
    export.add_argument("--json", metavar="FILE", help="where (default - : standard output)")
    imports = actions.add_parser("import", help="store existing record files")
    imports.add_argument("files", nargs="+", metavar="FILE", help="records written with --json")
    imports.add_argument("--commit", metavar="SHA", help="the commit to file them under "
                         "(default: git rev-parse HEAD here; none outside a repository)")
    from graphbench.cli.history_html import add_html

    html = add_html(actions)
    add_machine_option(html)
    for action in (listing, export, imports, html):
        add_history_option(action)
        action.add_argument("--quiet", "-q", action="store_true", help="print only errors")


def add_machine_option(parser) -> None:
    parser.add_argument("--machine", type=machine, metavar="ID|UUID|GPU",
                        help="only records of this machine: its id (or its start), its GPU's "
                        "UUID (or its start, with or without GPU-) or its GPU's model")


def machine(text: str) -> str:
    """--machine as given, unless it says nothing (it would match every machine)."""
    from graphbench.history.sql import bare_uuid

    if not bare_uuid(text):
        raise UsageError(f"--machine {text!r} names no machine",
                         "give its id, its GPU's UUID (or its start) or its GPU's model, as "
                         "graphbench history list shows them")
    return text.strip()


def since(text: str) -> str:
    """--since as a UTC time: an ISO date or time, or Nd / Nh before now."""
    found = re.fullmatch(r"\s*(\d{1,5})\s*([dh])\s*", text)
    if found:
        unit = "days" if found.group(2) == "d" else "hours"
        moment = datetime.now(timezone.utc) - timedelta(**{unit: int(found.group(1))})
        return moment.isoformat(timespec="microseconds")
    try:
        return utc(text.strip(), "--since")
    except GraphbenchError:
        raise UsageError(f"--since {text!r} is not a time between 0001-01-01 and 9999-12-31 "
                         "UTC", "e.g. 2026-12-01, 2026-12-01T10:00, 7d or 12h") from None


def limit(text: str) -> int:
    if not re.fullmatch(r"\s*\d{1,9}\s*", text) or int(text) < 1:
        raise UsageError(f"--limit {text!r} is not a count of 1 or more", "e.g. --limit 50")
    return int(text)


def cmd_history(args) -> int:
    from graphbench.cli.history_html import history_html

    action = {"list": history_list, "export": history_export, "import": history_import,
              "html": history_html}
    return action[args.history_command](args)


def history_list(args) -> int:
    from graphbench.cli import outputs
    from graphbench.report.outputs import json_text
    from graphbench.record.printable import printable

    from graphbench.cli.series import Listed, listed_series

    with History.open(args.history, create=False) as history:
        keys = history.keys(limit=args.limit, pipeline=args.pipeline, machine=args.machine,
                            commit=args.commit.lower() if args.commit else None,
                            since=args.since)
        series, refused = listed_series(history, keys)
        where = history.where
    none = Listed("")
    if args.json:
        document = {"schema": "graphbench/history-list", "schema_version": 2, "history": where,
                    "records": [{**key.as_json(), **series.get(key.id, none).as_json()}
                                for key in keys]}
        outputs.emit("listing", args.json, json_text(document))
    if keys:
        console().print(listing_table([listing_row(key, series.get(key.id, none))
                                       for key in keys]))
    console().print(f"{len(keys) or 'no'} stored record{'s' * (len(keys) != 1)}"
                    f"{' match' * (len(keys) == 0)}, newest first, in {printable(where)}"
                    + (f"; {refused} stored record(s) of their series could not be read, and "
                       "their steps leave them out" if refused else ""), style="dim")
    return EXIT_OK


def listing_table(rows: list[tuple[str, ...]]):
    """Every column left-aligned; narrower than it needs, the rows stacked."""
    from rich import box
    from rich.table import Table

    from graphbench.report.tables import responsive

    table = Table(header_style="bold", box=box.SIMPLE_HEAD, show_edge=False,
                  padding=0, pad_edge=False)
    for column in LIST_COLUMNS:
        table.add_column(column, no_wrap=True)
    for row in rows:
        table.add_row(*row)
    return responsive(table, LIST_COLUMNS, rows)


def listing_row(key: Key, series) -> tuple:
    """Every cell as plain text: a stored row is untrusted, so no control
    character reaches the terminal and no [markup] of rich's is read.
    `series`: the record's series and the steps that start at it
    (graphbench.cli.series.Listed)."""
    from rich.text import Text

    from graphbench.record.printable import printable

    pipeline = key.pipeline if key.pipeline_file in ("built-in", "", key.pipeline) \
        else f"{key.pipeline} ({key.pipeline_file})"
    if key.kind != "run":
        pipeline += f" ({key.kind})"
    cells = (key.id[:SHORT_ID], key.created[:16].replace("T", " "),
             (key.git_commit or "-")[:COMMIT_DIGITS], pipeline, series.series or "-",
             key.machine, key.gpu_name or "-", series.step_text())
    return tuple(Text(printable(str(cell))) for cell in cells)


def history_export(args) -> int:
    from graphbench.cli import outputs
    from graphbench.history.refs import resolve

    with History.open(args.history, create=False) as history:
        key = resolve(history, args.ref, kind=None)
        text = history.document(key.id)
    outputs.emit("record", args.json or "-", text)
    return EXIT_OK


def history_import(args) -> int:
    """Each file read by the record reader and stored; a bad one is one line
    and the rest go on (exit 2 if any was refused)."""
    from graphbench.history.repo import run_commit
    from graphbench.record.codec import read_record
    from graphbench.record.files import read_text
    from graphbench.record.printable import printable

    commit = run_commit(args.commit)  # as run --save: HEAD here unless --commit
    refused = 0
    with History.open(args.history, create=True) as history:
        for path in args.files:
            try:
                record, text = read_record(path), read_text(path)
                key = key_for(record, text, commit)
                new = history.save(key, text)
            except GraphbenchError as exc:
                refused += 1
                print(printable(f"graphbench: error: {path}: not stored: {exc.one_line()}"),
                      file=sys.stderr)
                continue
            console().print(f"{'stored' if new else 'already stored'} {key.id[:SHORT_ID]}  "
                            f"{path}")
    return EXIT_USAGE if refused else EXIT_OK


# --- run --save -------------------------------------------------------------------

def open_for_save(args) -> None:
    """Before any GPU work: the history run --save will store in, opened once
    (its tables made on first use), and the commit to file the records under."""
    from graphbench.history.backends import location
    from graphbench.history.repo import run_commit

    if not getattr(args, "save", False):
        if getattr(args, "history", None) or getattr(args, "commit", None):
            raise UsageError("--history and --commit say where run --save stores the records",
                             "add --save")
        return
    args.saved_commit = run_commit(args.commit)
    args.saved_history = location(args.history)
    History.open(args.saved_history, create=True).close()


def save_run(args, record) -> None:
    """Store one record of run --save, as its --json text, over a connection
    of its own (a run may outlast an idle connection)."""
    from graphbench.report.outputs import record_text

    where = getattr(args, "saved_history", None)
    if where is None:
        return
    text = record_text(record)
    key = key_for(record, text, args.saved_commit)
    with History.open(where, create=True) as history:
        history.save(key, text)
        shown = history.where
    commit = f" at commit {key.git_commit[:COMMIT_DIGITS]}" if key.git_commit else ""
    console().print(f"record stored as {key.id[:SHORT_ID]}{commit} in {shown}", style="dim")


# --- compare's references ---------------------------------------------------------

def compare_records(args) -> list[tuple[object, str]]:
    """compare's BASELINE and CURRENT (or the one A/B record) as (record,
    name): a path that exists, or ends in .json, is the file; anything else
    a reference into the history (graphbench.history.refs)."""
    from graphbench.history.refs import resolve
    from graphbench.record.codec import read_run

    given = [args.baseline] + ([args.current] if args.current is not None else [])
    files = {i: (read_run(text), text) for i, text in enumerate(given) if is_file(text)}
    if len(files) == len(given):
        return [files[i] for i in range(len(given))]
    found: list[tuple[object, str]] = []
    with History.open(getattr(args, "history", None), create=False) as history:
        for i, text in enumerate(given):
            if i in files:
                found.append(files[i])
                continue
            key = resolve(history, text, _side(files.get(1 - i)))
            found.append(_stored(history, key, text))
    return found


def _side(file: tuple | None):
    """What `last` and commits match of the other side, a record file; None: no file."""
    from graphbench.history.refs import Side
    from graphbench.record.files import read_text

    return None if file is None else Side.of_file(file[0], read_text(file[1]))


def _stored(history: History, key: Key, ref: str) -> tuple[object, str]:
    from graphbench.history.documents import run_from_text

    name = f"{ref} ({key.id[:SHORT_ID]})" if ref != key.id else key.id[:SHORT_ID]
    return run_from_text(history.document(key.id), f"stored record {name}"), name
