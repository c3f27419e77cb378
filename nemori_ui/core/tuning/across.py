"""A named sweep over several conversations: every grid point run on every conversation.

Each (conversation, point) is one task of the caller's executor, so in this process or on Ray
as a single-conversation sweep is; a pair already stored with the same input and settings is
reused as the point, not built again. Every point joins the sweep in the store as it lands, so
a sweep stopped half-way keeps what it finished.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import PurePath
from typing import Callable

import pandas as pd
from pydantic import BaseModel, field_validator, model_validator

from ..clients import DEFAULT_ENV, RunEnvironment
from ..config import PipelineConfig
from ..executors import Place, TaskProgress, TasksFailed, for_points
from ..models import Conversation
from ..pipeline.runner import Clients
from ..store import Store, runs, sweeps
from ..views.existing_runs import finished_run
from .point import PointTask, conversation_replies, run_point_task, warm_up, warms_up
from .records import SweepPoint
from .sweep import flat, point_name, points, spread


class SweepInput(BaseModel):
    """One conversation of a sweep, with the file it came from."""
    conversation: Conversation
    source: str
    fmt: str

    @property
    def key(self) -> str:
        return input_key(self.source, self.conversation.id)


def input_key(source: str, conversation_id: str) -> str:
    """How a sweep names a conversation: the file it came from and its id in that file."""
    return f"{source} · {conversation_id}"


def conversation_label(key: str) -> str:
    """A conversation by its file alone when the file holds only it (its id is the file's
    stem), else by file and id: long keys scrolled the first chips out of sight."""
    source, _, conv_id = key.partition(" · ")
    return source if PurePath(source).stem == conv_id else key


def short_point(point: str, grid: dict[str, list]) -> str:
    """A point's name with only the parameters the sweep varies: 'tau=0.6', not
    'tau=0.6 window=20 variant=nemori' when w and the variant are fixed."""
    varied = [t for t in point.split() if len(grid.get(t.partition("=")[0], [])) > 1]
    return " ".join(varied) or point


def sweep_rows(store: Store, sweep_id: str,
               figures_of: Callable[[runs.RunInfo], SweepPoint]) -> pd.DataFrame:
    """One row per finished run of the sweep: its parameters, the figures `figures_of` gives
    for its run (a point as a sweep reports it), and its conversation."""
    rows = []
    for member in sweeps.members(store, sweep_id):
        info = runs.get_run(store, member.run_id)
        if info.status == "done":
            rows.append({**asdict(flat(figures_of(info))),
                         "conversation": conversation_label(member.conversation)})
    return pd.DataFrame(rows)


def stored_inputs(store: Store) -> dict[str, str]:
    """Every conversation a finished run holds, by key, with its newest such run: the
    conversations a sweep can be run on without their files at hand."""
    rows = store.query("SELECT id, source, conversation_id FROM runs WHERE status = 'done' "
                       "ORDER BY created_at DESC, rowid DESC")
    found: dict[str, str] = {}
    for r in rows:
        found.setdefault(input_key(r["source"], r["conversation_id"]), r["id"])
    return found


def input_from_run(store: Store, run_id: str) -> SweepInput:
    """The conversation a run was built from, as stored with it (messages and questions)."""
    info = runs.get_run(store, run_id)
    return SweepInput(conversation=runs.stored_conversation(store, run_id), source=info.source,
                      fmt=info.format)


class SweepSpec(BaseModel):
    """What a sweep is asked to run: its name, the grid around the base settings, and the
    conversations every point is run on."""
    name: str
    grid: dict[str, list]
    inputs: list[SweepInput]

    @field_validator("name")
    @classmethod
    def _named(cls, name: str) -> str:
        if not name.strip():
            raise ValueError("a sweep needs a name")
        return name.strip()

    @model_validator(mode="after")
    def _conversations(self) -> "SweepSpec":
        keys = [i.key for i in self.inputs]
        if not keys:
            raise ValueError("choose at least one conversation for the sweep")
        if len(set(keys)) < len(keys):
            raise ValueError("a conversation is chosen twice: "
                             + ", ".join(sorted({k for k in keys if keys.count(k) > 1})))
        return self

    def total(self, base: PipelineConfig) -> int:
        return len(points(base, self.grid)) * len(self.inputs)


class Planned(BaseModel):
    """The sweep's (conversation, point) pairs: those to build and those stored already."""
    todo: list[tuple[str, PipelineConfig]]      # (conversation key, settings)
    stored: dict[str, str]                      # pair_name → the stored run's id


