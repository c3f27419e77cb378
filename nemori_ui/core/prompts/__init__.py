"""The prompts of every LLM stage: pure functions returning chat messages, each with the
pydantic model of its reply beside it, and the decider that asks them through the gateway.

Each module exposes `NAME` (the prompt name the gateway tallies usage under), `SYSTEM`,
a reply model, and `render(...) -> list[dict]`.
"""

from __future__ import annotations

from . import (answer, anticipate, consolidate, direct_distill, distill, integrate, narrate,
               partition, select, summarize)

PROMPTS = {m.NAME: m for m in (partition, narrate, select, integrate, anticipate, distill,
                               direct_distill, consolidate, summarize, answer)}

# Which stage of the method each prompt serves, for cost breakdowns.
STAGE_OF = {"partition": "partition", "narrate": "narration", "select": "integration",
            "integrate": "integration", "anticipate": "semantic", "distill": "semantic",
            "distill_direct": "semantic", "consolidate": "semantic", "summarize": "semantic",
            "answer": "answer"}

__all__ = ["PROMPTS", "STAGE_OF", "answer", "anticipate", "consolidate", "direct_distill",
           "distill", "integrate", "narrate", "partition", "select", "summarize"]
