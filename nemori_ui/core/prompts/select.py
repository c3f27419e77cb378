"""P_sel (§3.2.3): does a new episode continue one of the similar earlier episodes?"""

from __future__ import annotations

from datetime import timedelta

from pydantic import BaseModel, Field

from ..models import Episode
from .render import chat, episode_of

NAME = "select"

# Candidates are shown abridged: K_e full narratives (merged ones grow with every merge) would
# make this the costliest prompt, and title, time and the narrative's two ends decide continuity.
CANDIDATE_CHARS = 400

STRICT = """\
You decide whether a new episode of a conversation is the continuation of an earlier one that
was cut off, so the two can be stored as a single memory.

Be conservative. Choose a candidate only when both hold:
- it is the same ongoing event or exchange (the same activity, the same thread of talk), not
  merely a related topic, the same people, or a recurring subject;
- it is close in time: the new episode picks up where the candidate stopped, the same day.
Otherwise answer -1. When in doubt, answer -1.

Reply with JSON: {"reason": "one sentence", "idx": k}, where k is the candidate number
(1 to the number of candidates) or -1 for none."""

PAPER = """\
You decide whether a new episodic memory should be merged into one of the existing episodes
that resemble it, or kept as a separate episode.

Merge only when all of these hold:
- both describe the same event or the same conversation session;
- they overlap in time or are very close to each other in time;
- the new episode clearly continues the candidate, or tells the same topic from another
  side, so that merging gives a fuller picture without mixing different events.

Do not merge when:
- they are different events or conversations, even about a similar topic;
- more than about an hour separates them;
- they happen in different contexts or with different participants.

Reply with JSON only: {"reason": "brief explanation", "idx": k}, where k is the number of the
candidate to merge with (1 to the number of candidates), or -1 to keep the episode separate."""

SYSTEMS = {"paper": PAPER, "strict": STRICT}

# Each text merges only episodes close in time (paper: about an hour apart at most; strict: the
# same day). A candidate further off than twice that cannot be chosen, so it is not shown, and
# with none left no call is made; up to twice, the model still decides.
MAX_GAP = {"paper": timedelta(hours=2), "strict": timedelta(hours=48)}


class SelectReply(BaseModel):
    # the reason comes first so a model states its grounds before it commits to a number
    reason: str = Field(description="one sentence on why")
    idx: int = Field(description="candidate number, or -1 for none")


def render(new: Episode, candidates: list[Episode], preset: str = "paper") -> list[dict]:
    listed = "\n\n".join(f"Candidate [{k}]\n{episode_of(c, CANDIDATE_CHARS)}"
                         for k, c in enumerate(candidates, start=1))
    user = (f"New episode:\n{episode_of(new)}\n\n"
            f"Earlier episodes (candidates 1 to {len(candidates)}):\n\n{listed}")
    return chat(SYSTEMS[preset], user)
