"""A large finished run written straight into a store, for the page benchmarks.

    from synthetic_run import synthesise
    run_id = synthesise(home, n_memories=5000, n_episodes=300)

Clustered random 384-d unit vectors, plausible texts, integrated episodes, merged and
conflicting memories with their successors, and every stage's events, saved window by window
through the run store with the records and event payloads the pipeline writes.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.models import Conversation, Episode, Message, SemanticMemory
from nemori_ui.core.deciders.offline import OFFLINE_LABEL
from nemori_ui.core.stage_events import StageEvent, build_event
from nemori_ui.core.store import open_store, records, runs

DIM, TOPICS = 384, 40
PEOPLE = ["Maya", "Jonas", "Lena", "Priya"]
SUBJECTS = ["I", "My sister", "The team", "Our neighbour", "My manager", "Jonas", "Lena"]
VERBS = ["visited", "talked about", "booked", "cancelled", "recommended", "moved to", "started",
         "finished", "painted", "signed up for"]
OBJECTS = ["the museum in Porto", "a pottery class", "the new job at Finch Labs", "Lisbon in May",
           "the support group", "a camping trip", "the 10k race", "the dance studio",
           "a sunset by the lake", "the irrigation project", "green tea", "a cat called Pixel"]
TAILS = ["yesterday.", "last week.", "on Friday.", "with the kids.", "after work.", "again.",
         "for the third time.", "on 12 April."]


def sentence(rng: random.Random) -> str:
    return f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} {rng.choice(TAILS)}"


class Vectors:
    """Unit vectors around a few topic centres, so the map and the neighbours have structure."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.centres = self._unit(self.rng.normal(size=(TOPICS, DIM)))

    @staticmethod
    def _unit(x: np.ndarray) -> np.ndarray:
        return x / np.linalg.norm(x, axis=-1, keepdims=True)

    def near(self, topic: int, spread: float = 0.9) -> list[float]:
        v = self.centres[topic] + spread * self._unit(self.rng.normal(size=DIM))
        return self._unit(v).astype(np.float32).tolist()