def pair_name(key: str, config: PipelineConfig, grid: dict[str, list]) -> str:
    """A (conversation, point) pair's task name: unique within a sweep."""
    return f"{key} · {point_name(config, grid)}"


def plan(store: Store, spec: SweepSpec, base: PipelineConfig) -> Planned:
    todo, stored = [], {}
    for item in spec.inputs:
        for config in points(base, spec.grid):
            found = finished_run(store, item.conversation, item.source, config)
            if found:
                stored[pair_name(item.key, config, spec.grid)] = found
            else:
                todo.append((item.key, config))
    return Planned(todo=todo, stored=stored)


def sweep_across(store: Store, spec: SweepSpec, base: PipelineConfig,
                 make_clients: Callable[[PipelineConfig], Clients], *,
                 env: RunEnvironment = DEFAULT_ENV,
                 on_point: Callable[[int, int], None] | None = None,
                 progress: Callable[[TaskProgress], None] | None = None) -> sweeps.SweepInfo:
    """Store the sweep (or widen the one of this name), run its missing pairs on the
    environment's executor (its key is the one workers must hold) and list every pair as its
    point; `on_point` hears (points landed, total). Failed pairs raise TasksFailed once the
    others landed. Too few missing pairs to pay for fanning out run in this process
    (executors.for_points), said to the environment's `notice`; the stored ones are not
    counted."""
    info = sweeps.open_sweep(store, spec.name, spec.grid, [i.key for i in spec.inputs])
    total, landed = spec.total(base), 0
    by_key = {i.key: i for i in spec.inputs}
    names: dict[str, tuple[str, str]] = {}        # task name → (point, conversation key)

    def land(task: str, run_id: str) -> None:
        nonlocal landed
        point, key = names[task]
        sweeps.add_point(store, info.id, run_id, point, key)
        landed += 1
        if on_point:
            on_point(landed, total)

    planned = plan(store, spec, base)
    executor = for_points(env.executor, len(planned.todo), env.notice)
    tasks = []
    for item in spec.inputs:
        for config in points(base, spec.grid):
            task = pair_name(item.key, config, spec.grid)
            names[task] = (point_name(config, spec.grid), item.key)
            if task in planned.stored:
                land(task, planned.stored[task])
    todo = spread(planned.todo, lambda pair: (pair[0], pair[1].window)) if executor.remote \
        else planned.todo
    for key, config in todo:
        item = by_key[key]
        task = pair_name(key, config, spec.grid)
        tasks.append(PointTask(name=task, conversation=item.conversation, config=config,
                               source=item.source, fmt=item.fmt,
                               seed=conversation_replies(store, item.conversation, config)
                               if executor.remote else None))
    def prepare() -> None:
        firsts: dict[str, PipelineConfig] = {}
        for key, config in planned.todo:
            firsts.setdefault(key, config)
        for key, config in firsts.items():
            warm_up(by_key[key].conversation, make_clients(config))

    if tasks:
        place = Place(store=store, clients=make_clients,
                      key=env.worker_key(base) if executor.remote else None,
                      prepare=prepare if warms_up(base, len(tasks), executor.remote) else None)
        failures = executor.run(run_point_task, tasks, place,
                                on_done=lambda name, point: land(name, point.run_id),
                                progress=progress)
        if failures:
            raise TasksFailed(failures)
    return info

