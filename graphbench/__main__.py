import os
import sys

from graphbench.cli import main

code = main()
from graphbench.cli.reading import LEFT_TO_EXIT  # noqa: E402 - main imported it if it read records

if LEFT_TO_EXIT:  # report or compare read records: the process's end frees them, not Python
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:  # None: started with the stream closed
                stream.flush()
    except OSError:  # a reader that left, a full disk: the output is incomplete
        code = code or 2
    os._exit(code)
raise SystemExit(code)
