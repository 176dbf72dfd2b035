"""The night report's charts with matplotlib (Agg, no pyplot): a PNG for the PDF, an SVG for the page.

Lines are labelled at their right end by their short label (an account letter, a player number),
the labels pushed apart so none overlaps another, each joined to its line's end by a leader line.
Labels are never people's text; matplotlib's mathtext is off all the same.
"""
from __future__ import annotations

import io
from functools import lru_cache

import matplotlib

matplotlib.use("Agg")
from matplotlib import font_manager  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FuncFormatter, MaxNLocator  # noqa: E402

from companion.core.report import Chart  # noqa: E402

from .layouts import PRINT_GREY  # noqa: E402
from .render import font_path  # noqa: E402

WIDTH_IN = 6.8                    # the PDF's frame width (A4 less 18 mm margins)
LABEL_PT = 7.5
MARGINS_IN = (0.85, 0.1, 0.5, 0.1)   # left (room for "2,000,000"), right, bottom (ticks and label), top
GREY = str(PRINT_GREY)
# 26 colours told apart on white paper: none pale (tab10, Dark2, then tab20b's and tab20c's darkest)
COLOURS = [*matplotlib.colormaps["tab10"].colors, *matplotlib.colormaps["Dark2"].colors,
           *matplotlib.colormaps["tab20b"].colors[0::4], *matplotlib.colormaps["tab20c"].colors[0::4]]


@lru_cache(maxsize=1)
def _style() -> dict:
    font_manager.fontManager.addfont(str(font_path()))
    name = font_manager.FontProperties(fname=str(font_path())).get_name()
    return {"font.family": name, "font.size": 8, "text.parse_math": False, "axes.unicode_minus": False,
            "svg.fonttype": "path", "svg.hashsalt": "companion report", "axes.edgecolor": GREY,
            "axes.labelcolor": "black", "xtick.color": GREY, "ytick.color": GREY, "pdf.fonttype": 42}


def png(chart: Chart, dpi: int = 200) -> bytes:
    return _save(chart, "png", dpi)


def svg(chart: Chart) -> str:
    text = _save(chart, "svg", 72).decode("utf-8")
    return text[text.index("<svg"):]        # no XML prolog or doctype inside the page


def _save(chart: Chart, form: str, dpi: int) -> bytes:
    with matplotlib.rc_context(_style()):
        height = _height(chart)
        figure = Figure(figsize=(WIDTH_IN, height))
        FigureCanvasAgg(figure)
        figure.subplots_adjust(left=MARGINS_IN[0] / WIDTH_IN, right=1 - MARGINS_IN[1] / WIDTH_IN,
                               bottom=MARGINS_IN[2] / height, top=1 - MARGINS_IN[3] / height)
        axes = figure.add_subplot()
        (_bars if chart.kind == "bar" else _lines)(axes, chart)
        axes.set_xlabel(f"{chart.x_label.ja} · {chart.x_label.en}")
        axes.set_ylabel(chart.y_label)
        axes.grid(axis="y", color="0.88", linewidth=0.6)
        axes.spines[["top", "right"]].set_visible(False)
        out = io.BytesIO()
        figure.savefig(out, format=form, dpi=dpi, metadata=_metadata(form))
        return out.getvalue()


def _metadata(form: str) -> dict:
    return {"Date": None} if form == "svg" else {}


def _height(chart: Chart) -> float:
    """Tall enough for every end label a line chart has, one above another."""
    if chart.kind == "bar":
        return 2.2
    return max(3.2, len(chart.series) * LABEL_PT * 1.25 / 72 + 1.0)


def _bars(axes, chart: Chart) -> None:
    values = [v or 0 for series in chart.series.values() for v in series]
    bars = axes.bar(range(len(chart.x)), values, color=GREY, width=0.6)
    axes.bar_label(bars, fontsize=LABEL_PT)
    axes.set_xticks(range(len(chart.x)), chart.x)
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_ylim(0, max(values + [1]) * 1.2)


def _lines(axes, chart: Chart) -> None:
    xs = range(len(chart.x))
    ends = []
    for index, (label, values) in enumerate(chart.series.items()):
        colour = COLOURS[index % len(COLOURS)]
        points = [(x, v) for x, v in zip(xs, values) if v is not None]
        if not points:
            continue
        axes.plot(*zip(*points), color=colour, linewidth=1.2, marker="o", markersize=2.2,
                  linestyle="-" if index < 13 else (0, (4, 1.5)))
        ends.append((points[-1], label, colour))
    axes.set_xticks(list(xs), chart.x)
    axes.set_xlim(-0.3, len(chart.x) - 1 + 1.4)
    axes.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    _end_labels(axes, ends, len(chart.x) - 1 + 0.7)


def _end_labels(axes, ends: list, at_x: float) -> None:
    """Each line's label at its end, moved up or down just enough that no two overlap."""
    if not ends:
        return
    low, high = axes.set_ylim(*axes.get_ylim())      # fixed now: the leader lines must not move them
    height_px = axes.get_window_extent().height
    gap = (LABEL_PT * 1.2 * axes.figure.dpi / 72) / height_px * (high - low)     # one label's height in data units
    ends = sorted(ends, key=lambda end: end[0][1])
    placed = spread([y for (_, y), _, _ in ends], gap, low, high)
    for ((x, y), label, colour), text_y in zip(ends, placed):
        axes.plot([x, at_x - 0.08], [y, text_y], color=colour, linewidth=0.5, clip_on=False)    # the leader line
        axes.text(at_x, text_y, label, va="center", ha="left", fontsize=LABEL_PT, color=colour, clip_on=False)


def spread(ys: list[float], gap: float, low: float, high: float) -> list[float]:
    """Positions for labels wanted at ys (sorted), each at least `gap` from the next, kept in [low, high]
    as far as they fit: pushed up from below, then back down from the top."""
    placed = []
    for y in ys:
        placed.append(max(y, placed[-1] + gap) if placed else max(y, low + gap / 2))
    top = high - gap / 2
    for i in range(len(placed) - 1, -1, -1):
        top = min(placed[i], top)
        placed[i] = top
        top -= gap
    return placed
