"""Where a run's windows of w messages start and end, given the cuts that close one early.

Pure arithmetic over message counts, below the store and the pipeline, so that both the
writing of an add (which must know what a window closes) and the runner read one rule.
"""

from __future__ import annotations


def window_spans(n: int, w: int, cuts: list[int], *, flush: bool) -> list[tuple[int, int]]:
    """(start, end) of each window over n messages; a last window shorter than w is a window
    only when `flush` (otherwise its messages are the pending buffer)."""
    spans: list[tuple[int, int]] = []
    start = 0
    for edge in sorted({c for c in cuts if 0 < c < n} | {n}):
        while start < edge:
            end = min(start + w, edge)
            if end - start < w and edge == n and not flush and n not in cuts:
                return spans
            spans.append((start, end))
            start = end
    return spans


def pending_count(n: int, w: int, cuts: list[int]) -> int:
    """Messages waiting in the buffer: after the last window, not yet partitioned."""
    spans = window_spans(n, w, cuts, flush=False)
    return n - (spans[-1][1] if spans else 0)
