"""Offline knowledge: what an episode states, prediction error, consolidation and answers."""

from __future__ import annotations

import re

from dataclasses import dataclass, field

import numpy as np

from ..config import OfflineThresholds
from ..models import Message, SemanticMemory
from .dates import replace_relative
from .conflicts import conflict, same_party, same_subject
from .spelt_out import explicit_change
from .facts import details, key_words
from .phatic import (CAPTION_ONLY, KNOWLEDGE_KIND, PHATIC_KIND, LineDecision, PhaticClassifier,
                     rule, without_captions)
from . import asked, kin, referents, standalone
from .resolve import resolve_pronouns, split_ask, split_clauses, strip_openers
from .text import content_words, normalise_chat, sentences, words


@dataclass(frozen=True)
class Clause:
    """One clause of a raw message, as the engine read it."""
    message_id: str
    raw: str                   # as said, openers and forms of address dropped
    decision: LineDecision
    text: str = ""             # the self-contained statement, for knowledge clauses
    vector: np.ndarray | None = field(default=None, compare=False, repr=False)

    @property
    def is_knowledge(self) -> bool:
        return self.decision.kind == KNOWLEDGE_KIND

    def as_row(self) -> dict:
        return {"message_id": self.message_id, "text": self.raw, "kind": self.decision.kind,
                "reason": self.decision.reason, "score": self.decision.score,
                "statement": self.text}


def _addressee(messages: list[Message], i: int) -> str | None:
    """Who message i speaks to: the nearest message of someone else in the episode."""
    speaker = messages[i].speaker
    for j in sorted(range(len(messages)), key=lambda j: (abs(j - i), j > i)):
        if messages[j].speaker != speaker:
            return messages[j].speaker
    return None


def _statement(clause: str, m: Message, addressee: str | None,
               companion: str | None = None) -> str:
    fact = replace_relative(resolve_pronouns(clause, m.speaker, addressee, companion),
                            m.timestamp)
    fact = fact.strip(" ,;:-–—")
    fact = fact.rstrip("!") + "." if fact.endswith("!") else fact if fact.endswith((".", "?")) \
        else fact + "."
    return fact[:1].upper() + fact[1:]


def _standalone(clause: str, m: Message, speakers: list[str],
                before: tuple[Message, ...] = ()) -> tuple[str | None, str]:
    """The clause with a leading "he" / "she" named, or None and why it cannot stand alone.
    `before`: the episode's messages before this one, latest last, for a "he" / "she" that
    opens a message whose own words name no one."""
    text = normalise_chat(m.text)        # the clause was cut from the text as the rules read it
    # the clause may have been given a capital its place in the message did not have
    said = text[:max(0, text.lower().find(clause[:24].lower()))] if clause else ""
    phrase, rest = standalone.fronted(clause)
    if phrase:
        stated, why = _standalone(rest, m, speakers, before)
        return (f"{phrase} {stated}" if stated else None), why
    clause = standalone.without_own_name(clause, m.speaker)
    if clause is None:
        return None, "a self-introduction: who says it is known from every line"
    clause = kin.own_kin(referents.name_there(clause, said, speakers))
    clause = asked.answered_it(clause, said, before, m.speaker, speakers)
    earlier = referents.referents(said, speakers)
    if not earlier:
        clause = kin.with_kin(clause, said) or clause
    if not earlier and referents.first_word(clause).lower() in referents.HE_SHE:
        earlier = [p for p in [referents.person_before([b.text for b in before[-2:]],
                                                        speakers)] if p]
    subject, why = standalone.judge(clause, speakers, earlier,
                                    one_listener=len(speakers) == 2)
    if subject is None:
        return None, why
    if subject == standalone.DROPPED_I:
        clause = "I " + clause[:1].lower() + clause[1:]
    elif subject != "self" and referents.first_word(clause).lower() in standalone.THIRD:
        clause = kin.own_kin(referents.name_third_person(clause, subject))
    return clause, ""


VAGUE_KIND = "not standalone"   # knowledge said in a way a memory could not stand on
_WE = re.compile(r"\b(?:[Ww]e|[Uu]s|[Oo]ur)\b")
READ_CHARS = 20_000   # of one message, read for facts: bounds the cost of a pasted book
UNREAD = "unread"


def _clauses(messages: list[Message]) -> list[tuple[int, str]]:
    """(message index, clause) for every clause said; "" for a photo shared without words."""
    names = list(dict.fromkeys(m.speaker for m in messages))
    pending: list[tuple[int, str]] = []
    for i, m in enumerate(messages):
        said = normalise_chat(without_captions(m.text[:READ_CHARS]))
        for s in (part for whole in sentences(said) for part in split_ask(whole)):
            for part in split_clauses(s):
                clause = strip_openers(part, names)
                if clause:
                    pending.append((i, clause))
        if not said and m.text.strip():
            pending.append((i, ""))
    return pending


