"""Every prompt renders well-formed chat messages that carry its inputs, identically each time."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest

from nemori_ui.core.llm.schema import schema_of, strict_schema
from nemori_ui.core.models import Episode, Message
from nemori_ui.core.prompts import (PRESETS, PROMPTS, STAGE_OF, answer, anticipate, cold_start,
                                    consolidate, consolidate_episode, direct_distill, distill,
                                    integrate, narrate, partition, prompt_texts, select,
                                    summarize)
from nemori_ui.core.llm.schema import FreeText
from nemori_ui.core.prompts.render import numbered_messages

T0 = datetime(2023, 5, 8, 13, 56)


def msgs(*texts: str) -> list[Message]:
    return [Message(id=f"m{i + 1:04d}", speaker="Caroline" if i % 2 == 0 else "Melanie",
                    text=t, timestamp=T0 + timedelta(minutes=i)) for i, t in enumerate(texts)]


def ep(eid: str, cue: str, narrative: str, day: int = 0) -> Episode:
    start = T0 + timedelta(days=day)
    return Episode(id=eid, cue=cue, narrative=narrative, message_ids=["m0001"], start=start,
                   end=start + timedelta(minutes=30))


WINDOW = msgs("I went to the LGBTQ support group yesterday.", "That sounds\nmoving!",
              "My sister Ana turns 30 next Friday.")
OLD = ep("ep0001", "Caroline tells Melanie about the support group on 7 May 2023",
         "Caroline went to an LGBTQ support group on 7 May 2023.")
NEW = ep("ep0002", "Melanie shares her pottery class plans", "Melanie signed up for pottery.", 1)

CASES = {
    "partition": lambda: partition.render(WINDOW),
    "narrate": lambda: narrate.render(WINDOW),
    "select": lambda: select.render(NEW, [OLD, NEW]),
    "integrate": lambda: integrate.render(OLD, NEW),
    "anticipate": lambda: anticipate.render(OLD.cue, ["Caroline is transgender.",
                                                      "Melanie paints."]),
    "distill": lambda: distill.render(WINDOW, "Caroline talks about her week."),
    "distill_direct": lambda: direct_distill.render(WINDOW),
    "cold_start": lambda: cold_start.render(OLD.cue, OLD.narrative),
    "consolidate": lambda: consolidate.render("Ana turns 30 on 19 May 2023.",
                                              ["Ana is Caroline's sister.", "Ana lives in Oslo."]),
    "consolidate_episode": lambda: consolidate_episode.render(
        ["Ana is Caroline's sister.", "Ana lives in Oslo."],
        [("Ana turns 30 on 19 May 2023.", [1, 2]), ("Ana moved to\nBergen.", [2])]),
    "summarize": lambda: summarize.render("Caroline is transgender.", ["Ana turns 30."]),
    "answer": lambda: answer.render("When is Ana's birthday?", "Ana turns 30 on 19 May 2023."),
}

# what each rendering must carry from its inputs
EXPECTED = {
    "partition": ["[1] (2023-05-08 Mon 13:56) Caroline: I went to the LGBTQ support group",
                  "[2] (2023-05-08 Mon 13:57) Melanie: That sounds moving!", "[3]",
                  "1 to 3"],
    "narrate": ["Caroline: I went to the LGBTQ", "My sister Ana turns 30 next Friday.",
                "2023-05-08 Mon 13:58"],
    "select": ["New episode:", NEW.cue, NEW.narrative, "Candidate [1]", OLD.cue, OLD.narrative,
               "Candidate [2]", "2023-05-08 Mon 13:56 to 2023-05-08 Mon 14:26", "candidates 1 to 2"],
    "integrate": ["Earlier part:", OLD.cue, OLD.narrative, "Later part:", NEW.cue, NEW.narrative],
    "anticipate": [OLD.cue, "- Caroline is transgender.", "- Melanie paints."],
    "distill": ["[3] (2023-05-08 Mon 13:58) Caroline: My sister Ana", "Predicted content:",
                "Caroline talks about her week."],
    "distill_direct": ["[1] (2023-05-08 Mon 13:56) Caroline:", "[3]", "messages 1 to 3"],
    "cold_start": [f"Episode title: {OLD.cue}", OLD.narrative],
    "consolidate": ["New fact: Ana turns 30 on 19 May 2023.", "[1] Ana is Caroline's sister.",
                    "[2] Ana lives in Oslo."],
    "consolidate_episode": ["Stored facts (1 to 2):", "[1] Ana is Caroline's sister.",
                            "[2] Ana lives in Oslo.", "New facts (1 to 2)",
                            "[1] Ana turns 30 on 19 May 2023. (similar: 1, 2)",
                            "[2] Ana moved to Bergen. (similar: 2)"],
    "summarize": ["Caroline is transgender.", "- Ana turns 30."],
    "answer": ["Question: When is Ana's birthday?", "Ana turns 30 on 19 May 2023."],
}


def test_every_prompt_is_covered():
    assert set(CASES) == set(PROMPTS) and set(PROMPTS) <= set(STAGE_OF)
    assert set(STAGE_OF) == set(PROMPTS) | {"judge", "judge_longmemeval"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_messages_are_well_formed_and_carry_the_inputs(name):
    out = CASES[name]()
    assert [m["role"] for m in out] == ["system", "user"]
    assert all(set(m) == {"role", "content"} and m["content"].strip() == m["content"] and
               m["content"] for m in out)
    # every reply is JSON but the paper preset's answer, asked in plain text
    assert ("JSON" in out[0]["content"]) == (name != "answer")
    for piece in EXPECTED[name]:
        assert piece in out[1]["content"], piece
    json.dumps(out)   # what the gateway sends and hashes


@pytest.mark.parametrize("name", sorted(CASES))
def test_render_is_deterministic(name):
    assert CASES[name]() == CASES[name]()
    assert json.dumps(CASES[name](), sort_keys=True) == json.dumps(CASES[name](), sort_keys=True)


@pytest.mark.parametrize("name", sorted(PROMPTS))
def test_reply_models_are_openai_strict(name):
    module = PROMPTS[name]
    models = [v for k, v in vars(module).items() if k.endswith("Reply")]
    assert models
    for model in models:
        assert strict_schema(schema_of(model)) is not None, model.__name__


@pytest.mark.parametrize("preset", PRESETS)
def test_system_prompt_names_every_reply_field(preset):
    texts = prompt_texts(preset)
    for module in PROMPTS.values():
        replies = getattr(module, "REPLIES", None)
        model = replies[preset] if replies else \
            next(v for k, v in vars(module).items() if k.endswith("Reply"))
        if model is FreeText:
            assert "plain text" in texts[module.NAME] and "JSON" not in texts[module.NAME]
            continue
        for field in model.model_fields:
            assert f'"{field}"' in texts[module.NAME], (preset, module.NAME, field)


def test_one_message_is_one_numbered_line():
    lines = numbered_messages(WINDOW).splitlines()
    assert len(lines) == 3 and lines[1].endswith("That sounds moving!")


def test_missing_timestamps_and_empty_inputs_render():
    bare = [Message(id="m1", speaker="Ana", text="hi")]
    assert "[1] (time unknown) Ana: hi" in partition.render(bare)[1]["content"]
    assert "(nothing known yet)" in anticipate.render("A title", [])[1]["content"]
    assert "(no prediction" in distill.render(bare, "  ")[1]["content"]
    assert "(empty" in summarize.render("", ["x"])[1]["content"]
    assert "(none)" in answer.render("q?", "")[1]["content"]


def test_consolidate_reply_defaults_to_new():
    reply = consolidate.ConsolidateReply.model_validate({"reason": "r"})
    assert reply.action == "new" and reply.targets == [] and reply.merged_text is None


def test_direct_distill_shares_the_insight_shape():
    assert direct_distill.DirectDistillReply is distill.DistillReply
    for preset in PRESETS:
        assert distill.insight_rules(preset) in direct_distill.SYSTEMS[preset]
    assert "prediction" not in direct_distill.render(WINDOW)[1]["content"].lower()


def test_select_abridges_long_candidate_narratives_but_not_the_new_episode():
    long = " ".join(f"word{i}" for i in range(400))
    old = ep("ep0001", "A long merged event", "It began at the lake. " + long + " It ended at home.")
    new = ep("ep0002", "The next part", "It continued. " + long)
    text = select.render(new, [old])[1]["content"]
    candidate = text.split("Candidate [1]", 1)[1]
    assert "It began at the lake." in candidate and "It ended at home." in candidate
    assert "[...]" in candidate and len(candidate) < select.CANDIDATE_CHARS + 200
    assert long in text.split("Earlier episodes", 1)[0]
    # integration merges the full texts
    assert long in integrate.render(old, new)[1]["content"].split("Later part:")[0]
