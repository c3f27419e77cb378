"""CPU time of processes from Linux's /proc, shared by the benchmarks that measure it."""

from __future__ import annotations

import os
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")


def stat_fields(pid: int | str) -> list[str]:
    """/proc/<pid>/stat's fields after the command name (utime is [11], cutime [13])."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def own_cpu(fields: list[str]) -> float:
    """The process's own CPU seconds (user and system) from its stat fields."""
    return (int(fields[11]) + int(fields[12])) / TICK


def waited_children_cpu(fields: list[str]) -> float:
    """CPU seconds of the process's children that ended and were waited for."""
    return (int(fields[13]) + int(fields[14])) / TICK
