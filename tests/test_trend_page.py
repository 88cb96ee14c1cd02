"""The trend page (`graphbench history html DIR`): ten commits of a committed
H200 record stored in a SQLite history, from the sixth on its individual busy
and wall time 15% slower; the site is written, and a real headless Chromium
shows the series' step at the sixth commit and nowhere else, the level of
each segment and the threshold band around it.

Covers graphbench/gate/series.py.
Covers graphbench/gate/steps.py.
Covers graphbench/cli/history_html.py."""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import shutil
import subprocess
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from graphbench.cli.site_folder import MARKER
from graphbench.history.keys import key_for
from graphbench.history.store import History
from graphbench.record.codec import read_run, run_document
from graphbench.report import trend_page

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / "tests" / "records" / "h200" / "gate" / "baseline.json"  # results/gate/baseline.json
COMMITS = [f"{digit}" * 40 for digit in "123456789a"]  # from the 6th on: slower
SLOWER = 5
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def jittered(record, slower: float, seed: int):
    """The record's individual wall and busy time (`stages`) times `slower`,
    every reading jittered by 0.2%, the rest unchanged."""
    rng = np.random.default_rng(seed)

    def one(point):
        runs = []
        for run in point.runs:
            modes = {name: dataclasses.replace(samples, wall_us=tuple(
                float(x) for x in np.asarray(samples.wall_us) * (
                    slower if name == "individual" else 1.0)
                * (1 + rng.normal(0, 0.002, len(samples.wall_us)))))
                for name, samples in run.modes.items()}
            conditions = tuple(dataclasses.replace(c, busy={
                w: dataclasses.replace(r, us=r.us * (slower if w == "stages" else 1.0)
                                       * (1 + rng.normal(0, 0.002)))
                for w, r in c.busy.items()}) for c in run.conditions)
            runs.append(dataclasses.replace(run, modes=modes, conditions=conditions))
        return dataclasses.replace(point, runs=tuple(runs))

    return dataclasses.replace(one(record), gate_points=tuple(one(p) for p in record.gate_points))


@pytest.fixture(scope="module")
def history_file(tmp_path_factory) -> str:
    """A SQLite history holding the ten commits' records, an hour apart."""
    base = read_run(BASELINE)
    start = datetime.fromisoformat(base.created)
    path = str(tmp_path_factory.mktemp("history") / "history.db")
    with History.open(path) as history:
        for i, commit in enumerate(COMMITS):
            record = dataclasses.replace(jittered(base, 1.15 if i >= SLOWER else 1.0, i),
                                         created=(start + timedelta(hours=i)).isoformat())
            text = json.dumps(run_document(record)) + "\n"
            assert history.save(key_for(record, text, commit), text)
    return path


@pytest.fixture(scope="module")
def site(history_file, tmp_path_factory) -> Path:
    """The site as `graphbench history html DIR --history FILE` writes it."""
    folder = tmp_path_factory.mktemp("site") / "trends"
    assert history_command("html", str(folder), "--history", history_file, "-q") == 0
    return folder


def history_command(*argv: str) -> int:
    """`graphbench history ARGV...`, through the history command's own parser."""
    from graphbench.cli.history import add_history, cmd_history

    parser = argparse.ArgumentParser(prog="graphbench")
    add_history(parser.add_subparsers(dest="command"))
    return cmd_history(parser.parse_args(["history", *argv]))


def only_page(site: Path) -> Path:
    pages = sorted(p for p in site.glob("*.html") if p.name != trend_page.INDEX)
    assert len(pages) == 1, pages
    return pages[0]


def test_the_site_is_one_page_per_series_and_an_index(site):
    page = only_page(site)
    index = (site / trend_page.INDEX).read_text()
    assert f'href="{page.name}"' in index and "add_mul_sub" in index
    assert COMMITS[SLOWER][:8] in index  # where a regression starts
    assert "NVIDIA H200, driver 580.159.04" in index and "elements=2^12" in index


def test_the_filters_choose_the_records(history_file, tmp_path):
    assert history_command("html", str(tmp_path / "none"), "--history", history_file,
                           "--pipeline", "softmax", "-q") == 0
    assert sorted(p.name for p in (tmp_path / "none").iterdir()) == [MARKER, trend_page.INDEX]
    assert "no run records" in (tmp_path / "none" / trend_page.INDEX).read_text()
    assert history_command("html", str(tmp_path / "one"), "--history", history_file,
                           "--pipeline", "add_mul_sub", "--machine", "NVIDIA H200", "-q") == 0
    assert len(list((tmp_path / "one").glob("*.html"))) == 2


