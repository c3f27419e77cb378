"""Question items of a benchmark conversation, checked before anything is asked.

A problem with one item never stops an evaluation: the item is left out (or only left out of
evidence recall) and the reason is reported. Evidence is resolved to message ids here, so the
harness compares ids and never parses benchmark references.
"""

from __future__ import annotations

import re
from collections import Counter

from pydantic import BaseModel, Field

from ..models import Conversation

CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop",
                  5: "adversarial"}
SCORED_CATEGORIES = (1, 2, 3, 4)     # what published LoCoMo results score

NO_ANSWER = "missing answer"
NO_QUESTION = "missing question"
BAD_CATEGORY = "unknown category"
ADVERSARIAL = "category 5 (adversarial) excluded"
NOT_CHOSEN = "category not selected"
NO_EVIDENCE = "no evidence listed (left out of recall)"
BAD_EVIDENCE = "evidence id not in the conversation (left out of recall)"
REPAIRED = "evidence repaired"      # noted, not skipped: "D8:6; D9:17" read as two ids

_REF = re.compile(r"D\d+:\d+")


class Evidence(BaseModel):
    ref: str                         # as the benchmark names it: "D8:6", "answer_sess_b:1"
    message_id: str | None = None    # None: no such message


class QAItem(BaseModel):
    id: str                          # "conv-26#12": conversation and 1-based position
    conversation_id: str
    question: str
    answer: str
    category: str                    # LoCoMo "1".."4"; LongMemEval the question type
    evidence: list[Evidence] = Field(default_factory=list)
    question_date: str | None = None
    abstention: bool = False
    notes: list[str] = Field(default_factory=list)

    @property
    def checkable(self) -> bool:
        """Evidence recall needs evidence, every piece of it found in the conversation."""
        return bool(self.evidence) and all(e.message_id for e in self.evidence)


class Issue(BaseModel):
    item: str
    reason: str
    detail: str = ""
    skipped: bool = True             # False: still answered and scored, only noted


class ItemSet(BaseModel):
    items: list[QAItem] = Field(default_factory=list)
    issues: list[Issue] = Field(default_factory=list)

    def skipped(self) -> dict[str, int]:
        """Reason -> how many items (or recall entries) it removed."""
        return dict(Counter(i.reason for i in self.issues if i.reason != REPAIRED))

    def extend(self, other: "ItemSet") -> None:
        self.items.extend(other.items)
        self.issues.extend(other.issues)


def category_name(category: str) -> str:
    return CATEGORY_NAMES.get(int(category), category) if category.isdigit() else category


def _text(value) -> str | None:
    """Answers may be integers (a year, a count); None and empty strings are no answer."""
    if value is None or isinstance(value, bool) or isinstance(value, (list, dict)):
        return None
    text = str(value).strip()
    return text or None


def split_refs(raw) -> tuple[list[str], list[str]]:
    """(well-formed dia_ids, malformed leftovers). "D8:6; D9:17" yields both ids."""
    good, bad = [], []
    for entry in raw if isinstance(raw, list) else [raw]:
        text = str(entry).strip()
        found = _REF.findall(text)
        rest = _REF.sub("", text).strip(" ;,")
        good.extend(found)
        if rest or not found:
            bad.append(text)
    return list(dict.fromkeys(good)), bad


def locomo_items(conv: Conversation, categories=SCORED_CATEGORIES) -> ItemSet:
    by_ref = {m.source_ref: m.id for m in conv.messages if m.source_ref}
    wanted = {int(c) for c in categories}
    out = ItemSet()
    qa = conv.extra.get("qa")
    if not isinstance(qa, list):
        out.issues.append(Issue(item=conv.id, reason="no qa list in the conversation"))
        return out
    for n, raw in enumerate(qa, start=1):
        item_id = f"{conv.id}#{n}"
        if not isinstance(raw, dict):
            out.issues.append(Issue(item=item_id, reason="not a question object"))
            continue
        category = raw.get("category")
        if not isinstance(category, int) or category not in CATEGORY_NAMES:
            out.issues.append(Issue(item=item_id, reason=BAD_CATEGORY, detail=repr(category)))
            continue
        if category not in wanted:
            reason = ADVERSARIAL if category == 5 else NOT_CHOSEN
            out.issues.append(Issue(item=item_id, reason=reason))
            continue
        question, answer = _text(raw.get("question")), _text(raw.get("answer"))
        if question is None or answer is None:
            out.issues.append(Issue(item=item_id, reason=NO_QUESTION if question is None
                                    else NO_ANSWER, detail=question or ""))
            continue
        item = QAItem(id=item_id, conversation_id=conv.id, question=question, answer=answer,
                      category=str(category))
        _resolve_evidence(item, raw.get("evidence"), by_ref, out)
        out.items.append(item)
    return out


def _resolve_evidence(item: QAItem, raw, by_ref: dict[str, str], out: ItemSet) -> None:
    if not raw:
        out.issues.append(Issue(item=item.id, reason=NO_EVIDENCE, skipped=False))
        return
    refs, malformed = split_refs(raw)
    item.evidence = [Evidence(ref=r, message_id=by_ref.get(r)) for r in refs]
    item.evidence += [Evidence(ref=m) for m in malformed]
    unusable = [e.ref for e in item.evidence if e.message_id is None]
    if unusable:
        # one unusable reference makes "all evidence retrieved" unknowable
        detail = ", ".join(unusable)
        out.issues.append(Issue(item=item.id, reason=BAD_EVIDENCE, detail=detail, skipped=False))
        item.notes.append(f"unusable evidence: {detail}")
    elif len(refs) > (len(raw) if isinstance(raw, list) else 1):
        item.notes.append(f"evidence {raw!r} read as {refs}")
        out.issues.append(Issue(item=item.id, reason=REPAIRED,
                                detail=f"{raw!r} -> {refs}", skipped=False))


def longmemeval_items(conv: Conversation, types: list[str] | None = None) -> ItemSet:
    """The one question of a LongMemEval instance; `_abs` ids are abstention questions."""
    extra = conv.extra
    out = ItemSet()
    qtype = _text(extra.get("question_type")) or "unknown"
    if types and qtype not in types:
        out.issues.append(Issue(item=conv.id, reason=NOT_CHOSEN, detail=qtype))
        return out
    question, answer = _text(extra.get("question")), _text(extra.get("answer"))
    if question is None or answer is None:
        out.issues.append(Issue(item=conv.id, reason=NO_QUESTION if question is None
                                else NO_ANSWER))
        return out
    abstention = str(extra.get("question_id", conv.id)).endswith("_abs")
    refs = {m.id: m.source_ref or m.id for m in conv.messages}
    evidence = [Evidence(ref=refs.get(i, i), message_id=i if i in refs else None)
                for i in extra.get("has_answer_message_ids") or [] if isinstance(i, str)]
    item = QAItem(id=conv.id, conversation_id=conv.id, question=question, answer=answer,
                  category=qtype, question_date=_text(extra.get("question_date")),
                  abstention=abstention, evidence=evidence)
    if not evidence and not abstention:
        out.issues.append(Issue(item=conv.id, reason=NO_EVIDENCE, skipped=False))
    out.items.append(item)
    return out
