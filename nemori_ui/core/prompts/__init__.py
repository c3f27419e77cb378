"""The prompts of every LLM stage: pure functions returning chat messages, each with the
pydantic model of its reply beside it, and the decider that asks them through the gateway.

Each module exposes `NAME` (the prompt name the gateway tallies usage under), `SYSTEMS` (the
system text of each preset), a reply model, and `render(..., preset) -> list[dict]`.

Presets: `paper` (the default) writes each prompt to the intent, rules, output and examples
of the official implementation's prompt for that stage; `strict` keeps our own, stricter
texts. A run stores its preset, so its calls can always be read beside the texts that made
them.
"""

from __future__ import annotations

from . import (answer, anticipate, cold_start, consolidate, consolidate_episode, direct_distill,
               distill, integrate, judge, narrate, partition, select, summarize)

PRESETS = ("paper", "strict")

PROMPTS = {m.NAME: m for m in (partition, narrate, select, integrate, anticipate, distill,
                               direct_distill, cold_start, consolidate, consolidate_episode,
                               summarize, answer)}

# Which stage of the method each prompt serves, for cost breakdowns.
STAGE_OF = {"partition": "partition", "narrate": "narration", "select": "integration",
            "integrate": "integration", "anticipate": "semantic", "distill": "semantic",
            "distill_direct": "semantic", "cold_start": "semantic", "consolidate": "semantic",
            "consolidate_episode": "semantic", "summarize": "semantic",
            "answer": "answer", "judge": "judge", "judge_longmemeval": "judge"}

# Output caps (max_tokens) per prompt, sized to the longest reply the stage needs with room
# to spare. Without one, a small local model that loops inside a JSON string writes until
# the timeout. A reply cut at its cap is retried once with a doubled cap.
MAX_TOKENS = {"partition": 512, "narrate": 512, "select": 160, "integrate": 768,
              "anticipate": 384, "distill": 512, "distill_direct": 512, "cold_start": 512,
              "consolidate": 256, "consolidate_episode": 1024,
              "summarize": 2048, "answer": 384, "judge": 160, "judge_longmemeval": 160}


def prompt_texts(preset: str = "paper", dates: str = "preset") -> dict[str, str]:
    """The system text of every prompt of a preset, by prompt name, as a run sends them."""
    out = {name: module.SYSTEMS[preset] for name, module in PROMPTS.items()}
    out["distill"] = distill.system(preset, dates)
    out["distill_direct"] = direct_distill.system(preset, dates)
    out["cold_start"] = cold_start.system(preset, dates)
    return out


__all__ = ["MAX_TOKENS", "PRESETS", "PROMPTS", "STAGE_OF", "answer", "anticipate",
           "cold_start", "consolidate", "consolidate_episode", "direct_distill", "distill",
           "integrate", "judge", "narrate", "partition", "prompt_texts", "select", "summarize"]
