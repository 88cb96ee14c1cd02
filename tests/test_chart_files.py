"""A sweep's chart files: the SVG and the matplotlib PNG show the same
titles, axis labels and round tick values, with each series' band.

Covers graphbench/report/chart.py.
Covers graphbench/report/figures.py."""

import math
import re

import pytest

from graphbench.errors import UsageError
from graphbench.record.codec import read_record
from graphbench.report.chart import Panel, Series, sweep_panels
from graphbench.report.chart_files import svg_chart, x_ticks, y_ticks
from graphbench.report.figures import check_figure_path, nice_ticks, tick_text

from test_sweep import SWEEP


def panels():
    return sweep_panels(read_record(SWEEP))


def mantissa(value: float) -> float:
    return round(value / 10 ** math.floor(math.log10(value)), 9)


def round_tick(tick: float, ticks: list[float]) -> bool:
    """1, 2 or 5 times a power of ten; or a multiple of an even step that is."""
    if mantissa(tick) in (1, 2, 5):
        return True
    step = ticks[1] - ticks[0]
    return mantissa(step) in (1, 2, 5) and abs(tick / step - round(tick / step)) < 1e-6


def test_every_tick_is_a_round_number_inside_the_axis():
    for low, high, log in ((0.809, 1.9, False), (3.5, 3910.0, True), (5, 180, True),
                           (170, 190, True), (0.95, 1.05, False), (2.2, 3.05, False)):
        ticks = nice_ticks(low, high, log)
        assert 3 <= len(ticks) <= 11, (low, high, ticks)
        assert all(low <= t <= high for t in ticks)
        assert all(round_tick(t, ticks) for t in ticks), ticks
    assert [tick_text(t) for t in nice_ticks(3.5, 3910.0, True)] == ["10", "100", "1,000"]


def test_the_svg_shows_the_panels_titles_ticks_and_bands():
    text = svg_chart(panels())
    for panel in panels():
        assert f">{panel.title}<" in text
        assert all(f">{tick_text(y)}<" in text for y in y_ticks(panel))
    assert "e+" not in text and ">2^12<" in text
    assert text.count("<polygon") == sum(1 for p in panels() for s in p.series if s.lows)
    assert "band: 95% interval" in text and "band: middle half of the rounds" in text


def test_the_png_draws_what_the_svg_draws(monkeypatch, tmp_path):
    pytest.importorskip("matplotlib", reason="PNG output needs the plot extra")
    import matplotlib.pyplot as plt

    from graphbench.report.chart_files import png_chart

    drawn = []
    monkeypatch.setattr(plt, "close", drawn.append)
    png_chart(panels(), tmp_path / "chart.png")
    axes = drawn[0].axes
    svg = svg_chart(panels())
    for axis, panel in zip(axes, panels()):
        assert axis.get_title() == panel.title and f">{panel.title}<" in svg
        assert re.search(re.escape(axis.get_ylabel()), svg)
        assert [t.get_text() for t in axis.get_yticklabels()] == [tick_text(y)
                                                                   for y in y_ticks(panel)]
        assert [t.get_text() for t in axis.get_xticklabels()][0] == "2^12"
        banded = sum(1 for s in panel.series if s.lows)
        assert len(axis.collections) == banded  # one filled band per series that has one
    plt.close("all")


def test_a_series_without_bands_draws_none():
    panel = Panel("t", "speedup", (Series("s", (4096.0, 65536.0), (1.0, 3.0)),))
    assert "<polygon" not in svg_chart([panel]) and x_ticks(panel) == [4096, 16384, 65536]


@pytest.mark.parametrize("flag,noun", [("--plot", "charts"), ("--timeline", "timelines")])
def test_every_picture_path_is_checked_alike(flag, noun, monkeypatch):
    with pytest.raises(UsageError, match=f"{flag} x.gif: the file must end in .svg or .png"):
        check_figure_path("x.gif", flag, noun)
    check_figure_path("x.SVG", flag, noun)
    monkeypatch.setitem(__import__("sys").modules, "matplotlib", None)
    with pytest.raises(UsageError, match=f"PNG {noun} need matplotlib"):
        check_figure_path("x.png", flag, noun)
