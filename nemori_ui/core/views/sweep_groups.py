"""Saved runs grouped by sweep: a sweep's points are one group under its name, not one row
each among every other run."""

from __future__ import annotations

from ..store import Store, sweeps


def grouped(ids: list[str], members: list[sweeps.SweepMember]
            ) -> tuple[list[str], dict[str, list[str]]]:
    """(the runs of no sweep, {sweep id: its runs}), both in the order of `ids` (newest
    first); a run reused by two sweeps is in both groups. A sweep none of whose runs is
    left has no group."""
    listed = set(ids)
    groups: dict[str, set[str]] = {}
    for m in members:
        if m.run_id in listed:
            groups.setdefault(m.sweep_id, set()).add(m.run_id)
    in_sweeps = set().union(*groups.values()) if groups else set()
    return ([i for i in ids if i not in in_sweeps],
            {sweep_id: [i for i in ids if i in runs_] for sweep_id, runs_ in groups.items()})


def sweep_groups(store: Store, ids: list[str]
                 ) -> tuple[list[str], list[tuple[sweeps.SweepInfo, list[str]]]]:
    """The runs of no sweep, and each sweep (newest first) with its runs."""
    loose, groups = grouped(ids, sweeps.members(store))
    return loose, [(s, groups[s.id]) for s in sweeps.list_sweeps(store) if s.id in groups]
