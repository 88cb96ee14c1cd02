"""The package keeps the shape docs/layout.md describes: small modules, short
functions, and record field names spelled as strings only at the JSON
boundary (everything else reads attributes of the typed model)."""

import ast
import dataclasses
from pathlib import Path

import pytest

from graphbench.record import model

PACKAGE = Path(__file__).resolve().parents[1] / "graphbench"
SOURCES = sorted(PACKAGE.rglob("*.py"))
JSON_BOUNDARY = {PACKAGE / "record" / "codec.py", PACKAGE / "record" / "codec_v1.py"}
# version 1 spelled these too; any of them as a string subscript is a key path
V1_KEYS = {"modes", "samples", "stats", "sampling", "speedup", "verification", "breakdown",
           "cache", "environment", "warnings", "per_round", "per_process_medians"}


def record_field_names() -> set[str]:
    names = set(V1_KEYS)
    for value in vars(model).values():
        if dataclasses.is_dataclass(value):
            names.update(f.name for f in dataclasses.fields(value))
    return names


# A module holds one concept; 400 lines leaves room for one without splitting it by size
MODULE_LINES = 400


def test_no_module_is_over_the_line_cap():
    sizes = {p.relative_to(PACKAGE).as_posix(): len(p.read_text().splitlines()) for p in SOURCES}
    assert {name: n for name, n in sizes.items() if n > MODULE_LINES} == {}


def test_no_function_is_over_40_lines():
    long = []
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.end_lineno - node.lineno + 1 > 40:
                    long.append(f"{path.relative_to(PACKAGE)}:{node.name}")
    assert long == []


@pytest.mark.parametrize("path", [p for p in SOURCES if p not in JSON_BOUNDARY],
                         ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_record_key_paths_are_spelled_only_at_the_json_boundary(path):
    fields = record_field_names()
    found = [f"line {node.lineno}: [{node.slice.value!r}]"
             for node in ast.walk(ast.parse(path.read_text()))
             if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
             and node.slice.value in fields]
    assert found == []


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in SOURCES}


