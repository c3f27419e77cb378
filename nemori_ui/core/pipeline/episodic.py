"""Episodic stages (§3.2): buffer into windows, partition, narrate, integrate."""

from __future__ import annotations

import contextvars
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import numpy as np

from ..embed import Embedder
from ..episode_lines import line_text
from ..models import Episode, Message, RawEpisode
from ..prompts.select import MAX_GAP
from ..stage_events import EpisodeCandidate, IntegratePayload, PartitionPayload
from .bundle import StageContext
from .decisions import NarrationDecision


def make_windows(messages: list[Message], w: int) -> list[list[Message]]:
    """The buffer fills to w messages, is partitioned, and empties; the tail is a last window."""
    return [messages[i:i + w] for i in range(0, len(messages), w)]


def repair_partition(groups: list[list[int]], n: int) -> tuple[list[list[int]], list[str]]:
    """Make `groups` a partition of 1..n: every index exactly once, nothing out of range.

    Out-of-range and repeated indices are dropped (a repeat stays in its first group); an
    omitted index joins the group of its nearest preceding index, or the first group. Empty
    groups disappear. Returns the repaired groups and a readable note for each repair.
    """
    repairs: list[str] = []
    seen: set[int] = set()
    clean: list[list[int]] = []
    for group in groups:
        kept = []
        for idx in group:
            if not isinstance(idx, int) or idx < 1 or idx > n:
                repairs.append(f"dropped out-of-range index {idx}")
            elif idx in seen:
                repairs.append(f"dropped repeated index {idx}")
            else:
                seen.add(idx)
                kept.append(idx)
        if kept:
            clean.append(sorted(kept))
    if not clean:
        repairs.append("no usable group: the whole window became one episode")
        return [list(range(1, n + 1))], repairs
    for idx in range(1, n + 1):
        if idx in seen:
            continue
        home = _group_of_nearest_before(clean, idx)
        home.append(idx)
        home.sort()
        repairs.append(f"added omitted index {idx} to the episode holding {home[0]}")
    clean.sort(key=lambda g: g[0])
    return clean, repairs


def _group_of_nearest_before(groups: list[list[int]], idx: int) -> list[int]:
    best, best_idx = groups[0], 0
    for group in groups:
        for member in group:
            if best_idx < member < idx:
                best, best_idx = group, member
    return best


def partition_window(c: StageContext, window: list[Message]) -> list[RawEpisode]:
    decision = c.decider.partition(window)
    groups, repairs = repair_partition(decision.groups, len(window))
    topics = decision.topics if len(decision.topics) == len(decision.groups) and not repairs else []
    raws = [RawEpisode(window=c.log.window, index=j, message_ids=[window[i - 1].id for i in group],
                       topic=topics[j] if topics else "") for j, group in enumerate(groups)]
    c.log.emit(PartitionPayload(
        window_message_ids=[m.id for m in window],
        proposed=decision.groups, groups=[r.message_ids for r in raws],
        topics=[r.topic for r in raws], repairs=repairs, fallback=decision.fallback,
    ), message_ids=[m.id for m in window], call_ids=decision.call_ids)
    return raws


def embed_episode_text(embedder: Embedder, cue: str, narrative: str) -> list[float]:
    return embedder.embed([f"{cue}\n{narrative}"])[0].astype(np.float32).tolist()


def narrate_raws(c: StageContext, raws: list[RawEpisode]) -> list[NarrationDecision]:
    """Narratives of one window are independent of each other, so they are written in parallel."""
    groups = [c.messages(raw.message_ids) for raw in raws]
    concurrency = c.config.concurrency
    if concurrency <= 1 or len(groups) <= 1:
        return [c.decider.narrate(g) for g in groups]
    with ThreadPoolExecutor(max_workers=min(concurrency, len(groups))) as pool:
        # each narrative's call serves the window the caller's context names, so it is saved
        # with that window the moment it completes
        jobs = [pool.submit(contextvars.copy_context().run, c.decider.narrate, g) for g in groups]
        return [job.result() for job in jobs]