def test_the_page_needs_no_server_and_no_script(site):
    text = only_page(site).read_text()
    assert "<script" not in text and "http://" not in text.replace(
        'xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in text and text.count("<svg") >= 7


def test_each_step_is_the_series_own_and_only_the_sixth_commit_starts_one(history_file):
    """The page's steps are graphbench.gate.series' own, on the stored records."""
    from graphbench.gate.series import figures
    from graphbench.history.documents import run_from_text

    with History.open(history_file) as history:
        keys = sorted(history.keys(), key=lambda k: k.created)
        runs = [(k, run_from_text(history.document(k.id), k.id)) for k in keys]
    found = trend_page.trends(runs)
    starts = {(t.metric, p.key.git_commit) for t in found for p in t.points
              if p.starts_regression and t.gated}
    assert starts == {(m, COMMITS[SLOWER]) for m in ("individual.busy", "individual.busy@2^20",
                                                     "individual.busy@2^24")}
    # the record read no CPU probe: its walls cannot be shown to be like with like
    wall = next(t for t in found if t.metric == "individual.wall")
    assert trend_page.status(wall).startswith("not gateable: host-bound: ")
    assert all(p.step is None and p.level is None for p in wall.points)
    [own] = [f for f in figures([r for _, r in runs], [k.git_commit for k, _ in runs])
             if f.spec.name == "individual.busy"]
    busy = next(t for t in found if t.metric == "individual.busy")
    assert [p.step for p in busy.points if p.step] == list(own.found.steps)
    assert all(p.low < p.median < p.high for p in busy.points)
    assert {p.level for p in busy.points[:SLOWER]} == {own.found.fit.levels[0]}


def test_sizes_and_configurations_never_share_a_line(tmp_path):
    """Records of two element counts are two series: two pages, each of one size."""
    from conftest import make_record

    runs = []
    for i in range(8):
        for elements in (4096, 2 ** 20):
            record = dataclasses.replace(make_record(seed=i, elements=elements),
                                         created=f"2026-12-01T{i:02d}:00:00+00:00")
            text = json.dumps(run_document(record)) + "\n"
            runs.append((key_for(record, text, COMMITS[i]), record))
    pages = trend_page.site(runs)
    assert len(pages) == 3
    for name, html in pages.items():
        if name != trend_page.INDEX:
            sizes = {"elements=2^12" in html, "elements=2^20" in html}
            assert sizes == {True, False}, "one size a page"
            assert html.count('class="band"') >= 2 and 'class="level"' in html


def test_a_series_too_short_to_judge_never_says_no_step(tmp_path):
    from conftest import make_record

    runs = []
    for i in range(3):
        record = dataclasses.replace(make_record(seed=i),
                                     created=f"2026-12-01T{i:02d}:00:00+00:00")
        runs.append((key_for(record, json.dumps(run_document(record)), COMMITS[i]), record))
    [html] = [page for name, page in trend_page.site(runs).items() if name != trend_page.INDEX]
    assert "no gated metric can be judged on this series yet" in html
    assert "no step" not in html and "no regression" not in html
    assert "too few to place a step" in html


def test_record_strings_are_escaped():
    from graphbench.history.series import SeriesKey

    hostile = '<img src=x onerror="alert(1)">\x1b[2J'
    series = SeriesKey(hostile, "built-in", "cpu", hostile, "driver", '{"params": "%s"}' % hostile)
    key = dataclasses.replace(_key(), pipeline=hostile)
    text = trend_page.index({"p.html": (series, [(key, None)])}, {"p.html": []})
    assert "<img" not in text and "&lt;img" in text and "\\x1b" in text
    html = trend_page.page(series, [(key, None)], [])
    assert "<img" not in html and "&lt;img" in html
    assert re.fullmatch(r"trend-[0-9a-f]{16}\.html", trend_page.page_name(series))


def _key():
    from graphbench.history.keys import Key

    return Key("0" * 64, "run", "2026-12-01T00:00:00+00:00", "2026-12-01T00:00:00+00:00",
               None, "p", "built-in", "m" * 10, "cpu", "gpu", "uuid", "driver")


def chromium(*args: str) -> str:
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (apt-get install chromium)")
    done = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                           "--hide-scrollbars", *args], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.slow
def test_chromium_shows_the_step_at_the_sixth_commit_only(site):
    dom = chromium("--dump-dom", only_page(site).as_uri())
    marks = re.findall(r'<g class="regression-start" data-commit="([0-9a-f]*)"', dom)
    assert marks and set(marks) == {COMMITS[SLOWER]}
    rows = re.findall(r'<tr class="regression">(.*?)</tr>', dom, re.S)
    assert len(rows) == 3 and all(COMMITS[SLOWER][:8] in row and "slower" in row
                                  and "regression starts" in row for row in rows)
    # no other commit starts a step: the walls and the speedup move at the same
    # commit, but this record read no CPU probe, so they are never judged
    others = [c[:8] for i, c in enumerate(COMMITS) if i != SLOWER]
    for row in re.findall(r"<tr(?: class=\"\w+\")?>(.*?)</tr>", dom, re.S):
        assert not (any(c in row for c in others) and re.search(r"<td>(slower|faster) ", row))
    assert dom.count("<svg") >= 7 and "<polyline" in dom
    assert dom.count('class="band"') >= 8 and dom.count('class="level"') >= 8


@pytest.mark.slow
def test_chromium_renders_the_page_and_the_index(site, tmp_path):
    for name, page in (("page", only_page(site)), ("index", site / trend_page.INDEX)):
        shot = tmp_path / f"{name}.png"
        chromium(f"--screenshot={shot}", "--window-size=1200,1600", page.as_uri())
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 5000
    dom = chromium("--dump-dom", (site / trend_page.INDEX).as_uri())
    assert f'href="{only_page(site).name}"' in dom
