"""A stand-in model for the local OpenAI test server: a valid, deterministic reply per prompt.

It reads the request the way a model would (the prompt name from the structured-output schema,
or from the system prompt in json_object mode; the inputs from the rendered user message) and
answers with simple rules, so the whole pipeline runs over real HTTP with replies that depend on
what was asked. The rules are crude on purpose; reply lengths are not those of a real model.

    server.responder = respond
"""

from __future__ import annotations

import re
from collections.abc import Callable

from nemori_ui.core.prompts import PRESETS, prompt_texts

GROUP = 4            # partition: runs of this many messages
_LINE = re.compile(r"^\[(\d+)\] \(([^)]*)\) ([^:]+): (.*)$", re.M)
_NUMBERED = re.compile(r"^\[(\d+)\] (.*)$", re.M)
_BULLET = re.compile(r"^- (.*)$", re.M)
_TITLE = re.compile(r"^Title: (.*)$", re.M)
_NARRATIVE = re.compile(r"^Narrative: (.*?)(?=\n\nCandidate \[|\n\nLater part:|\Z)", re.M | re.S)
_STOP = {"about", "after", "again", "because", "before", "being", "could", "doing", "going",
         "really", "should", "something", "their", "there", "these", "thing", "things", "think",
         "those", "would", "thanks", "great", "awesome", "amazing", "wonderful"}


def prompt_of(body: dict) -> str:
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return fmt["json_schema"]["name"]
    system = next((m["content"] for m in body["messages"] if m["role"] == "system"), "")
    for preset in PRESETS:
        for name, text in prompt_texts(preset).items():
            if system.startswith(text):
                return name
    raise ValueError("request matches no known prompt")


def user_text(body: dict) -> str:
    # the first user message holds the inputs; later ones are repair requests
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


def words(text: str) -> set[str]:
    """Content words: long enough to mean something; capitalised words (names) left out, since
    every title names the speakers."""
    return {w for w in re.findall(r"\b[a-z]+\b", text) if len(w) >= 6 and w not in _STOP}


def short(text: str, n: int) -> str:
    return " ".join(text.split()[:n])


def _partition(text: str) -> dict:
    n = len(_LINE.findall(text))
    starts = range(1, n + 1, GROUP)
    return {"episodes": [{"indices": list(range(s, min(s + GROUP, n + 1))),
                          "topic": f"messages {s} onwards"} for s in starts]}


def damaged_partition(text: str, how: str) -> dict:
    """The partition a careless model returns: index 2 left out ("missing"), or the last index
    given again in the first episode ("repeated")."""
    episodes = _partition(text)["episodes"]
    groups = [e["indices"] for e in episodes]
    if how == "missing":
        for group in groups:
            if 2 in group:
                group.remove(2)
    elif how == "repeated":
        groups[0].append(groups[-1][-1])
    else:
        raise ValueError(f"unknown damage {how!r}")
    return {"episodes": [e for e in episodes if e["indices"]]}


def _narrate(text: str) -> dict:
    lines = _LINE.findall(text)
    first = lines[0]
    when = first[1].split(" ")[0]
    speakers = sorted({speaker for _, _, speaker, _ in lines})
    cue = f"{' and '.join(speakers)} on {when}: {short(first[3], 12)}"
    narrative = " ".join(f"{speaker} said: {said}" for _, _, speaker, said in lines)
    return {"cue": cue, "narrative": f"On {when}, {narrative}"}


def _select(text: str) -> dict:
    new, rest = text.split("\n\nEarlier episodes", 1)
    new_words = words(_TITLE.search(new).group(1))
    for k, title in enumerate(_TITLE.findall(rest), start=1):
        shared = new_words & words(title)
        if shared:
            return {"reason": f"both titles mention {sorted(shared)[0]}", "idx": k}
    return {"reason": "no title shares a word with the new one", "idx": -1}


def _integrate(text: str) -> dict:
    titles, narratives = _TITLE.findall(text), [n.strip() for n in _NARRATIVE.findall(text)]
    return {"cue": titles[0], "narrative": " ".join(narratives)}


