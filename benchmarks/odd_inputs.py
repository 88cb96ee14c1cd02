"""Odd inputs against every entry point, as a new user would try them, each
outcome judged automatically.

    python3 benchmarks/odd_inputs.py --json details.json [--summary FILE] [--tree REV]

The cases are generated deterministically (fixed seed): every command's
options with odd values, odd input and output paths (/dev/full, /proc,
FIFOs, sockets, folders, read-only files, files that must survive), odd
pipeline files (kernel and callable), mutated record files (truncated,
wrong types, huge numbers, control characters, deep nesting, other
versions), the Python API with odd argument types and values, the pytest
plugin's options and fixture, odd environments (no HOME, an unwritable
cache folder), odd standard streams (closed, full, a reader gone) and the
results history (files that are no history, an output on it, a URL with a
password, odd folders for its site).

Each case runs in its own folder of fixture files, with a timeout, two at a
time at most: in a forked copy of a process that has imported graphbench
(fast), or, for streams and environments, as a fresh `python -m graphbench`.
An outcome is mishandled when it shows a traceback, exits with a code the
entry point does not use, says more than two lines (or one of more than
200 characters; -v shows the rest), writes control characters, shows a
password it was given, damages or removes a file that was there, leaves a
file behind after a failure, hangs, accepts an input that cannot be right,
or reaches the driver check with one; from the API, when it raises anything but a
graphbench error, a chained one, one without a remedy or one that names a
command-line flag instead of the argument. The summary goes to stdout (and
to --summary FILE), every case's details to --json FILE.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from odd_input_cases import ROOT, SEED, all_cases  # noqa: E402

TIMEOUT_S = 30.0
DRIVER = ("no NVIDIA driver found", "reports no usable GPU", "reports no GPU")
NOBODY = 65534
CLI_CODES, PLUGIN_CODES = {0, 1, 2, 130}, {0, 1, 4, 5}
STREAMS = ("full", "reader-gone")  # where --json - sends the report to stderr
LONGEST = 200  # characters of a line of an error, and of an API error's str()
MOST_LINES = 2   # of a command's error: the message, and the remedy where it has no room


# -- the sandbox each case runs in --------------------------------------------------------------

def sandbox(parent: Path, cache: Path) -> Path:
    """A folder of fixture files: records, sources, pipelines, files that
    must survive, a FIFO, a socket, links, read-only things."""
    from odd_input_cases import FIXTURES

    box = parent / "box"
    box.mkdir()
    for name, content in FIXTURES.items():
        path = box / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Path):
            shutil.copyfile(content, path)
        else:
            path.write_bytes(content if isinstance(content, bytes) else content.encode())
    (box / "sub").mkdir(exist_ok=True)
    (box / "open").mkdir()
    (box / "rodir").mkdir()
    os.chmod(box / "ro.txt", 0o444)
    os.chmod(box / "rodir", 0o555)
    os.chmod(box / "open", 0o777)
    os.mkfifo(box / "fifo")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(box / "sock"))
    sock.close()
    os.symlink("keep.txt", box / "link")
    os.symlink("missing.txt", box / "dangling")
    os.chmod(parent, 0o755)
    os.chmod(box, 0o755)
    return box


def snapshot(box: Path) -> dict[str, tuple]:
    """Every path under `box`: its kind, mode and content's digest."""
    seen = {}
    for path in sorted(box.rglob("*")):
        if "__pycache__" in path.parts:
            continue
        st = path.lstat()
        digest = ""
        if stat_is(st, "reg"):
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
        elif stat_is(st, "lnk"):
            digest = os.readlink(path)
        seen[str(path.relative_to(box))] = (st.st_mode, st.st_uid, digest)
    return seen


def stat_is(st, kind: str) -> bool:
    import stat

    return {"reg": stat.S_ISREG, "lnk": stat.S_ISLNK}[kind](st.st_mode)


# -- running one case ---------------------------------------------------------------------------

def snapshot_tree(rev: str, into: Path) -> Path:
    """graphbench/ and kernels/ as of `rev` (a commit; "worktree": the files
    as they are now), copied once: files others edit while the cases run
    cannot change what the cases judge."""
    if rev == "worktree":
        for part in ("graphbench", "kernels"):
            shutil.copytree(ROOT / part, into / part,
                            ignore=shutil.ignore_patterns("__pycache__"))
    else:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "graphbench",
                                  "kernels"], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def warm(tree: str) -> None:
    """Import every module of graphbench (and what it imports) once per
    worker, before any fork: a case run as another user cannot read an
    interpreter installed under /root."""
    import importlib
    import pkgutil

    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
    os.environ["GRAPHBENCH_ODD_TREE"] = tree
    sys.dont_write_bytecode = True
    sys.path.insert(0, tree)
    import pytest  # noqa: F401

    import graphbench

    for module in pkgutil.walk_packages(graphbench.__path__, "graphbench."):
        if module.name.endswith("__main__"):  # runs the command line when imported
            continue
        try:
            importlib.import_module(module.name)
        except Exception:  # an optional dependency (torch) that is not installed
            pass
    import rich

    lazy = [m.name for m in pkgutil.walk_packages(rich.__path__, "rich.")]
    for name in ("cupy", "numpy", "numpy.random", "numpy.linalg", "html", "csv", "xml.sax.saxutils", "matplotlib",
                 "encodings.utf_8_sig", "encodings.latin_1", "encodings.ascii", *lazy):
        try:
            importlib.import_module(name)
        except Exception:
            pass


