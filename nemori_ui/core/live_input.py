"""What a live run is fed: a message as the presenter typed it (checked and dated), a
transcript played into it one message at a time (going on where an earlier play of it stopped),
and the demo script. Kept apart from the feed that stores and processes them (`live`), so a
page or the command line that only asks how a fed run resumes loads no feed.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

from .models import Message

TYPED = "live: typed"
FED = ("api", "live")  # formats of runs fed message by message: their buffer stays pending
DEMO = Path(__file__).resolve().parents[1] / "data" / "live_demo.txt"
DEMO_WINDOW = 10      # the demo's windows close every ten messages: three windows in all


AGAIN = re.compile(r"^(?P<base>.*) · again(?: (?P<n>\d+))?$")


def replay_name(name: str) -> str:
    """The name of a memory that plays a run's transcript again: "demo · again", then
    "demo · again 2", "demo · again 3", so restarting a restart stays readable."""
    found = AGAIN.match(name)
    if found is None:
        return f"{name} · again"
    return f"{found['base']} · again {int(found['n'] or 1) + 1}"


def keeps_buffer(fmt: str) -> bool:
    """Whether resuming a run of this format leaves its partial window pending (a run fed
    by the Python API or the Live page) rather than closing it, as the end of a `run` does."""
    return fmt in FED


LIVE_GAP_S = 24 * 3600   # a last message older than this is a script's clock, not the present


def typed_time(last: datetime | None, now: datetime) -> datetime:
    """When a typed message is dated: now in a conversation going on now; right after the
    last message when that one came from a transcript dated elsewhere (a 2024 script), so a
    message typed after it does not jump to today."""
    if last is None or timedelta(0) <= now - last <= timedelta(seconds=LIVE_GAP_S):
        return now
    return last + timedelta(minutes=1)


def typed_message(speaker: str, text: str, *, when: datetime | None = None) -> Message:
    """A message as the presenter typed it; refused when the speaker or the text is empty."""
    from .errors import InputError
    if not speaker.strip():
        raise InputError("a live message needs a speaker")
    if not text.strip():
        raise InputError("a live message needs some text")
    from .transcripts.fields import message_problem
    problem = message_problem(speaker.strip(), text.strip())
    if problem:
        raise InputError(f"a live message: {problem}")
    return Message(id="", speaker=speaker.strip(), text=text.strip(),
                   timestamp=when or datetime.now(timezone.utc).replace(tzinfo=None,
                                                                        microsecond=0))


def played_so_far(existing: list[Message], script: list[Message],
                  source: str) -> tuple[int, int | None]:
    """How much of `script` the run already holds from an earlier play of `source`, and the
    session offset it was played with. A play's position lives in the server, so after a
    restart loading the same transcript again goes on where it stopped rather than storing
    its first messages a second time."""
    played = [m for m in existing if (m.source_ref or "").startswith(f"{source}: ")]
    n = 0
    for stored, given in zip(played, script):
        if (stored.speaker, stored.text) != (given.speaker, given.text):
            break
        n += 1
    if not n:
        return 0, None
    return n, played[0].session - script[0].session


class Script:
    """A transcript played into the run one message at a time; sessions follow the run's."""

    def __init__(self, messages: list[Message], source: str, session_offset: int):
        self.messages = messages
        self.source = source
        self.session_offset = session_offset
        self.position = 0                  # messages of it added so far

    @property
    def done(self) -> bool:
        return self.position >= len(self.messages)

    @property
    def next_message(self) -> Message | None:
        return None if self.done else self.messages[self.position]
