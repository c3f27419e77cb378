"""What of a transcript to append a run already holds.

A run is built from parts: the transcript it was created from, then each append. A transcript
given again (an append re-run after it finished or was killed, the run's own file, an export
of a chat that has grown since) starts with messages the run holds; they must not be stored
twice. Messages compare by what they say (speaker, role, text, timestamp): ids, sessions and
source references are renumbered when a part is added.

A match starts where a part of the run starts, and is at least two messages long unless it
is a whole part given again unchanged (the same content hash): a transcript opening with a
common line ("ok") that a message of the run also says is not taken for held content.
"""

from __future__ import annotations

from pydantic import BaseModel

from ..models import Message
from ..store.runs import content_hash

MIN_HELD = 2     # one line alone is too common to tell a repeat from a re-run


class Part(BaseModel):
    start: int            # position of its first message in the run (0-based)
    count: int
    label: str            # "its transcript a.txt", "append 2 from b.txt"
    seq: int | None = None   # the append's number; None for the transcript
    hash: str | None = None  # content hash of its messages as they were given


class Held(BaseModel):
    """The leading messages of the transcript that the run holds already."""
    count: int = 0        # how many (0: none)
    at: int = 0           # the run's position of the first of them (0-based)
    part: str = ""        # the part of the run they start in
    seq: int | None = None   # that part's append number (None: the run's transcript)
    diverges: bool = False   # the run holds them, then goes on with other messages

    def run_ids(self) -> str:
        """The run's message ids that hold them: 'm0066-m0095'."""
        first, last = f"m{self.at + 1:04d}", f"m{self.at + self.count:04d}"
        return first if self.count == 1 else f"{first}-{last}"


def key(m: Message) -> tuple:
    return (m.speaker, m.role, m.text, m.timestamp)


def _common(stored: list[tuple], incoming: list[tuple]) -> int:
    n = 0
    for a, b in zip(stored, incoming):
        if a != b:
            break
        n += 1
    return n


def held_prefix(stored: list[Message], parts: list[Part], incoming: list[Message]) -> Held:
    """The longest start of `incoming` that the run holds from the beginning of one of its
    parts. It counts when it is the whole of `incoming`, or reaches the run's last message
    (the rest is new); a match that covers a whole part and then differs from the run's next
    message `diverges` (appending the rest would put it after messages it did not follow)."""
    stored_keys, incoming_keys = [key(m) for m in stored], [key(m) for m in incoming]
    given = content_hash(incoming)
    best = Held()
    for part in parts:
        k = _common(stored_keys[part.start:], incoming_keys)
        if not k or (k < MIN_HELD and part.hash != given):
            continue
        if k == len(incoming_keys) or part.start + k == len(stored_keys):
            found = Held(count=k, at=part.start, part=part.label, seq=part.seq)
        elif k >= part.count:
            found = Held(count=k, at=part.start, part=part.label, seq=part.seq,
                         diverges=True)
        else:
            continue
        if (found.count, not found.diverges) > (best.count, not best.diverges):
            best = found
    return best


def parts_of(stored: list[Message], transcript: str,
             appends: list[tuple[int, int, int, str, str]]) -> list[Part]:
    """The run's parts from its messages, its transcript's name and its appends (seq, first
    position, count, source, content hash as given). The transcript's messages are stored
    as they were given, so its hash is theirs."""
    first = min((a[1] for a in appends), default=len(stored))
    parts = [Part(start=0, count=first, label=f"its transcript {transcript}",
                  hash=content_hash(stored[:first]))] if first else []
    return parts + [Part(start=start, count=count, label=f"append {seq} from {source}",
                         seq=seq, hash=given)
                    for seq, start, count, source, given in appends if count]
