"""What an episode's distillation reads, and the one class of each statement it skipped.

An episode that continues an earlier one (integration, §3.2.3) holds the earlier part's
messages, which an earlier distillation read already. Reading them again would distil them
twice and call every statement of the first part "predicted" by the memories it taught. So a
distillation reads only the messages no distillation has read (`unread`), with the earlier
part's knowledge among what it is predicted from; and a statement skipped because a memory
held it is classed by that memory (`classify`): *predicted* when the memory was learnt only
from messages outside the episode (what prediction saved), *carried* when it was learnt from
the episode itself (its earlier part: the episode repeating itself is no prediction).
"""

from __future__ import annotations

import numpy as np

from ..models import Message, SemanticMemory
from ..stage_events import CoveredStatement


def unread(messages: list[Message], distilled: set[str]) -> tuple[list[Message], list[str]]:
    """(the messages to distil, the ids of those an earlier distillation read)."""
    fresh = [m for m in messages if m.id not in distilled]
    return fresh, [m.id for m in messages if m.id in distilled]


def first_told(memory: SemanticMemory, statement: str = "",
               said: dict[str, Message] | None = None, embed=None) -> str | None:
    """The message a memory learnt the statement from: of a memory merged from several, the
    one nearest to the statement in meaning (with `said`, the messages by id, and `embed`),
    else the earliest (message ids are numbered in order: `m0001`, ..., `m10000`)."""
    ids = memory.source_message_ids
    known = [i for i in ids if said and i in said]
    if len(known) > 1 and statement and embed is not None:
        vecs = embed([statement] + [said[i].text for i in known])
        return known[int(np.argmax(vecs[1:] @ vecs[0]))]
    return min(ids, key=lambda i: (len(i), i), default=None)


def classify(covered: list[CoveredStatement], held_by: dict[str, SemanticMemory],
             episode_message_ids: list[str], said: dict[str, Message] | None = None,
             embed=None) -> list[CoveredStatement]:
    """Each skipped statement with its class, the memory that held it and the message that
    memory learnt it from (`first_told`). `held_by` maps a prediction line to the memory it
    states. A statement whose line states no known memory is carried: precision first,
    prediction is claimed only where the memory that made it is known to come from outside
    the episode."""
    inside = set(episode_message_ids)
    out = []
    for c in covered:
        memory = held_by.get((c.predicted_by or "").strip())
        outside = memory is not None and memory.source_message_ids and \
            not set(memory.source_message_ids) & inside
        update = {"kind": "predicted" if outside else "carried"}
        if memory is not None:
            update |= {"memory_id": memory.id,
                       "learnt_from": first_told(memory, c.text, said, embed)}
        out.append(c.model_copy(update=update))
    return out