def read_episodes(episodes: list[list[Message]],
                  classifier: PhaticClassifier) -> list[list[Clause]]:
    """Every clause of each episode with its knowledge-or-talk decision and, for knowledge,
    the statement it makes and that statement's vector. Episodes are read together so the
    embedder sees two large batches rather than two small ones per episode.

    The classifier judges the clause as said: the examples it learnt from are lines as said,
    and a speaker's name in a statement would pull it towards lines that name the same person.
    """
    pending = [(e, i, c) for e, messages in enumerate(episodes) for i, c in _clauses(messages)]
    decisions = [rule(c) if c else LineDecision(PHATIC_KIND, CAPTION_ONLY, 1.0)
                 for _, _, c in pending]
    open_at = [j for j, d in enumerate(decisions) if d is None]
    said = [pending[j][2] for j in open_at]
    for j, d in zip(open_at, classifier.decide_vectors(
            said, classifier.embedder.embed(said) if said else None)):
        decisions[j] = d
    texts = {}
    for j, d in enumerate(decisions):
        if d.kind != KNOWLEDGE_KIND:
            continue
        e, i, clause = pending[j]
        messages = episodes[e]
        speakers = list(dict.fromkeys(m.speaker for m in messages))
        placed, why = _standalone(clause, messages[i], speakers, tuple(messages[:i]))
        if placed is None:
            decisions[j] = LineDecision(VAGUE_KIND, why, d.score)
        else:
            # who a "we" includes: named in the message, or in the speaker's one before
            own = [b.text for b in messages[:i] if b.speaker == messages[i].speaker][-1:]
            beside = referents.companion([messages[i].text] + own, messages[i].speaker)
            if not beside and referents.SHARED.search(placed) and _WE.search(placed):
                decisions[j] = LineDecision(VAGUE_KIND, "'we' with no one named beside the "
                                            "speaker, in a statement about two", d.score)
                continue
            texts[j] = _statement(placed, messages[i], _addressee(messages, i), beside)
    knows = list(texts)
    vectors = dict(zip(knows, classifier.embedder.embed([texts[j] for j in knows]))) \
        if knows else {}
    out: list[list[Clause]] = [[] for _ in episodes]
    for j, ((e, i, clause), d) in enumerate(zip(pending, decisions)):
        m = episodes[e][i]
        out[e].append(Clause(m.id, clause or m.text, d, texts.get(j, ""), vectors.get(j)))
    for e, messages in enumerate(episodes):
        for m in messages:
            if len(m.text) > READ_CHARS:
                note = LineDecision(UNREAD, f"the message has {len(m.text):,} characters: only "
                                    f"the first {READ_CHARS:,} were read for facts", 0.0)
                out[e].append(Clause(m.id, m.text[READ_CHARS:READ_CHARS + 80] + " …", note))
    return out


Held = tuple[str, float] | None      # the prediction line that holds a statement, and its score


def prediction_error(candidates: list[str], cand_vecs: np.ndarray, predicted: list[str],
                     pred_vecs: np.ndarray,
                     limits: OfflineThresholds) -> tuple[list[Held], list[str | None]]:
    """How the prediction fared on each statement: the line that already holds it (or None
    when the prediction missed it or got it wrong), and, for one it missed, the line it adds a
    detail to (or None).

    A statement is held when one line of the prediction says it, or when the prediction as a
    whole does: near in meaning to one of its lines, with nearly every word it says found
    in the lines near it ("went to the conference with her mentor" when one line knows the
    conference and another the mentor). Any contradiction makes it an error to keep.

    A missed statement adds a detail to its nearest line when both are about the same person,
    near in meaning, sharing what they are about, and not contradicting ("Maya's long run on
    Sunday was twelve kilometres" beside the predicted "Maya runs three times a week, with a
    long run on Sundays"): the prediction got that fact partly right, and the error, the
    missing detail, belongs with the fact.
    """
    if not predicted:
        return [None] * len(candidates), [None] * len(candidates)
    sims = cand_vecs @ pred_vecs.T
    held: list[Held] = []
    adds_to: list[str | None] = []
    for i, text in enumerate(candidates):
        j = int(np.argmax(sims[i]))
        line, best = predicted[j], float(sims[i, j])
        one_line = best >= limits.covered_sim and says_no_more(text, line, limits.covered_share) \
            and values_known(text, line)
        # the lines near the statement, not every line: a long prediction holds most words
        # somewhere ("moves to the Wednesday opens" against rota lines naming every weekday)
        whole = " ".join(p for p, s in zip(predicted, sims[i]) if s >= limits.covered_whole_sim)
        as_whole = best >= limits.covered_whole_sim and \
            says_no_more(text, whole, limits.covered_whole_share) and values_known(text, whole)
        if (one_line or as_whole) and not any(conflict(text, p) for p in predicted):
            held.append((line, best))
            adds_to.append(None)
            continue
        held.append(None)
        fits = best >= limits.elaborates_sim and same_party(text, line) \
            and says_no_more(text, line, limits.elaborates_share) and conflict(text, line) is None
        adds_to.append(line if fits else None)
    return held, adds_to