def run_case(case: dict) -> dict:
    work = Path(tempfile.mkdtemp(prefix="odd-"))
    try:
        cache = Path(os.environ["GRAPHBENCH_ODD_CACHE"])
        box = sandbox(work, cache)
        write_files(box, case.get("files", {}))
        before = snapshot(box)
        started = time.monotonic()
        if case["how"] == "exec":
            rc, hung = exec_case(case, box, work, cache)
        else:
            rc, hung = fork_case(case, box, work, cache)
        outcome = {"rc": rc, "hang": hung, "seconds": round(time.monotonic() - started, 2),
                   "out": read(work / "out"), "err": read(work / "err"),
                   "result": json.loads(read(work / "result.json", None) or "null")}
        outcome["changed"], outcome["new"] = changes(before, snapshot(box), case)
        shown = {**case, "files": sorted(case.get("files", {}))}
        return {**shown, **outcome, "classes": classify(case, outcome)}
    except Exception:  # the tool's own failure: shown, never counted as handled
        return {**case, "classes": ["tool error"], "err": traceback.format_exc()}
    finally:
        subprocess.run(["chmod", "-R", "u+rwx", str(work)], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)


def write_files(box: Path, files: dict) -> None:
    from odd_input_cases import mutate

    for name, content in files.items():
        if isinstance(content, dict) and "history" in content:
            stored_history(box / name, [box / record for record in content["history"]])
            continue
        data = mutate(box, content) if isinstance(content, dict) else content.encode(
            "utf-8", "surrogatepass")
        (box / name).write_bytes(data)


def stored_history(path: Path, records: list[Path]) -> None:
    """A results history holding `records`, made by the graphbench judged."""
    from graphbench.history.documents import record_from_text
    from graphbench.history.keys import key_for
    from graphbench.history.store import History

    with History.open(str(path)) as history:
        for record in records:
            text = record.read_text()
            history.save(key_for(record_from_text(text, record.name), text, None), text)


def read(path: Path, limit: int | None = 20000) -> str:
    try:
        return path.read_bytes().decode("utf-8", "backslashreplace")[:limit]
    except OSError:
        return ""


def changes(before: dict, after: dict, case: dict) -> tuple[list, list]:
    may = set(case.get("outputs", ()))
    changed = [p for p, v in before.items() if p not in may and after.get(p) != v]
    caches = [v.rstrip("/") for k, v in case.get("env", {}).items()  # a cache folder named
              if k in ("GRAPHBENCH_CACHE_DIR", "XDG_CACHE_HOME") and v]  # is made, "\n" too
    new = [p for p in after if p not in before
           and not any(p == c or p.startswith(c + "/") for c in caches)]
    return changed, new


def child_env(case: dict, cache: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in case.get("unset", ())}
    env.update({"GRAPHBENCH_CACHE_DIR": str(cache), "NO_COLOR": "1",
                "PYTHONPATH": os.environ["GRAPHBENCH_ODD_TREE"], "PYTHONDONTWRITEBYTECODE": "1"})
    for key in case.get("unset", ()):
        env.pop(key, None)
    env.update(case.get("env", {}))
    return env


def exec_case(case: dict, box: Path, work: Path, cache: Path) -> tuple[int | None, bool]:
    """A fresh interpreter: standard streams and environments as given."""
    env = child_env(case, cache)
    stdout = case.get("stdout", "file")
    out = {"file": None, "full": "/dev/full", "null": "/dev/null"}.get(stdout)
    files = []
    with open(work / "err", "wb") as err:
        if stdout == "closed":
            target = subprocess.DEVNULL
        elif stdout == "reader-gone":
            r, w = os.pipe()
            os.close(r)
            target = w
            files.append(w)
        else:
            target = open(out or work / "out", "wb")
            files.append(target)
        argv = [sys.executable, *case["argv"]]
        pre = (lambda: os.close(1)) if stdout == "closed" else None
        try:
            proc = subprocess.run(argv, cwd=box, env=env, stdin=subprocess.DEVNULL,
                                  stdout=target, stderr=err, timeout=TIMEOUT_S,
                                  preexec_fn=pre, start_new_session=True)
            rc, hung = proc.returncode, False
        except subprocess.TimeoutExpired:
            rc, hung = None, True
        finally:
            for f in files:
                os.close(f) if isinstance(f, int) else f.close()
    return rc, hung


