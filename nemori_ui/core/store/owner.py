"""Which process is running a run, and whether that process still exists.

A run killed by SIGKILL (or a power cut) cannot mark itself interrupted, so its row keeps
saying "running". The row also names its owner (host, pid and the process's start time, so a
recycled pid is not mistaken for the owner); a reader on the same host can then tell that the
owner is gone and show the run as interrupted, to be resumed.
"""

from __future__ import annotations

import os
import socket


def _proc_stat(pid: int) -> tuple[str, str]:
    """(state, start time in clock ticks since boot) of a process; ('', '') without /proc."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read().decode("ascii", "replace")
    except OSError:
        return "", ""
    # the command name (field 2) may hold spaces and parentheses: count from the last ')'
    fields = stat[stat.rfind(")") + 2:].split()
    return (fields[0], fields[19]) if len(fields) > 19 else ("", "")


def _start_time(pid: int) -> str:
    return _proc_stat(pid)[1]


def this_process() -> str:
    pid = os.getpid()
    return f"{socket.gethostname()}:{pid}:{_start_time(pid)}"


def owner_gone(owner: str | None) -> bool:
    """True when the owner is known to have ended: same host, and its pid is dead or reused;
    or no owner was recorded at all.

    An owner on another host, or one this process cannot check, counts as alive: calling a live
    run interrupted would invite a second process to resume it.
    """
    if not owner:
        # only rows written before owners were recorded have none; their processes, of an
        # older version, are long gone
        return True
    host, _, rest = owner.partition(":")
    pid_text, _, started = rest.partition(":")
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OSError):
        return False        # exists, owned by another user
    state, now_started = _proc_stat(pid)
    if state in ("Z", "X"):     # killed, not yet reaped by its parent
        return True
    return bool(started) and now_started not in ("", started)
