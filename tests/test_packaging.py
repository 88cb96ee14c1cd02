"""The source distribution holds the code, kernels, tests, docs and
benchmarks, and leaves out the H200 records (results/), the test caches and
mutation testing's copies; pyproject.toml says so, and hatchling's own file
selection for the sdist follows it. The sdist's own tests pass: they read
their records from tests/records, and test_docs, the one test that reads
results/, skips its checks of the records there, saying so.

Covers graphbench/_version.py."""

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LEFT_OUT = ("results", ".hypothesis", "mutants")


def pyproject() -> dict:
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        tomllib = pytest.importorskip("tomli")
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_sdist_excludes_the_records_and_the_caches():
    exclude = pyproject()["tool"]["hatch"]["build"]["targets"]["sdist"]["exclude"]
    assert {f"/{name}" for name in LEFT_OUT} <= set(exclude)


def test_hatchling_selects_no_record_or_cache_for_the_sdist():
    sdist = pytest.importorskip("hatchling.builders.sdist")
    if not (ROOT / "results").is_dir():
        pytest.skip("not a checkout: no results/ to leave out")
    files = {f.distribution_path for f in sdist.SdistBuilder(str(ROOT)).recurse_included_files()}
    assert not [f for f in files if f.split("/")[0] in LEFT_OUT]
    assert {"README.md", "pyproject.toml", "graphbench/__init__.py", "kernels/pipeline.cu",
            "tests/slow_build.py", "benchmarks/bare_loops.py", "docs/gate.md",
            "tests/test_packaging.py"} <= files


# the tests that read the H200 records (tests/records/h200) run in the sdist, and
# test_docs skips its checks of results/ there
IN_THE_SDIST = ["tests/test_record.py", "tests/test_record_codec_v1.py", "tests/test_docs.py",
                "tests/test_trend_page.py",
                "tests/test_compare.py::test_version_1_records_are_judged_from_their_process_medians",
                "tests/test_golden.py::test_every_picked_record_has_a_golden_text_and_no_golden_"
                "text_is_orphaned",
                "tests/test_interleaving.py::test_records_without_a_known_order_are_not_analysed",
                "tests/test_untrusted_records.py::test_the_fast_way_gives_the_record_the_careful_"
                "way_gives",
                "tests/test_api_validation.py::test_a_record_error_says_what_to_do_even_where_the_"
                "reader_does_not",
                "tests/test_cli_odd_inputs.py::test_a_stream_with_a_writer_is_read"]


@pytest.mark.slow
def test_the_sdist_s_own_tests_pass_without_the_records(tmp_path):
    """Built and unpacked, with graphbench imported from the unpacked tree:
    the tests that read results/ (test_docs) skip with the reason, the rest pass."""
    sdist = pytest.importorskip("hatchling.builders.sdist")
    if not (ROOT / "results").is_dir():
        pytest.skip("not a checkout: this tree is the sdist")
    import os
    import subprocess
    import tarfile

    built = next(iter(sdist.SdistBuilder(str(ROOT)).build(directory=str(tmp_path),
                                                           versions=["standard"])))
    with tarfile.open(built) as archive:
        archive.extractall(tmp_path / "unpacked", filter="data")
    tree = next((tmp_path / "unpacked").iterdir())
    assert not (tree / "results").exists() and (tree / "tests" / "records").is_dir()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
                           *IN_THE_SDIST], cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)},
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "which the sdist leaves out" in done.stdout and " passed" in done.stdout


def test_the_wheel_holds_the_license_the_kernels_and_the_schemas(tmp_path):
    wheel = pytest.importorskip("hatchling.builders.wheel")
    import zipfile

    built = list(wheel.WheelBuilder(str(ROOT)).build(directory=str(tmp_path),
                                                     versions=["standard"]))
    names = zipfile.ZipFile(built[0]).namelist()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "graphbench/kernels/pipeline.cu" in names
    assert "graphbench/schemas/run.schema.json" in names
    assert not [n for n in names if n.split("/")[0] in LEFT_OUT + ("tests", "benchmarks")]
    license_text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in license_text and "Version 2.0" in license_text
    assert pyproject()["project"]["license"] == {"text": "Apache-2.0"}


def test_the_distribution_name_is_free_and_install_hints_work_from_the_checkout():
    """On the package index "graphbench" is another project and the wheel's
    name, cuda-graphbench, is not there at all: the import, the command and
    the fixture are graphbench, and every "pip install" hint for an extra
    installs it from the checkout (pip install ".[postgres]")."""
    from graphbench._version import DISTRIBUTION, install_command

    project = pyproject()["project"]
    assert project["name"] == DISTRIBUTION == "cuda-graphbench"
    assert project["scripts"] == {"graphbench": "graphbench.cli:main"}
    extras = set(project["optional-dependencies"])
    assert extras >= {"torch", "cupti", "nvtx", "postgres", "plot", "completion"}
    assert install_command("cupti") == 'pip install ".[cupti]" in the graphbench checkout'
    named = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}" for path, n, line in install_lines()
             if re.search(r"pip install ['\"]?(graphbench|cuda-graphbench)\b", line)]
    assert named == []  # neither name installs graphbench from the package index
    unknown = [f"{path.relative_to(ROOT)}:{n}: {extra}" for path, n, line in install_lines()
               for group in re.findall(r"pip install ['\"]?\.\[([\w,]+)\]", line)
               for extra in group.split(",") if extra not in extras]
    assert unknown == []


def install_lines():
    """(file, line number, line) of every line that says "pip install" in
    the package, the README and the docs."""
    files = [*(ROOT / "graphbench").rglob("*.py"), ROOT / "README.md",
             *(ROOT / "docs").rglob("*.md")]
    return [(path, n, line) for path in files
            for n, line in enumerate(path.read_text().splitlines(), 1) if "pip install" in line]
