"""Where a run's windows begin and end once messages can arrive after it was created.

The buffer fills to w messages and is partitioned; a flush (or the end of a `run`) closes it
early and is recorded as a cut, so the next window starts after the cut. Without cuts this is
the fixed chunking of `make_windows`, so runs stored before appends existed keep their windows.
"""

from __future__ import annotations

from ..models import Message
from ..store import Store
from ..store import appends
from ..window_spans import pending_count, window_spans


def stored_windows(store: Store, run_id: str, messages: list[Message], w: int, *,
                   flush: bool) -> list[list[Message]]:
    """The run's windows; with `flush` a partial last window is closed (and the cut recorded,
    so it stays a window whatever is added later). Keeps the run's window count current."""
    cuts = appends.load_cuts(store, run_id)
    if flush and pending_count(len(messages), w, cuts):
        appends.add_cut(store, run_id, len(messages))
        cuts.append(len(messages))
    spans = window_spans(len(messages), w, cuts, flush=flush)
    appends.set_windows_total(store, run_id, len(spans))
    return [messages[a:b] for a, b in spans]
