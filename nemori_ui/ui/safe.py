"""Rendering text that came from a transcript: always as text, never as markdown or HTML."""

from __future__ import annotations

import html
import re

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|>~<$])")


def md_escape(text: str) -> str:
    """Text safe inside st.markdown: markdown and HTML characters shown literally."""
    return _MD_SPECIAL.sub(r"\\\1", str(text)).replace("\n", "  \n")


def html_text(text: str) -> str:
    """Text safe inside an HTML fragment."""
    return html.escape(str(text), quote=True).replace("\n", "<br>")