def _anticipate(text: str) -> dict:
    title = text.split("\n", 1)[0].removeprefix("Episode title: ")
    known = [fact for _, fact in _NUMBERED.findall(text)] or _BULLET.findall(text)
    return {"prediction": "\n".join([f"The speakers talk about {title}.", *known[:3]])}


def _insights(text: str, predicted: str) -> dict:
    lines = _LINE.findall(text)
    out = []
    for i in range(0, len(lines), 2):
        _, stamp, speaker, said = lines[i]
        fact = f"{speaker} said on {stamp.split(' ')[0]}: {short(said, 20)}"
        if fact not in predicted:   # what the prediction already holds is not news
            out.append({"text": fact, "lines": [int(n) for n, *_ in lines[i:i + 2]]})
    return {"insights": out}


def _distill(text: str) -> dict:
    label = "\n\nPredicted content:\n" if "\n\nPredicted content:\n" in text else "\n\nPrediction:\n"
    episode, _, prediction = text.partition(label)
    return _insights(episode, prediction)


def _decide(fact: str, stored: dict[int, str]) -> dict:
    mine = words(fact)
    for k, other in stored.items():
        theirs = words(other)
        if mine and len(mine & theirs) / len(mine | theirs) >= 0.5:
            merged = max((fact, other), key=len)
            return {"reason": f"same subject as fact {k}", "action": "merge", "targets": [k],
                    "merged_text": merged}
    return {"reason": "no stored fact is about the same thing", "action": "new", "targets": [],
            "merged_text": None}


def _consolidate(text: str) -> dict:
    fact = text.split("\n", 1)[0].removeprefix("New fact: ")
    return _decide(fact, dict(enumerate((t for _, t in _NUMBERED.findall(text)), start=1)))


_SIMILAR = re.compile(r"^(.*) \(similar: ([\d, ]+)\)$")


def _consolidate_episode(text: str) -> dict:
    stored_part, _, new_part = text.partition("\n\nNew facts (")
    stored = {int(n): t for n, t in _NUMBERED.findall(stored_part)}
    decisions = []
    for n, line in _NUMBERED.findall(new_part):
        fact, similar = _SIMILAR.match(line).groups()
        mine = {int(k): stored[int(k)] for k in similar.split(", ")}
        decisions.append({"fact": int(n), **_decide(fact, mine)})
    return {"decisions": decisions}


def _cold_start(text: str) -> dict:
    narrative = text.partition("Episode narrative:\n")[2]
    return {"statements": [f"Narrated: {short(s, 20)}" for s in narrative.split(". ") if s.strip()]}


def _summarize(text: str) -> dict:
    current, _, fresh = text.partition("\n\nNew facts:\n")
    lines = [] if "(empty" in current else current.removeprefix("Current summary:\n").splitlines()
    for item in fresh.splitlines():
        fact = item.removeprefix("- ")
        if fact not in lines:
            lines.append(fact)
    return {"summary": "\n".join(lines)}


def _answer(text: str) -> dict:
    memories = text.split("\n\nQuestion:", 1)[0].removeprefix("Memories:\n")
    first = next((line for line in memories.splitlines() if line.strip()), "Not mentioned")
    return {"reasoning": "the first memory line answers it", "answer": short(first, 10)}


RULES: dict[str, Callable[[str], dict]] = {
    "partition": _partition, "narrate": _narrate, "select": _select, "integrate": _integrate,
    "anticipate": _anticipate, "distill": _distill,
    "distill_direct": lambda text: _insights(text, ""), "cold_start": _cold_start,
    "consolidate": _consolidate, "consolidate_episode": _consolidate_episode,
    "summarize": _summarize, "answer": _answer,
}


def respond(body: dict) -> dict | str:
    name = prompt_of(body)
    out = RULES[name](user_text(body))
    # a call asked in plain text (the paper preset's answer) gets plain text back
    return out["answer"] if name == "answer" and not body.get("response_format") else out
