"""`graphbench history html DIR`: the stored run records as static trend
pages (graphbench.report.trend_page), one per series (a pipeline on one
machine class in one configuration) and an index, written into DIR."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from graphbench.cli.progress import console
from graphbench.errors import EXIT_OK, EXIT_USAGE, GraphbenchError
from graphbench.history.keys import SHORT_ID
from graphbench.history.store import History


def add_html(actions: Any) -> argparse.ArgumentParser:
    """The `history html` action's parser, under `history`'s actions."""
    html: argparse.ArgumentParser = actions.add_parser(
        "html", help="trend pages of the stored run records, as static HTML (docs/history.md)")
    html.add_argument("directory", metavar="DIR", help="the folder to write the pages into: "
                      "a new or empty one, or one history html wrote (its index.html links "
                      "every page)")
    html.add_argument("--pipeline", metavar="NAME|FILE", help="only records of this pipeline")
    return html  # --machine, as history list's: graphbench.cli.history


def history_html(args: argparse.Namespace) -> int:
    """Every stored run record read back and drawn; a record the reader
    refuses is one line on stderr, the pages are written without it (exit 2).
    The folder is checked first (graphbench.cli.site_folder)."""
    from graphbench.cli.history_files import history_files
    from graphbench.cli.site_folder import site_files, write_site
    from graphbench.history.documents import run_from_text
    from graphbench.record.printable import printable
    from graphbench.report.trend_page import INDEX, site

    before = site_files(args.directory)
    runs, refused = [], 0
    with History.open(args.history, create=False) as history:
        keys = history.keys(pipeline=args.pipeline, machine=args.machine, kind="run")
        for key in keys:
            try:
                runs.append((key, run_from_text(history.document(key.id),
                                                f"stored record {key.id[:SHORT_ID]}")))
            except GraphbenchError as exc:
                refused += 1
                print(printable(f"graphbench: error: {exc.one_line()}"), file=sys.stderr)
    pages = site(runs)
    write_site(args.directory, pages, before, history_files(args))
    if not getattr(args, "quiet", False):
        folder = Path(args.directory)
        console().print(f"{len(pages) - 1} trend page(s) of {len(runs)} record(s) written to "
                        f"{printable(str(folder))}; open {printable(str(folder / INDEX))}",
                        style="dim")
    return EXIT_USAGE if refused else EXIT_OK