def imported(name: str) -> set[str]:
    """graphbench's modules that `name` imports, at module level or inside a
    function (a lazy import is still a dependency)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            found.update(f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                         for a in node.names)
    return {m for m in found if m in MODULES and m != name}


IMPORTS = {name: imported(name) for name in MODULES}


def test_the_record_boundary_never_imports_statistics():
    record = {n: sorted(m for m in IMPORTS[n] if m.startswith(("graphbench.stats",
                                                                 "graphbench.gate")))
              for n in MODULES if n.startswith("graphbench.record")}
    assert {n: found for n, found in record.items() if found} == {}


def test_no_statistics_module_loads_a_pipeline_file():
    analyze = {n: sorted(IMPORTS[n] & {"graphbench.pipeline.files"})
               for n in MODULES if n.startswith(("graphbench.stats", "graphbench.gate"))}
    assert {n: found for n, found in analyze.items() if found} == {}


def test_graphbench_has_no_import_cycles():
    """Depth-first over the import graph: an edge back to a module still on
    the path closes a cycle."""
    cycles, done, path = [], set(), []

    def visit(name: str) -> None:
        path.append(name)
        for target in sorted(IMPORTS[name]):
            if target in path:
                cycles.append(path[path.index(target):] + [target])
            elif target not in done:
                visit(target)
        path.pop()
        done.add(name)

    for name in sorted(MODULES):
        if name not in done:
            visit(name)
    assert cycles == []


# The data flow, as import layers: a module imports only from its own stage
# or an earlier one. The typed record is the vocabulary every later stage
# speaks (measurement writes it, statistics read it), so it follows the
# configuration it stores; pipeline definitions come before the measurement
# that runs them; statistics before the report that renders them; and the
# runner, the one place where measurement and statistics meet, before the
# entry points (CLI, Python API, pytest plugin) that call it.
FLOW = (
    ("graphbench._version", "graphbench.metrics", "graphbench.errors", "graphbench.limits", "graphbench.counts",
     "graphbench.ladder", "graphbench.launch_shape", "graphbench.kernel_files",
     "graphbench.spelling", "graphbench.process_state", "graphbench.sampling"),
    ("graphbench.config",),
    ("graphbench.record",),
    ("graphbench.history",),
    ("graphbench.pipeline", "graphbench.spec", "graphbench.callables"),
    ("graphbench.measure",),
    ("graphbench.preflight",),
    ("graphbench.replay",),
    ("graphbench.stats", "graphbench.buckets"),
    ("graphbench.gate",),
    ("graphbench.report",),
    ("graphbench.runner",),
    ("graphbench.api", "graphbench.cli", "graphbench.pytest_plugin", "graphbench.pytest_session",
     "graphbench.__main__",
     "graphbench"),
)


def stage(name: str) -> int:
    """The flow stage of a module: the stage of its longest matching prefix."""
    matches = [(len(prefix), i) for i, prefixes in enumerate(FLOW) for prefix in prefixes
               if name == prefix or (prefix != "graphbench" and name.startswith(prefix + "."))]
    assert matches, f"{name} has no stage in FLOW: add it where the data flow puts it"
    return max(matches)[1]


def test_every_import_follows_the_data_flow():
    against = sorted(f"{name} -> {target}" for name in MODULES for target in IMPORTS[name]
                     if stage(target) > stage(name))
    assert against == []


def test_the_flow_check_sees_an_import_against_the_flow():
    assert stage("graphbench.measure.benchmark") < stage("graphbench.gate.stopping")
    assert stage("graphbench.record.legacy") < stage("graphbench.pipeline.files")
    assert stage("graphbench") > stage("graphbench.runner") > stage("graphbench.report")
    with pytest.raises(AssertionError, match="no stage"):
        stage("graphbench.newthing")


# A module's test file: tests/test_<name>.py, its name written with the
# packages above it or without them (graphbench/cli/series.py: test_series.py
# or test_cli_series.py; a package by its __init__.py: graphbench/cli/ is
# test_cli.py). A bare name that two modules share (compare: analyze/compare.py
# and report/compare.py) names only the one that test file imports. Any other
# module is named by a "Covers graphbench/<path>." line in the docstring of
# the test file that covers it.
TESTS = Path(__file__).resolve().parent
COVERS = "Covers "


def imports_of(test: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(test.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def file_named_for(name: str, bare_names: dict[str, int]) -> Path | None:
    parts = name.split(".")[1:]
    for start in range(len(parts)):
        test = TESTS / f"test_{'_'.join(parts[start:])}.py"
        qualified = start < len(parts) - 1
        if test.is_file() and (qualified or bare_names[parts[-1]] == 1
                               or name in imports_of(test)):
            return test
    return None


def covers_lines() -> dict[str, list[str]]:
    """The paths a test file's docstring says it covers, and the files that say so."""
    found: dict[str, list[str]] = {}
    for test in sorted(TESTS.glob("test_*.py")):
        for line in (ast.get_docstring(ast.parse(test.read_text())) or "").splitlines():
            if line.startswith(COVERS + "graphbench/") and line.endswith(".py."):
                found.setdefault(line[len(COVERS):-1], []).append(test.name)
    return found


def test_every_module_has_a_test_file_named_for_it_or_one_that_says_it_covers_it():
    bare_names: dict[str, int] = {}
    for name in MODULES:
        bare_names[name.split(".")[-1]] = bare_names.get(name.split(".")[-1], 0) + 1
    covered = covers_lines()
    paths = {path.relative_to(PACKAGE.parent).as_posix(): name for name, path in MODULES.items()}
    missing = sorted(path for path, name in paths.items()
                     if file_named_for(name, bare_names) is None and path not in covered)
    assert missing == [], "add tests/test_<name>.py or a 'Covers <path>.' docstring line"
    assert sorted(set(covered) - set(paths)) == []  # no line names a module that is gone


def test_the_api_and_the_plugin_import_nothing_of_the_command_line():
    """The CLI, the API and the plugin are thin layers over one library: the
    API and the plugin read values, outputs and paths from it, not from cli/."""
    entry = ("graphbench.api", "graphbench.pytest_plugin", "graphbench.pytest_session",
             "graphbench.pytest_entry")
    found = {n: sorted(m for m in IMPORTS[n] if m.startswith("graphbench.cli"))
             for n in entry if n in MODULES}
    assert len(found) == len(entry) and {n: f for n, f in found.items() if f} == {}
