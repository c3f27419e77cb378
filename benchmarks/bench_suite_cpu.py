"""Where the test suite's time goes: its wall time, how busy the machine's cores were, and the
CPU seconds of each kind of process it started (Chromium, the app's servers, CLI and job
subprocesses, the map's layout processes, Ray, the pytest workers).

    python benchmarks/bench_suite_cpu.py [pytest arguments, e.g. tests/test_browser_map.py]

Runs `python -m pytest -q` with the arguments given and reads /proc every half second: each
process's CPU time as last seen (a process that lives less than half a second is missed, and
one that ends loses its last half second), and the machine's busy and idle time from
/proc/stat, which misses nothing. A suite that keeps the cores busy is bound by its CPU, one
that leaves them idle by its waits; the kinds show which processes to make cheaper. Run it on
an otherwise quiet machine: the machine figure counts every process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from proc_stat import TICK, own_cpu, stat_fields

# the first kind whose word is in a process's command line names it
KINDS = (("chromium", "Chromium"), ("streamlit", "app servers (and their map process)"),
         ("ray", "Ray"), ("playwright", "Playwright's driver"), ("node", "Playwright's driver"),
         ("exec(eval(", "pytest workers"), ("projection_worker", "the map's layout processes"),
         ("nemori_ui", "CLI and job subprocesses"),
         ("pytest-of-", "CLI and job subprocesses"), ("pytest", "pytest"))
KERNEL = "the kernel's threads (and processes seen only as they ended)"


def kind_of(cmdline: str) -> str:
    for word, kind in KINDS:
        if word in cmdline:
            return kind
    return "other processes" if cmdline.strip() else KERNEL


def machine_ticks() -> tuple[int, int]:
    """(all, idle) ticks of every core since boot; idle counts waiting for I/O too."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return sum(fields), fields[3] + fields[4]


def process_cpu() -> dict[int, tuple[str, float]]:
    """Each live process's kind and CPU seconds so far."""
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cpu = own_cpu(stat_fields(entry))
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(
                errors="replace")
        except OSError:     # it ended meanwhile
            continue
        out[int(entry)] = (kind_of(cmdline), cpu)
    return out


def main() -> None:
    before = process_cpu()      # what ran before the suite counts only from now on
    all0, idle0 = machine_ticks()
    start = time.monotonic()
    suite = subprocess.Popen([sys.executable, "-m", "pytest", "-q", *sys.argv[1:]])
    seen: dict[int, tuple[str, float]] = {}
    while suite.poll() is None:
        for pid, (kind, cpu) in process_cpu().items():
            # a process on its way out shows no command line: it keeps the kind it had
            first = seen.get(pid, (kind, 0.0))[0]
            seen[pid] = (kind if first == KERNEL else first, cpu)
        time.sleep(0.5)
    wall = time.monotonic() - start
    all1, idle1 = machine_ticks()
    by_kind: Counter = Counter()
    count: Counter = Counter()
    for pid, (kind, cpu) in seen.items():
        by_kind[kind] += cpu - (before[pid][1] if pid in before else 0.0)
        count[kind] += 1
    total, busy = (all1 - all0) / TICK, (all1 - all0 - (idle1 - idle0)) / TICK
    print(f"\nsuite exit code {suite.returncode}; wall {wall:.0f} s; the cores were busy "
          f"{busy:.0f} of {total:.0f} CPU-s ({100 * busy / max(total, 1e-9):.0f} %)")
    print(f"{'CPU-s':>8} {'processes':>9}  kind")
    for kind, cpu in by_kind.most_common():
        print(f"{cpu:>8.1f} {count[kind]:>9}  {kind}")
    sys.exit(suite.returncode)


if __name__ == "__main__":
    main()
