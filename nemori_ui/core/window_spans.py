"""Where a run's windows of w messages start and end, given the cuts that close one early.

Pure arithmetic over message counts, below the store and the pipeline, so that both the
writing of an add (which must know what a window closes) and the runner read one rule.
An add asks only how many windows there are and where the buffer starts: `window_count` and
`closed_end` answer from the cuts alone, so an add costs the same at any length of run.
"""

from __future__ import annotations


def window_spans(n: int, w: int, cuts: list[int], *, flush: bool,
                 start: int = 0) -> list[tuple[int, int]]:
    """(start, end) of each window over n messages; a last window shorter than w is a window
    only when `flush` (otherwise its messages are the pending buffer). With `start` (the end
    of a window), only the windows after it."""
    spans: list[tuple[int, int]] = []
    for edge in sorted({c for c in cuts if start < c < n} | {n}):
        while start < edge:
            end = min(start + w, edge)
            if end - start < w and edge == n and not flush and n not in cuts:
                return spans
            spans.append((start, end))
            start = end
    return spans


def window_count(n: int, w: int, cuts: list[int], *, flush: bool = False) -> int:
    """len(window_spans(n, w, cuts, flush=flush)), without listing the windows."""
    count, start = 0, 0
    for edge in sorted({c for c in cuts if 0 < c < n} | {n}) if n > 0 else []:
        full, rest = divmod(edge - start, w)
        closes = edge < n or flush or n in cuts
        count += full + (1 if rest and closes else 0)
        start = edge
    return count


def closed_end(n: int, w: int, cuts: list[int]) -> int:
    """Where the last closed window ends (0 if none): the messages after it are the buffer."""
    if n in cuts:
        return n
    last_cut = max((c for c in cuts if 0 < c < n), default=0)
    return n - (n - last_cut) % w


def pending_count(n: int, w: int, cuts: list[int]) -> int:
    """Messages waiting in the buffer: after the last window, not yet partitioned."""
    return n - closed_end(n, w, cuts)


def tail_processed(n: int, w: int, cuts: list[int], windows_done: int) -> bool:
    """The partial last window was processed already (a finished `run`, or one stored before
    cuts were recorded): it must stay closed, so messages added now start a window of their
    own instead of joining one that will never be processed again."""
    return bool(pending_count(n, w, cuts)) and windows_done > window_count(n, w, cuts)