def plan(rng: random.Random, n_memories: int, n_episodes: int, window: int,
         n_windows: int | None = None):
    """Cuts per window (1 to 3 raw episodes each) and the insights of each raw episode: as
    many windows as hold n_episodes, or n_windows when given.

    Every insight becomes one memory record (a merge or a conflict too: it supersedes
    another), so the quotas add up to the number of memories asked for.
    """
    cuts = []
    while (len(cuts) < n_windows if n_windows else sum(len(c) + 1 for c in cuts) < n_episodes):
        cuts.append(sorted(rng.sample(range(1, window), k=rng.randint(0, 2))))
    raw_total = sum(len(c) + 1 for c in cuts)
    quota = [n_memories // raw_total] * raw_total
    for i in rng.sample(range(raw_total), n_memories % raw_total):
        quota[i] += 1
    return cuts, quota


def conversation(rng: random.Random, n_messages: int) -> Conversation:
    messages, stamp, session = [], datetime(2024, 1, 8, 18, 0), 1
    for i in range(n_messages):
        if i and i % 60 == 0:
            stamp, session = stamp + timedelta(days=rng.randint(2, 6)), session + 1
        stamp += timedelta(minutes=rng.randint(1, 3))
        who = PEOPLE[i % 2] if rng.random() > 0.1 else rng.choice(PEOPLE[2:])
        messages.append(Message(id=f"m{i + 1:05d}", speaker=who, text=sentence(rng),
                                timestamp=stamp, session=session, source_ref=f"line {i + 1}"))
    return Conversation(id="synthetic", messages=messages, speakers=PEOPLE)


class Synth:
    """Writes windows the way the pipeline does: the same records and event payloads."""

    def __init__(self, seed: int, tau: float):
        self.rng, self.vec, self.tau = random.Random(seed), Vectors(seed), tau
        self.episodes: dict[str, Episode] = {}
        self.memories: dict[str, SemanticMemory] = {}
        self.active_eps: list[str] = []
        self.active_mems: list[str] = []
        self.seq = 0

    def event(self, stage: str, w: int, payload: dict, **ids) -> StageEvent:
        self.seq += 1
        return build_event(dict(stage=stage, window=w, seq=self.seq - 1, payload=payload, **ids))

    def sample(self, ids: list[str], k: int) -> list[str]:
        return self.rng.sample(ids, min(k, len(ids)))

    def window(self, w: int, batch: list[Message], cuts: list[int], quota: list[int]):
        """(episodes, memories, events) one window writes, superseded old records included."""
        rng, events, touched_eps, touched_mems = self.rng, [], set(), set()
        bounds = [0, *cuts, len(batch)]
        groups = [[m.id for m in batch[a:b]] for a, b in zip(bounds, bounds[1:])]
        topics = ["window start"] + [f"topic shift (similarity valley {rng.uniform(.05, .4):.2f})"
                                     for _ in groups[1:]]
        events.append(self.event("partition", w, {
            "window_message_ids": [m.id for m in batch], "groups": groups, "topics": topics,
            "proposed": [list(range(a + 1, b + 1)) for a, b in zip(bounds, bounds[1:])],
            "repairs": [], "fallback": None}, message_ids=[m.id for m in batch]))
        by_id = {m.id: m for m in batch}
        for group, label in zip(groups, topics):
            topic = rng.randrange(TOPICS)
            current = self.episode(w, group, label, topic, by_id, events, touched_eps)
            self.semantic(w, current, group, topic, quota.pop(), by_id, events, touched_mems)
        return ([self.episodes[i] for i in sorted(touched_eps)],
                [self.memories[i] for i in sorted(touched_mems)], events)

    def episode(self, w, group, label, topic, by_id, events, touched) -> Episode:
        """Narrate a raw episode and integrate it (about one in eight continues an old one)."""
        first = by_id[group[0]]
        other = "Jonas" if first.speaker == "Maya" else "Maya"
        cue = f"{first.speaker} and {other}, {first.timestamp:%d %B %Y}: {first.text[:-1]}"
        narrative = " ".join(f"{by_id[i].speaker}: {by_id[i].text}" for i in group)
        new = Episode(id=f"ep{len(self.episodes) + 1:04d}", cue=cue, narrative=narrative,
                      message_ids=group, window=w, start=first.timestamp,
                      end=by_id[group[-1]].timestamp, embedding=self.vec.near(topic))
        self.episodes[new.id] = new
        touched.add(new.id)
        events.append(self.event("narrate", w, {"episode_id": new.id, "cue": cue,
                                                "narrative": narrative, "topic": label,
                                                "fallback": None},
                                 episode_ids=[new.id], message_ids=group))
        candidates = [{"id": e, "score": round(self.rng.uniform(.3, .8), 4),
                       "cue": self.episodes[e].cue} for e in self.sample(self.active_eps, 5)]
        if not candidates or self.rng.random() >= 0.12:
            events.append(self.event("integrate", w, {
                "episode_id": new.id, "candidates": candidates, "choice": -1,
                "reason": "a different event", "fallback": None, "result_id": new.id},
                episode_ids=[new.id], message_ids=group))
            self.active_eps.append(new.id)
            return new
        old = self.episodes[candidates[0]["id"]]
        merged = Episode(id=f"ep{len(self.episodes) + 1:04d}", cue=old.cue,
                         narrative=f"{old.narrative} {narrative}",
                         message_ids=old.message_ids + group, window=w,
                         supersedes=[old.id, new.id], start=old.start, end=new.end,
                         embedding=self.vec.near(topic, 0.5))
        self.episodes[merged.id] = merged
        for gone in (old, new):
            gone.status, gone.superseded_by = "superseded", merged.id
        self.active_eps.remove(old.id)
        self.active_eps.append(merged.id)
        touched |= {old.id, merged.id}
        events.append(self.event("integrate", w, {
            "episode_id": new.id, "candidates": candidates, "choice": 1,
            "reason": "same event, close in time", "fallback": None, "target": old.id,
            "result_id": merged.id, "before": {"cue": old.cue, "narrative": old.narrative},
            "incoming": {"cue": new.cue, "narrative": new.narrative},
            "after": {"cue": merged.cue, "narrative": merged.narrative},
            "merge_fallback": None}, episode_ids=[new.id, old.id, merged.id],
            message_ids=merged.message_ids))
        return merged

    def semantic(self, w, episode, group, topic, count, by_id, events, touched) -> None:
        """Anticipate, distill `count` insights, and consolidate each (8% merge or conflict)."""
        rng, mems = self.rng, self.memories
        evoked = [{"id": m, "text": mems[m].text, "score": round(rng.uniform(.4, .9), 4)}
                  for m in self.sample(self.active_mems, 10)]
        for item in evoked:
            item["passed"] = item["score"] > self.tau
        prediction = "\n".join(i["text"] for i in evoked if i["passed"])
        events.append(self.event("anticipate", w, {
            "episode_id": episode.id, "cue": episode.cue, "tau": self.tau,
            "management": "native", "evoked": evoked, "prediction": prediction,
            "fallback": None}, episode_ids=[episode.id],
            memory_ids=[i["id"] for i in evoked if i["passed"]]))
        insights = [{"text": f"{by_id[i].speaker}: {by_id[i].text}", "source_message_ids": [i]}
                    for i in (rng.choice(group) for _ in range(count))]
        covered = [{"text": by_id[i].text, "message_id": i, "predicted_by": evoked[0]["id"],
                    "score": 0.8} for i in group[:1] if evoked]
        events.append(self.event("distill", w, {
            "episode_id": episode.id, "mode": "prediction-error", "prediction": prediction,
            "insights": insights, "covered": covered, "raw_messages": len(episode.message_ids),
            "fallback": None}, episode_ids=[episode.id], message_ids=episode.message_ids))
        for insight in insights:
            listed = [{"id": m, "text": mems[m].text, "score": round(rng.uniform(.3, .9), 4)}
                      for m in self.sample(self.active_mems, 5)]
            roll = rng.random()
            action = ("new" if not listed or roll < 0.92 else
                      "merge" if roll < 0.97 else "conflict")
            targets = [listed[0]["id"]] if action != "new" else []
            memory = SemanticMemory(
                id=f"sm{len(mems) + 1:04d}", text=insight["text"], origin=action,
                supersedes=targets, window=w, source_episode_ids=[episode.id],
                source_message_ids=insight["source_message_ids"],
                embedding=self.vec.near(topic, 1.2))
            mems[memory.id] = memory
            self.active_mems.append(memory.id)
            for t in targets:
                mems[t].status, mems[t].superseded_by = "superseded", memory.id
                self.active_mems.remove(t)
            touched |= {memory.id, *targets}
            payload = {"episode_id": episode.id, "insight": insight["text"],
                       "source_message_ids": insight["source_message_ids"],
                       "candidates": listed, "action": action, "targets": targets,
                       "result_id": memory.id, "result_text": memory.text}
            if listed:
                payload.update(reason=f"{action} (synthetic)", fallback=None)
            else:
                payload["skipped"] = "no existing memory to compare with"
            events.append(self.event("consolidate", w, payload, episode_ids=[episode.id],
                                     message_ids=insight["source_message_ids"],
                                     memory_ids=[memory.id, *targets]))


def synthesise(home: Path, n_memories: int, n_episodes: int, window: int = 20,
               seed: int = 7, n_messages: int | None = None) -> str:
    """Write one finished run of the given size; returns its id."""
    rng = random.Random(seed)
    windows = -(-n_messages // window) if n_messages else None
    cuts, quota = plan(rng, n_memories, n_episodes, window, windows)
    conv = conversation(rng, len(cuts) * window)
    config = PipelineConfig(window=window)
    store = open_store(home)
    run_id = runs.create_run(store, conv, config, source="synthetic.jsonl", fmt="jsonl",
                             decider=OFFLINE_LABEL, windows_total=len(cuts),
                             name=f"synthetic · {n_memories} memories")
    synth = Synth(seed, config.tau)
    for w, window_cuts in enumerate(cuts):
        batch = conv.messages[w * window:(w + 1) * window]
        episodes, memories, events = synth.window(w, batch, window_cuts, quota)
        records.save_window(store, run_id, w, episodes=episodes, memories=memories,
                            events=events, calls=[])
    runs.set_status(store, run_id, "done")
    return run_id
