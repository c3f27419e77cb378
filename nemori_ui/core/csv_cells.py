"""CSV the product writes, safe to open in a spreadsheet.

A cell that starts with =, +, -, @, a tab or a carriage return is read by Excel, LibreOffice and
Google Sheets as a formula, so a question, answer or message text such as
``=HYPERLINK("http://evil", "x")`` would run when the file is opened. As OWASP recommends for
CSV injection, such text cells get a leading single quote (shown as text, not evaluated); the
csv module quotes every cell that holds a delimiter, quote or line break. Numbers the product
computed are left as numbers.
"""

from __future__ import annotations

import csv
import io
from typing import Any, Iterable

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def neutralise(cell: Any) -> Any:
    if isinstance(cell, str) and cell.startswith(FORMULA_START):
        return "'" + cell
    return cell


def csv_text(columns: list[str], rows: Iterable[Iterable[Any]]) -> str:
    out = io.StringIO()
    # RFC 4180 line ends: with "\r\n" as the terminator the csv module also quotes a cell that
    # holds a lone "\r", which would otherwise end the row in every reader
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([neutralise(c) for c in columns])
    writer.writerows([neutralise(c) for c in row] for row in rows)
    return out.getvalue()
