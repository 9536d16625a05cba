"""A case's pass rate on the default branch over time, for `report.html`: one point per
recorded job (`ReportInput.main_series`, read from the history by the cell's fingerprint),
drawn as a line across the chart's plot width under the case's bars.

Geometry only, as `view` computes the bars': the template places a polyline and one circle
per job, each with its date, commit and counts as a tooltip.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evolve_action.publish.history import Point
from evolve_action.util.text import pct

TREND_H = 36  # the line's band: 100% at its top, 0% at its bottom
TREND_GAP = 6  # above the band: its label's baseline is the band's top
DATES_H = 14  # below the band: the first and the last job's dates (the x axis is time)


@dataclass(frozen=True, slots=True)
class Dot:
    x: float  # in plot units
    y: float  # from the band's top
    text: str  # "2026-11-01 · abc1234 · 5/6 passed (83%)"


@dataclass(frozen=True, slots=True)
class Trend:
    y: int  # top of the band, in the chart's units
    height: int
    path: str  # the polyline's points, "x,y x,y", in the chart's units
    dots: tuple[Dot, ...]
    text: str  # "on main: 40/42 passed in 7 jobs"
    first: str  # the oldest job's date, under the band's left end
    last: str  # the newest's, under its right end

    @property
    def space(self) -> int:
        """The height the trend takes in its case's row."""
        return TREND_GAP + self.height + DATES_H


def trend(series: Sequence[Point], *, y: int, plot_x: int, plot_w: int) -> Trend | None:
    """The line of `series` (oldest first) in a band whose top is at `y`; None without one."""
    if not series:
        return None
    top = y + TREND_GAP
    step = plot_w / (len(series) - 1) if len(series) > 1 else 0.0
    dots = []
    for i, point in enumerate(series):
        rate = point.passed / point.runs if point.runs else 0.0
        x = i * step if len(series) > 1 else plot_w / 2
        words = f"{point.at[:10]} · {point.sha[:7]} · {point.passed}/{point.runs} passed"
        dots.append(Dot(round(x, 1), round((1 - rate) * TREND_H, 1), f"{words} ({pct(rate)})"))
    path = " ".join(f"{plot_x + d.x:.1f},{top + d.y:.1f}" for d in dots)
    passed = sum(p.passed for p in series)
    runs = sum(p.runs for p in series)
    jobs = len(series)
    text = f"on main: {passed}/{runs} passed in {jobs} job{'s' * (jobs != 1)}"
    return Trend(top, TREND_H, path, tuple(dots), text, series[0].at[:10], series[-1].at[:10])
