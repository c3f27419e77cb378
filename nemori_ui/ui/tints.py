"""Colours for the HTML fragments the app writes itself, right in a light and in a dark theme.

A fragment never sets its own text colour: it keeps the theme's, dimmed by mixing it with
transparency where it is secondary. Its backgrounds are tints a light theme shows pale and a
dark theme deep, since they let the page's own background through. Whichever theme shows (the
browser's preference or the one chosen in the settings), the fragment follows it.
"""

from __future__ import annotations

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
