"""The public API is typed for a type checker: graphbench.run() is a
RunRecord, not Any, and the typed surface (api, record model, pipeline spec)
passes mypy with the configuration in pyproject.toml."""

from pathlib import Path

import pytest
from mypy import api as mypy

ROOT = Path(__file__).resolve().parents[1]
TYPED = ["graphbench/api.py", "graphbench/record/model.py", "graphbench/pipeline/spec.py"]


def _mypy(*args: str) -> tuple[str, int]:
    out, err, status = mypy.run(["--config-file", str(ROOT / "pyproject.toml"),
                                 "--cache-dir", str(ROOT / ".pytest_cache" / "mypy"), *args])
    return out + err, status


@pytest.mark.slow
def test_the_typed_surface_passes_mypy():
    out, status = _mypy(*(str(ROOT / path) for path in TYPED))
    assert status == 0, out


@pytest.mark.slow
def test_a_user_sees_the_record_types_of_the_top_level_functions(tmp_path):
    user = tmp_path / "user.py"
    user.write_text(
        "import graphbench\n"
        "reveal_type(graphbench.run())\n"
        "reveal_type(graphbench.summarize('r.json').speedup['graph'].stats.median)\n"
        "reveal_type(graphbench.compare('a.json', 'b.json', fail_on='graph.wall:10%'))\n"
        "graphbench.run(processes='three')\n")
    out, status = _mypy(str(user))
    assert 'Revealed type is "graphbench.record.model.RunRecord"' in out
    assert 'Revealed type is "float"' in out
    assert 'Revealed type is "graphbench.record.comparison.Comparison"' in out
    # a wrong argument type is caught before anything runs
    assert status == 1 and 'Argument "processes" to "run" has incompatible type "str"' in out, out


@pytest.mark.slow
def test_a_strict_user_script_sees_every_top_level_function_as_exported(tmp_path):
    """mypy --strict on a user's script: no "does not explicitly export" for
    graphbench.run and friends (the lazy API is re-exported as X as X)."""
    user = tmp_path / "strict_user.py"
    user.write_text("import graphbench\n"
                    "from graphbench import bench, compare, load, run, save, summarize\n"
                    "record = run('softmax')\n"
                    "print(summarize(record).speedup['graph'].stats.median, graphbench.__version__)\n"
                    "print(bench, compare, load, save)\n")
    out, status = _mypy("--strict", "--follow-imports", "silent", str(user))
    assert "explicitly export" not in out, out
    assert status == 0, out


def test_the_package_says_it_is_typed():
    assert (ROOT / "graphbench" / "py.typed").is_file()