def prediction_gaps(candidates: list[str], cand_vecs: np.ndarray, predicted: list[str],
                    pred_vecs: np.ndarray, limits: OfflineThresholds) -> list[Held]:
    """For each statement, the prediction line that already holds it, or None."""
    return prediction_error(candidates, cand_vecs, predicted, pred_vecs, limits)[0]


def elaborations(candidates: list[str], cand_vecs: np.ndarray, predicted: list[str],
                 pred_vecs: np.ndarray, limits: OfflineThresholds) -> list[str | None]:
    """For each statement the prediction missed, the prediction line it adds a detail to."""
    return prediction_error(candidates, cand_vecs, predicted, pred_vecs, limits)[1]


def values_known(statement: str, known: str) -> bool:
    """Whether every name, number and date the statement gives is in the known text: the
    same words with another value ("moved to York" against the known "moved to Leeds", "is
    April 5" against "is March 15") are news, however close the rest reads."""
    return details(statement) - key_words(statement) <= details(known)


def says_no_more(statement: str, known: str, share: float = 0.6) -> bool:
    """Whether most of what the statement says is already in the known line: close in
    meaning is not enough ("leads a project at Finch Labs" is near "joined Finch Labs")."""
    said = key_words(statement)
    return not said or len(said & key_words(known)) >= share * len(said)


def consolidation_rule(insight: str, candidates: list[tuple[SemanticMemory, float]],
                       limits: OfflineThresholds,
                       elaborates: str | None = None) -> tuple[str, list[int], str]:
    """(action, 1-based targets, reason) for an insight against its nearest memories.

    A contradiction wins over a merge: keeping a fact that no longer holds is the worse error.
    Either touches one memory, the nearest that qualifies: a conflict replaces exactly the
    statement it contradicts, and a merge adds the detail to the fact it is closest to, or to
    the fact the prediction held in part (`elaborates`, the text of that memory).
    """
    for idx, (memory, score) in enumerate(candidates, start=1):
        # a change spelt out by its cue and values needs less likeness than one read from
        # the attributes two statements share
        why = conflict(insight, memory.text) if score >= limits.conflict_sim else \
            explicit_change(insight, memory.text) if score >= limits.explicit_change_sim else None
        if why:
            return "conflict", [idx], f"contradicts {memory.id} ({score:.2f}): {why}"
    for idx, (memory, score) in enumerate(candidates, start=1):
        if score >= limits.duplicate_sim or (score >= limits.merge_sim
                                             and same_subject(insight, memory.text)):
            return "merge", [idx], f"same fact as {memory.id} ({score:.2f})"
    for idx, (memory, _) in enumerate(candidates, start=1):
        if elaborates is not None and memory.text == elaborates and \
                len(words(memory.text)) + len(words(insight)) <= limits.merged_words:
            return "merge", [idx], f"adds a detail to {memory.id}, the fact the prediction " \
                                   "held in part"
    best = max((s for _, s in candidates), default=0.0)
    return "new", [], f"nearest memory at {best:.2f}: nothing close enough to merge or contradict"


def merged_text(insight: str, targets: list[str]) -> str:
    """The known fact with the insight's detail added; unchanged when it adds nothing, and the
    insight alone when it says all the known fact said and more."""
    parts: list[str] = []
    for text in targets + [insight]:
        said = details(text)
        parts = [p for p in parts if not details(p) < said]      # a fuller statement replaces
        known = set().union(*(details(p) for p in parts)) if parts else set()
        # a sentence already said adds nothing, whoever it opens with: the details of a merged
        # memory leave out the name its first sentence opens with, not the name in a later one
        held = {s.lower() for p in parts for s in sentences(p)}
        if not parts or not (said <= known or all(s.lower() in held for s in sentences(text))):
            parts.append(text)
    return " ".join(parts)


def best_sentence(question: str, question_vec: np.ndarray, lines: list[str],
                  vecs: np.ndarray, current: list[bool] | None = None) -> str:
    """The retrieved sentence that best answers: similar in meaning and sharing its words.

    Lines from semantic memory get a small edge: consolidation has already replaced what
    conflicting later statements made outdated, which raw messages and narratives still hold.
    """
    if not lines:
        return "I don't know: nothing relevant is in memory."
    asked = set(content_words(question))
    overlap = np.array([len(asked & set(content_words(line))) for line in lines], dtype=np.float32)
    edge = np.array(current or [False] * len(lines), dtype=np.float32)
    return lines[int(np.argmax(vecs @ question_vec + 0.1 * overlap + 0.05 * edge))]
