"""report --plot on a run record: each mode's wall rounds and the paired
ratios the headline rests on, as SVG (no dependency) and PNG (matplotlib),
from H200 records (tests/records/h200)."""

import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest

from graphbench.record.codec import read_record
from graphbench.report import round_plot as R

ROOT = Path(__file__).resolve().parents[1]
H200 = ROOT / "tests" / "records" / "h200"
RUN = H200 / "host_speed" / "default_4096_4.json"
AB = H200 / "ab" / "softmax_identical_4096.json"
SVG = "{http://www.w3.org/2000/svg}"


def test_a_run_shows_every_mode_s_rounds_and_the_speedups_ratios():
    record = read_record(RUN)
    walls, ratios = R.round_panels(record)
    assert [s.label for s in walls.strips] == list(record.mode_names)
    assert walls.strips[0].values == record.samples("individual", "wall")
    assert "78 rounds, 1 process" in walls.title
    assert [s.label for s in ratios.strips] == ["individual / graph", "individual / fused"]
    first = ratios.strips[0].values[0]
    assert first == pytest.approx(record.samples("individual", "wall")[0] /
                                  record.samples("graph", "wall")[0])
    assert ratios.reference == 1.0


def test_an_ab_record_shows_each_build_over_its_base():
    _, ratios = R.round_panels(read_record(AB))
    assert [s.label for s in ratios.strips] == [
        "individual / individual@base", "graph / graph@base", "fused / fused@base"]


def test_a_record_without_the_baseline_rung_has_no_ratio_panel():
    record = read_record(RUN)
    only_graph = replace(record, runs=tuple(
        replace(run, modes={"graph": run.modes["graph"]}) for run in record.runs))
    assert len(R.round_panels(only_graph)) == 1


def test_the_svg_draws_a_dot_per_round_and_a_box_per_strip(tmp_path):
    record = read_record(RUN)
    path = R.write_round_plot(str(tmp_path / "rounds.svg"), R.round_panels(record))
    root = ET.parse(path).getroot()
    dots = root.findall(f"{SVG}circle")
    assert len(dots) == 78 * 3 + 78 * 2  # every mode's rounds and every ratio's
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "individual / graph" in texts and "us per iteration" in texts
    assert len(root.findall(f"{SVG}rect")) == 1 + 2 + 5  # background, frames, boxes


def test_a_long_run_is_thinned_to_a_bounded_number_of_dots():
    strip = R.Strip("m", tuple(float(i % 97) + 1 for i in range(50_000)))
    assert len(R._shown(strip.values)) == R.MAX_DOTS


def test_the_png_is_written(tmp_path):
    pytest.importorskip("matplotlib")
    path = R.write_round_plot(str(tmp_path / "rounds.png"), R.round_panels(read_record(AB)))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_plot_draws_a_run_record_and_refuses_two(tmp_path):
    out = tmp_path / "rounds.svg"
    command = [sys.executable, "-m", "graphbench", "report", str(RUN), "--plot", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0 and out.exists() and "chart written to" in done.stdout
    two = subprocess.run([*command[:-2], str(RUN), "--plot", str(tmp_path / "two.svg")],
                         capture_output=True, text=True, cwd=ROOT)
    assert two.returncode == 2 and "--plot draws one record" in two.stderr
    assert not (tmp_path / "two.svg").exists()
