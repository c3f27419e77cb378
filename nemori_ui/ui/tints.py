"""Colours for the HTML fragments the app writes itself, right in a light and in a dark theme.

A fragment never sets its own text colour: it keeps the theme's, dimmed by mixing it with
transparency where it is secondary. Its backgrounds are tints a light theme shows pale and a
dark theme deep, since they let the page's own background through. Whichever theme shows (the
browser's preference or the one chosen in the settings), the fragment follows it.
"""

from __future__ import annotations

from dataclasses import dataclass

# secondary text: the theme's own text colour, faded (not a fixed grey, which is dark on dark)
MUTED_COLOUR = "color-mix(in srgb, currentColor 62%, transparent)"
MUTED = f"color:{MUTED_COLOUR}"
SOFT = "color:color-mix(in srgb, currentColor 80%, transparent)"

YELLOW = "rgba(250, 176, 5, 0.22)"
STRONG_YELLOW = "rgba(250, 200, 0, 0.38)"
GREY = "rgba(134, 142, 150, 0.16)"
BLUE = "rgba(77, 171, 247, 0.18)"
RED = "rgba(224, 49, 49, 0.22)"
GREEN = "rgba(47, 158, 68, 0.25)"


@dataclass(frozen=True)
class ChartInk:
    """The colours a chart draws its own marks in, for one theme. Plotly needs fixed colours
    (no currentColor), so they are chosen per theme: dark ink on a light page, light on dark."""
    strong: str                 # marks that must stand out: cuts, the chosen bar, rings
    soft: str                   # secondary lines: window edges
    gap: str                    # hairlines between cells: the page's own background
    bands: tuple[str, str]      # alternating session bands


LIGHT_INK = ChartInk("#212529", "#495057", "#ffffff", ("#868e96", "#ced4da"))
# Streamlit's dark background is #0e1117; the bands stay apart from it and from each other
DARK_INK = ChartInk("#f1f3f5", "#adb5bd", "#0e1117", ("#6c757d", "#343a40"))


def chart_ink() -> ChartInk:
    """The ink of the theme the reader's browser shows (light until it has said)."""
    import streamlit as st
    return DARK_INK if st.context.theme.type == "dark" else LIGHT_INK
