"""Whether a reply cut at its output cap is a model going round in a loop.

A small model that loops writes the same piece again and again until the cap stops it; a
larger cap only buys more of the same piece. A reply whose end is one piece repeated (three
times or more, over a good share of the reply) is such a loop.
"""

from __future__ import annotations

MIN_REPEATS = 3
MIN_SHARE = 0.4          # of the reply's length that the repeated tail must cover
MIN_SPAN = 24            # characters: a short reply that ends in "..." is not a loop
TAIL = 4000              # only the end of a long reply is read


def repeated_tail(text: str) -> tuple[str, int] | None:
    """(the piece, how many times it repeats) when the reply ends in a loop, else None."""
    tail = text[-TAIL:]
    n = len(tail)
    need = max(MIN_SPAN, int(MIN_SHARE * min(len(text), TAIL)))
    for period in range(1, n // MIN_REPEATS + 1):
        unit = tail[n - period:]
        if tail[n - 2 * period:n - period] != unit:
            continue
        # how far back the text stays periodic with this period, whole pieces and a part
        start = n - 2 * period
        while start >= period and tail[start - period:start] == tail[start:start + period]:
            start -= period
        while start > 0 and tail[start - 1] == tail[start - 1 + period]:
            start -= 1
        span = n - start
        if span >= need and span >= MIN_REPEATS * period:
            return tail[start:start + period], span // period
    return None


def repeats_itself(text: str | None) -> bool:
    return bool(text) and repeated_tail(text) is not None