def build_episode(c: StageContext, raw: RawEpisode, decision: NarrationDecision) -> Episode:
    said = c.messages(raw.message_ids)
    if c.config.episode_match == "narrative+messages":
        # embedded now, into the run's vector cache, so answering finds every line there
        c.embedder.embed([line_text(m) for m in said])
    stamps = [m.timestamp for m in said if m.timestamp]
    return Episode(id=c.state.next_episode_id(), cue=decision.cue, narrative=decision.narrative,
                   message_ids=list(raw.message_ids), window=raw.window,
                   start=min(stamps) if stamps else None, end=max(stamps) if stamps else None,
                   embedding=embed_episode_text(c.embedder, decision.cue, decision.narrative))


def close_in_time(new: Episode, candidates: list[tuple[Episode, float]],
                  gap: timedelta) -> list[tuple[Episode, float]]:
    """The candidates that end at most `gap` before `new` starts (any whose time is unknown
    stays: the model judges it)."""
    return [(e, s) for e, s in candidates
            if new.start is None or e.end is None or new.start - e.end <= gap]


def integrate_episode(c: StageContext, new: Episode) -> Episode:
    """Merge `new` into the episode it continues (§3.2.3), or store it as it is.

    Returns the episode the semantic stages work on: the merged one or `new` itself.
    """
    decider, state, config = c.decider, c.state, c.config
    query = np.asarray(new.embedding, dtype=np.float32)
    within = getattr(decider, "integrates_within_window", True)
    later = not within and any(e.window == new.window for e in state.episodes.values())
    # Without within-window integration (the LLM path, as the official code does), only the
    # first episode of a window may continue an earlier window's, the window's others having
    # just been separated by its partition; so one select call per window at most.
    candidates = [] if later else state.search_episodes(
        query, config.k_e if within else config.k_e + config.window)
    if not within:
        candidates = [(e, s) for e, s in candidates if e.window != new.window][:config.k_e]
    searched = bool(candidates)
    if getattr(decider, "makes_calls", True):
        candidates = close_in_time(new, candidates, MAX_GAP[config.prompts])
    listed = [EpisodeCandidate(id=e.id, score=round(s, 4)) for e, s in candidates]
    if not candidates:
        state.add_episode(new)
        hours = MAX_GAP[config.prompts].total_seconds() / 3600
        skipped = f"no earlier episode within {hours:g} h of it, and the select prompt " \
                  f"merges only episodes close in time: no call" if searched else \
            "no earlier episode to continue" if within else \
            "not the first episode of its window" if later else \
            "no episode of an earlier window to continue"
        c.log.emit(IntegratePayload(episode_id=new.id, candidates=[], choice=-1, skipped=skipped,
                                  result_id=new.id),
                 episode_ids=[new.id], message_ids=new.message_ids)
        return new
    choice = decider.select_integration(new, candidates)
    idx = choice.idx if 1 <= choice.idx <= len(candidates) else -1
    payload = IntegratePayload(episode_id=new.id, candidates=listed, choice=idx,
                               reason=choice.reason, fallback=choice.fallback)
    if idx != choice.idx:
        payload.repair = f"index {choice.idx} is not a candidate: treated as -1"
    if idx == -1:
        state.add_episode(new)
        payload.result_id = new.id
        c.log.emit(payload, episode_ids=[new.id], message_ids=new.message_ids,
                   call_ids=choice.call_ids)
        return new
    old = candidates[idx - 1][0]
    message_ids = old.message_ids + [i for i in new.message_ids if i not in old.message_ids]
    merged_text = decider.merge_episodes(old, new, c.messages(message_ids))
    merged = Episode(id="", cue=merged_text.cue, narrative=merged_text.narrative,
                     message_ids=message_ids, window=new.window, supersedes=[old.id, new.id],
                     start=min(filter(None, [old.start, new.start]), default=None),
                     end=max(filter(None, [old.end, new.end]), default=None),
                     embedding=embed_episode_text(c.embedder, merged_text.cue,
                                                  merged_text.narrative))
    # the new episode is kept (superseded) so the UI can show what was merged into what
    state.add_episode(new, indexed=False)
    merged.id = state.next_episode_id()
    state.add_episode(merged)
    state.supersede_episode(old.id, merged.id)
    state.supersede_episode(new.id, merged.id)
    # the three texts are the stored episodes' (target, episode_id, result_id): not copied here
    payload.target, payload.result_id = old.id, merged.id
    payload.merge_fallback = merged_text.fallback
    c.log.emit(payload, episode_ids=[new.id, old.id, merged.id],
               message_ids=message_ids, call_ids=choice.call_ids + merged_text.call_ids)
    return merged