def fork_case(case: dict, box: Path, work: Path, cache: Path) -> tuple[int | None, bool]:
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 70
        try:
            code = in_child(case, box, work, cache)
        finally:
            os._exit(code)
    started, reader = time.monotonic(), None
    try:
        while time.monotonic() < started + TIMEOUT_S:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return os.waitstatus_to_exitcode(status), False
            if case.get("fifo_reader") and time.monotonic() > started + 1:
                reader = drain(box / "fifo", reader)  # a FIFO output waits for its reader,
            time.sleep(0.01)  # as `>` does in a shell: the reader comes a second later
    finally:
        if reader is not None:
            os.close(reader)
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return None, True


def drain(fifo: Path, fd: int | None) -> int:
    """Read what waits in `fifo` (opened for reading the first time)."""
    if fd is None:
        fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        while os.read(fd, 1 << 16):
            pass
    except BlockingIOError:
        pass
    return fd


def in_child(case: dict, box: Path, work: Path, cache: Path) -> int:
    import io

    os.setsid()
    env = child_env(case, cache)
    os.environ.clear()
    os.environ.update(env)
    os.chdir(box)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    for fd, name in ((1, "out"), (2, "err")):
        f = os.open(work / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
        os.dup2(f, fd)
        os.close(f)
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)),
                                  encoding="utf-8")
    sys.stderr = io.TextIOWrapper(io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
                                  encoding="utf-8", errors="backslashreplace",
                                  line_buffering=True)
    if case.get("nobody"):
        os.chmod(work / "out", 0o666)
        os.chmod(work / "err", 0o666)
        os.chmod(work, 0o777)
        os.setgid(NOBODY)
        os.setuid(NOBODY)
    return {"cli": child_cli, "api": child_api, "plugin": child_plugin}[case["how"]](case, work)


def child_cli(case: dict, work: Path) -> int:
    from graphbench.cli import main

    try:
        rc = main(case["argv"])
    except SystemExit as exc:
        rc = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # what the interpreter would print
        traceback.print_exc()
        rc = 1
    try:
        sys.stdout.flush()
    except Exception as exc:
        print(f"Exception ignored while flushing sys.stdout: {exc!r}", file=sys.stderr)
        rc = 120
    sys.stderr.flush()
    return rc


def child_api(case: dict, work: Path) -> int:
    import graphbench
    from graphbench.errors import GraphbenchError

    scope = {"graphbench": graphbench}
    try:
        exec(compile(case["code"], "<case>", "exec"), scope)
        result = {"raised": None}
    except KeyboardInterrupt:  # a pipeline file that raises it: let through, as Python does
        result = {"raised": None, "interrupted": True}
    except GraphbenchError as exc:
        chained = exc.__cause__ is not None or (exc.__context__ is not None
                                                and not exc.__suppress_context__)
        message = str(exc)
        result = {"raised": type(exc).__name__, "message": message[:2000],
                  "one_line": "\n" not in message and "\r" not in message,
                  "flags_named": [f for f in case.get("flags", ()) if f in message],
                  "length": len(message), "remedy": exc.remedy[:2000], "chained": chained,
                  "graphbench": True}
    except BaseException as exc:
        result = {"raised": type(exc).__name__, "message": str(exc)[:2000],
                  "traceback": traceback.format_exc()[-4000:], "graphbench": False}
    (work / "result.json").write_text(json.dumps(result))
    sys.stdout.flush()
    sys.stderr.flush()
    return 0


def child_plugin(case: dict, work: Path) -> int:
    import pytest

    args = ["-p", "graphbench", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
            "--rootdir", ".", *case["argv"]]
    try:
        rc = int(pytest.main(args))
    except BaseException:
        traceback.print_exc()
        rc = 1
    sys.stdout.flush()
    sys.stderr.flush()
    return rc


# -- judging an outcome -------------------------------------------------------------------------

def classify(case: dict, o: dict) -> list[str]:
    """The mishandled classes this outcome falls in ([] : handled)."""
    if o["hang"]:
        return ["hang"]
    classes = []
    text = o["out"] + o["err"]
    if "Traceback (most recent call last)" in text or "INTERNALERROR" in text \
            or "Exception ignored" in text:
        classes.append("traceback")
    if o["changed"]:
        classes.append("file damaged")
    classes += judge_api(case, o) if case["how"] == "api" else judge_exit(case, o)
    return classes


