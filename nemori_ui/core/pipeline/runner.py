"""Runs the pipeline over a conversation window by window, committing after each window.

Episodes are processed in time order; within a window only the narratives are written
concurrently, because integration and the semantic stages of an episode read what the
previous episode stored.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from ..config import PipelineConfig
from ..embed import Embedder
from ..errors import RunTaken
from ..llm.sink import call_context
from ..models import RUN_KIND, Conversation, LLMCallRecord, Message
from ..progress import Progress
from ..stage_events import NarratePayload
from ..store import Store
from ..store import records, runs
from .bundle import StageContext
from .decisions import Decider
from .episodic import build_episode, integrate_episode, make_windows, narrate_raws, partition_window
from .events import EventLog
from .consolidation import consolidate
from .semantic import anticipate_and_distill
from .window_order import distill_window
from .state import MemoryState
from .windows import stored_windows

STAGES = ("partition", "narrate", "integrate", "anticipate", "distill", "consolidate")


@dataclass
class Clients:
    """Everything a run talks to. `drain_calls` hands over the LLM call records of a window."""
    decider: Decider
    embedder: Embedder
    drain_calls: Callable[[], list[LLMCallRecord]] = lambda: []
    llm_totals: Callable[[], dict] = lambda: {}
    notes: list[str] = field(default_factory=list)   # what was learnt about the server


def start_run(store: Store, conv: Conversation, config: PipelineConfig, clients: Clients, *,
              source: str, fmt: str, name: str | None = None, resume: bool = True,
              notice: Callable[[str], None] | None = None) -> str:
    """Create a run, or find the unfinished run of the same inputs to continue.

    `notice` hears why an unfinished run of the same file name was not continued.
    """
    if resume:
        found, changed = runs.find_resumable(store, conv, source, config.fingerprint())
        if found:
            return found
        if changed and notice:
            notice(f"{source}: conversation '{conv.id}' differs from the one in unfinished run "
                   f"{changed[0]} (the file changed since); starting a new run, the unfinished "
                   "one is kept")
    total = len(make_windows(conv.messages, config.window))
    return runs.create_run(store, conv, config, source=source, fmt=fmt,
                           decider=clients.decider.label, windows_total=total, name=name)


def run_windows(store: Store, run_id: str, clients: Clients, *,
                progress: Callable[[Progress], None] | None = None,
                stop_after: int | None = None, flush: bool = True) -> None:
    """Process the run's remaining windows. `stop_after` ends early (tests of resume).
    Without `flush` a partial last window stays pending until more messages fill it."""
    info = runs.get_run(store, run_id)
    config = info.config
    messages = records.load_messages(store, run_id)
    by_id = {m.id: m for m in messages}
    windows = stored_windows(store, run_id, messages, config.window, flush=flush)
    state = MemoryState.restore(clients.embedder.dim, records.load_episodes(store, run_id),
                                records.load_memories(store, run_id), index_kind=config.index)
    clients.drain_calls()  # calls made before this run started belong to nobody's window
    runs.claim(store, run_id)
    started = time.perf_counter()
    report = progress or (lambda p: None)
    try:
        for w in range(info.windows_done, len(windows)):
            if stop_after is not None and w >= info.windows_done + stop_after:
                break
            # a call of the window is saved as it completes (the store's sink reads the
            # context), so a process stopped mid-window keeps every call it made
            with call_context(RUN_KIND, run_id=run_id, window=w):
                process_window(store, run_id, w, windows[w], by_id, state, clients, config,
                               lambda stage, i=0, n=0: report(Progress(
                                   run_id, w, len(windows), stage, i, n, clients.llm_totals())))
        done = runs.get_run(store, run_id).windows_done >= len(windows)
        runs.set_status(store, run_id, "done" if done else "interrupted",
                        add_seconds=time.perf_counter() - started)
        report(Progress(run_id, len(windows) if done else w, len(windows), "done",
                        llm=clients.llm_totals()))
    except RunTaken:
        # the status is the other process's to set, unless it finished before this one began
        if runs.get_run(store, run_id).windows_done >= len(windows):
            runs.set_status(store, run_id, "done")
        raise
    except Exception as exc:
        _keep_calls(store, run_id, clients)
        runs.set_status(store, run_id, "failed", error=f"{type(exc).__name__}: {exc}",
                        add_seconds=time.perf_counter() - started)
        raise
    except BaseException:
        # Ctrl-C, or the app stopping its script mid-run (a rerun, another page opened): the
        # owner lives on, so unless it says so here the run would read "running" for good
        _keep_calls(store, run_id, clients)
        runs.set_status(store, run_id, "interrupted", add_seconds=time.perf_counter() - started)
        raise


def _keep_calls(store, run_id, clients) -> None:
    """The calls of a window that did not finish were made and paid for: keep their records
    (the window is redone on resume, mostly from the cache)."""
    try:
        records.save_calls(store, run_id, runs.get_run(store, run_id).windows_done,
                           clients.drain_calls())
    except Exception:  # noqa: BLE001 - never hide the error that stopped the run
        pass


def process_window(store: Store, run_id: str, w: int, window: list[Message],
                   by_id: dict[str, Message], state: MemoryState, clients: Clients,
                   config: PipelineConfig, report: Callable[..., None]) -> None:
    """Run every stage over `window`, the messages of the run's window `w`, and commit what it
    produced with the run's progress in one transaction (`records.save_window`).

    `state` is the run's memory as stored up to window `w` and is updated in place; `by_id`
    holds every message of the run by id; `report(stage, i=0, n=0)` hears each stage as it
    starts (at episode i of n). The caller opens the `call_context` the window's LLM calls are
    saved under. Whatever stops a stage is raised with `state` holding part of the window, so
    a caller that goes on reloads it from the store; `RunTaken` says another process saved
    window `w` first.
    """
    log = EventLog(w, records.next_event_seq(store, run_id))
    c = StageContext(decider=clients.decider, embedder=clients.embedder, state=state,
                     config=config, log=log, by_id=by_id)
    report("partition")
    raws = partition_window(c, window)
    report("narrate", 0, len(raws))
    narrations = narrate_raws(c, raws)
    window_order = config.semantic_order == "window"
    integrated = []
    for j, (raw, narration) in enumerate(zip(raws, narrations)):
        episode = build_episode(c, raw, narration)
        log.emit(NarratePayload(episode_id=episode.id, cue=episode.cue,
                                narrative=episode.narrative, topic=raw.topic,
                                fallback=narration.fallback),
                 episode_ids=[episode.id], message_ids=episode.message_ids,
                 call_ids=narration.call_ids)
        report("integrate", j, len(raws))
        current = integrate_episode(c, episode)
        if window_order:
            integrated.append(current)
            continue
        report("distill", j, len(raws))
        insights = anticipate_and_distill(c, current, c.messages(current.message_ids))
        report("consolidate", j, len(raws))
        consolidate(c, current, insights)
    if window_order:
        # only the versions that end the window: one merged into a later episode is not asked
        final = [e for e in integrated if state.episodes[e.id].status == "active"]
        report("distill", 0, len(final))
        for j, (episode, insights) in enumerate(distill_window(c, final)):
            report("consolidate", j, len(final))
            consolidate(c, episode, insights)
    episodes, memories = state.take_dirty()
    records.save_window(store, run_id, w, episodes=episodes, memories=memories,
                        events=log.events, calls=clients.drain_calls())
