"""The overview's charts are SVG drawn from the numbers: bars stack to each day's total, labels are escaped."""

import re

from bot.review.charts import HEIGHT, PAD_BOTTOM, PAD_TOP, lines, stacked_bars


def heights(svg: str) -> list[float]:
    """The bars' heights (a bar carries its tooltip; the legend's swatches do not)."""
    return [float(h) for h in re.findall(r'height="([^"]+)" fill="[^"]+"><title>', svg)]


def test_the_tallest_day_fills_the_plot_and_a_day_is_split_by_status():
    svg = str(stacked_bars(["a", "b"], {"answered": [3, 1], "abstained": [1, 0]}, "per day"))
    answered_a, abstained_a, answered_b = heights(svg)
    assert answered_a + abstained_a == HEIGHT - PAD_BOTTOM - PAD_TOP
    assert answered_a == 3 * abstained_a == 3 * answered_b


def test_a_week_without_ratings_breaks_the_line_instead_of_reading_zero():
    svg = str(lines(["w1", "w2", "w3", "w4"], {"helpful": [0.5, None, 1.0, 0.75]}, "rates"))
    assert svg.count("<circle") == 3
    assert len(re.findall(r"<polyline", svg)) == 1, "only w3-w4 are joined"


def test_labels_are_text_not_markup():
    svg = str(stacked_bars(["<b>x</b>"], {"answered": [1]}, "<script>"))
    assert "<script>" not in svg and "&lt;b&gt;x&lt;/b&gt;" in svg