def judge_exit(case: dict, o: dict) -> list[str]:
    classes, rc = [], o["rc"]
    plugin = case["how"] == "plugin"
    if rc not in (PLUGIN_CODES if plugin else CLI_CODES):
        classes.append("exit code")
    failed = rc not in (0, 1, 5) if plugin else rc not in (0, 1)
    if failed and o["new"]:
        classes.append("file left after failure")
    lines = [line for line in o["err"].splitlines() if line.strip()]
    compile_log = bool(lines) and lines[0].endswith("the compiler log follows")
    if set(case.get("argv", ())) & {"-", "/dev/stdout"} or case.get("stdout") in STREAMS:
        lines = [line for line in lines if line.startswith("graphbench:")]  # report on stderr
    if failed and not plugin and not 1 <= len(lines) <= MOST_LINES and not compile_log:
        classes.append("message over two lines")
    if plugin and rc == 4 and len([x for x in lines if x.startswith("ERROR")]) != 1:
        classes.append("message not one line")
    if failed and any(len(line) > LONGEST for line in lines[:MOST_LINES]):
        classes.append("message too long")
    err = o["err"] if not compile_log else "\n".join(lines[:1])
    if any(ord(c) < 32 and c not in "\n\t" or 0x7f <= ord(c) < 0xa0 for c in err):
        classes.append("control characters")
    if case.get("secret") and case["secret"] in o["out"] + o["err"]:
        classes.append("secret shown")
    if case.get("bad"):
        if any(d in o["err"] for d in DRIVER):
            classes.append("bad input reached the driver")
        elif rc in (0, 5) or (plugin and rc != 4 and case.get("at_start")):
            classes.append("bad input accepted")
    return classes


def judge_api(case: dict, o: dict) -> list[str]:
    r = o["result"]
    if o["rc"] != 0 or r is None:
        return ["exit code"]
    if r["raised"] is None:
        return ["bad input accepted"] if case.get("bad") and not r.get("interrupted") else []
    if r["raised"] == case.get("python_error"):  # a call Python itself refuses (arity)
        return []
    if not r["graphbench"]:
        return ["api: not a graphbench error"]
    classes = []
    message = r["message"]
    if r["chained"]:
        classes.append("api: chained exception")
    if not r["one_line"]:
        classes.append("message not one line")
    if not r["remedy"]:
        classes.append("api: no remedy")
    if r["flags_named"]:
        classes.append("api: names a CLI flag")
    if r["length"] > LONGEST:
        classes.append("message too long")
    if case.get("bad") and any(d in message for d in DRIVER):
        classes.append("bad input reached the driver")
    return classes


# -- the run ------------------------------------------------------------------------------------

def summary(results: list[dict], seconds: float) -> dict:
    classes = Counter(c for r in results for c in r["classes"])
    kinds = Counter(r["how"] for r in results)
    bad = [r for r in results if r["classes"]]
    return {"seed": SEED, "cases": len(results), "by_entry": dict(sorted(kinds.items())),
            "handled": len(results) - len(bad), "mishandled": len(bad),
            "mishandled_by_class": dict(sorted(classes.items())),
            "seconds": round(seconds), "timeout_s": TIMEOUT_S}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", required=True, help="every case's details")
    parser.add_argument("--summary", help="also write the summary here")
    parser.add_argument("--only", default="", help="run the cases whose id starts with this")
    parser.add_argument("--workers", type=int, default=2, choices=(1, 2))
    parser.add_argument("--tree", default="HEAD", help="the commit to judge (default HEAD), "
                        "or worktree: the files as they are now")
    args = parser.parse_args(argv)
    cases = [c for c in all_cases() if c["id"].startswith(args.only)]
    cache = Path(tempfile.mkdtemp(prefix="odd-cache-"))
    tree = snapshot_tree(args.tree, Path(tempfile.mkdtemp(prefix="odd-tree-")))
    os.chmod(tree, 0o755)
    os.environ["GRAPHBENCH_ODD_CACHE"] = str(cache)
    started = time.monotonic()
    results = []
    with ProcessPoolExecutor(args.workers, initializer=warm, initargs=(str(tree),)) as pool:
        for i, result in enumerate(pool.map(run_case, cases, chunksize=4)):
            results.append(result)
            if result["classes"]:
                print(f"[{i + 1}/{len(cases)}] {result['id']}: {', '.join(result['classes'])}",
                      file=sys.stderr)
    shutil.rmtree(cache, ignore_errors=True)
    shutil.rmtree(tree, ignore_errors=True)
    report = summary(results, time.monotonic() - started)
    report["tree"] = args.tree if args.tree == "worktree" else subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", args.tree], capture_output=True,
        text=True).stdout.strip()
    Path(args.json).write_text(json.dumps({"summary": report, "cases": results}, indent=1))
    text = json.dumps(report, indent=2)
    print(text)
    if args.summary:
        Path(args.summary).write_text(text + "\n")
    return 1 if report["mishandled"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
