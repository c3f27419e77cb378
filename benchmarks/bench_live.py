"""Latency of the Live page: from adding the message that closes a window to that window's
decisions being stored and readable by the page (offline engine, w = 20).

    python benchmarks/bench_live.py [--windows 5] [--window 20]

Each window's 20th message is added through the same `LiveFeed.add` the page calls; the clock
stops when the page's loader reads the window's consolidation decisions back from the store.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from nemori_ui.core.clients import build_clients  # noqa: E402
from nemori_ui.core.config import PipelineConfig  # noqa: E402
from nemori_ui.core.jobs import JobRegistry  # noqa: E402
from nemori_ui.core.live import LiveFeed, new_live_run  # noqa: E402
from nemori_ui.core.live_view import last_window  # noqa: E402
from nemori_ui.core.store import open_store, runs  # noqa: E402
from nemori_ui.core.transcripts import load_transcript  # noqa: E402
from nemori_ui.core.views.knowledge import decision_table  # noqa: E402
from nemori_ui.core.views.run_data import load_run_data  # noqa: E402

SAMPLE = Path(__file__).resolve().parents[1] / "nemori_ui" / "data" / "sample_conversation.txt"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--windows", type=int, default=4)
    parser.add_argument("--window", type=int, default=20)
    args = parser.parse_args()
    messages = load_transcript(SAMPLE).conversations[0].messages
    store = open_store(tempfile.mkdtemp(prefix="bench-live-"))
    config = PipelineConfig(window=args.window)
    started = time.perf_counter()
    clients = build_clients(config, store)
    feed = LiveFeed(store, new_live_run(store, config, clients), clients, JobRegistry())
    feed.warmed.wait(60)    # the page opens its feed well before a window can fill
    print(f"feed ready (MiniLM loaded, the engine's examples read) in "
          f"{time.perf_counter() - started:.2f} s")
    latencies = []
    for w in range(args.windows):
        chunk = [messages[(w * args.window + i) % len(messages)] for i in range(args.window)]
        for m in chunk[:-1]:
            feed.add(m)
        while feed.busy:
            time.sleep(0.005)
        t0 = time.perf_counter()
        feed.add(chunk[-1])
        # poll as the page's panel does: the cheap run row, then the data once it changed
        while runs.get_run(store, feed.run_id).windows_done < w + 1:
            time.sleep(0.02)
        data = load_run_data(store, feed.run_id)
        assert last_window(data) == w + 1 and not decision_table(data).empty
        latencies.append(time.perf_counter() - t0)
        print(f"window {w + 1}: {latencies[-1]:.2f} s from its last message to its decisions "
              f"readable ({len(data.messages)} messages, {len(data.memories)} memories)")
    print(f"w = {args.window}, offline engine: median {statistics.median(latencies):.2f} s, "
          f"max {max(latencies):.2f} s over {len(latencies)} windows (target < 2 s)")


if __name__ == "__main__":
    main()
