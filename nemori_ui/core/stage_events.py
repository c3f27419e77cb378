"""The decisions each pipeline stage records, one typed model per stage.

A stage event is stored as a row of the events table whose `payload` column holds the JSON
of its payload model, dumped without the fields the stage did not set, so the stored shape is
the one earlier releases wrote. Loading validates each stored payload into its stage's model:
a field an earlier release did not write takes the default the pages showed for it, and a key
this release does not know is kept (read back and written again) rather than dropped. Built in
code, a payload refuses a key it does not declare, so a misspelt field fails where it is made.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationInfo, model_validator

STORED = {"stored": True}   # validation context of a payload read back from the store


class Recorded(BaseModel):
    """A part of an event payload: strict when built, tolerant of unknown keys when loaded."""
    model_config = ConfigDict(extra="allow")

    @model_validator(mode="after")
    def _known_keys_only(self, info: ValidationInfo):
        if self.model_extra and not (info.context or {}).get("stored"):
            raise ValueError(f"{type(self).__name__} has no field {', '.join(self.model_extra)}")
        return self

    def stored(self) -> dict[str, Any]:
        """What goes into the payload column: the fields that were set, and unknown keys."""
        return self.model_dump(mode="json", exclude_unset=True)


# ---- parts of payloads ------------------------------------------------------------------

class Insight(Recorded):
    text: str
    source_message_ids: list[str] = Field(default_factory=list)
    # the prediction line this insight corrects by adding to it, where the decider can tell:
    # the known fact the prediction got partly right, which consolidation adds the detail to
    elaborates: str | None = None


class CoveredStatement(Recorded):
    """A raw statement left out because the prediction already held it, classed once by the
    memory that held it: `predicted` when that memory was learnt only from messages outside
    the episode (what prediction saved), `carried` when it was learnt from the episode's own
    earlier part (the episode this one continues). Recorded before the class was: None, read
    by `eval/prediction.py` and the views as the app counted it then."""
    text: str
    message_id: str | None = None
    predicted_by: str | None = None    # the prediction line that held it
    score: float | None = None
    kind: Literal["predicted", "carried"] | None = None
    memory_id: str | None = None       # the memory whose text is that line
    learnt_from: str | None = None     # the message that memory was first learnt from


class LineReading(Recorded):
    """How one raw clause was read: knowledge or talk, and why."""
    message_id: str | None = None
    text: str = ""
    kind: str = ""
    reason: str = ""
    score: float | None = None
    statement: str = ""


class EpisodeCandidate(Recorded):
    id: str
    score: float = 0.0
    cue: str = ""


class EpisodeText(Recorded):
    cue: str = ""
    narrative: str = ""


class EvokedMemory(Recorded):
    """A memory an episode's evocation looked at, with whether it was let through."""
    id: str
    text: str = ""
    score: float = 0.0
    passed: bool = False
    continued: bool = False   # taught by the episode this one continues: known whatever τ says
    # the offline engine also evokes by what the episode says: the statement that called this
    # memory up, and its similarity (above τ), whatever the cue's score
    recalled_by: str = ""
    recall_score: float | None = None
    by_cue: bool = True       # among the cue's top K_s (False: only a statement looked at it)


class MemoryCandidate(Recorded):
    id: str
    text: str = ""
    score: float = 0.0


# ---- one payload per stage ----------------------------------------------------------------

class PartitionPayload(Recorded):
    stage: ClassVar[str] = "partition"
    groups: list[list[str]]                      # message ids of each episode, as kept
    window_message_ids: list[str] = Field(default_factory=list)
    proposed: list[list[int]] = Field(default_factory=list)   # 1-based, as the decider said
    topics: list[str] = Field(default_factory=list)
    repairs: list[str] = Field(default_factory=list)
    fallback: str | None = None


class NarratePayload(Recorded):
    stage: ClassVar[str] = "narrate"
    episode_id: str
    cue: str = ""
    narrative: str = ""
    topic: str = ""
    fallback: str | None = None


class IntegratePayload(Recorded):
    stage: ClassVar[str] = "integrate"
    episode_id: str
    candidates: list[EpisodeCandidate] = Field(default_factory=list)
    choice: int = -1                   # 1-based into the candidates, -1 for none
    skipped: str = ""                  # why no candidate was asked about
    reason: str = ""
    fallback: str | None = None
    repair: str = ""
    result_id: str | None = None
    target: str | None = None          # the episode it continued, when merged
    before: EpisodeText | None = None
    incoming: EpisodeText | None = None
    after: EpisodeText | None = None
    merge_fallback: str | None = None


class AnticipatePayload(Recorded):
    stage: ClassVar[str] = "anticipate"
    episode_id: str
    cue: str = ""
    tau: float | None = None           # None: the run's τ
    management: str | None = None      # None: the run's management
    evoked: list[EvokedMemory] = Field(default_factory=list)
    prediction: str = ""
    fallback: str | None = None
    cold_start: bool = False           # nothing passed τ: no prediction was asked for


class DistillPayload(Recorded):
    stage: ClassVar[str] = "distill"
    episode_id: str
    mode: str = ""                     # "prediction-error", or "direct" in Nemori-s
    prediction: str | None = None
    cold_start: bool = False
    read: str = "messages"             # "narrative": the v1 cold start read the narrative
    insights: list[Insight] = Field(default_factory=list)
    covered: list[CoveredStatement] = Field(default_factory=list)
    lines: list[LineReading] = Field(default_factory=list)
    raw_messages: int = 0              # 0: count the event's messages
    fallback: str | None = None
    # the episode's messages an earlier distillation read already (the part of the episode
    # this one continues): not read again, so no message is ever distilled twice
    carried_message_ids: list[str] = Field(default_factory=list)


class ConsolidatePayload(Recorded):
    """What became of one insight: a new memory, a merge into one, or a conflict with one."""
    stage: ClassVar[str] = "consolidate"
    action: Literal["new", "merge", "conflict"]
    episode_id: str
    insight: str
    source_message_ids: list[str] = Field(default_factory=list)
    candidates: list[MemoryCandidate] = Field(default_factory=list)
    skipped: str = ""                  # why no decision was asked for
    asked: str = ""                    # gated: why a decision was asked for
    reason: str = ""
    fallback: str | None = None
    repair: str = ""
    targets: list[str] = Field(default_factory=list)
    result_id: str | None = None
    result_text: str = ""
    unchanged: bool = False            # a merge that left the memory as it was

    @property
    def insight_texts(self) -> list[str]:
        return [self.insight]


class SummaryPayload(Recorded):
    """Flat-summary management: an episode's insights rewritten into the one summary."""
    stage: ClassVar[str] = "consolidate"
    action: Literal["summary"]
    episode_id: str
    insights: list[str] = Field(default_factory=list)
    before: str = ""
    result_id: str | None = None
    result_text: str = ""
    fallback: str | None = None

    @property
    def insight_texts(self) -> list[str]:
        return list(self.insights)


Consolidation = Annotated[Union[ConsolidatePayload, SummaryPayload], Field(discriminator="action")]
Payload = Union[PartitionPayload, NarratePayload, IntegratePayload, AnticipatePayload,
                DistillPayload, ConsolidatePayload, SummaryPayload]

# payload keys whose value says the offline engine decided instead of the model
FALLBACK_KEYS = ("fallback", "merge_fallback")


def fallback_reasons(payload: Payload) -> list[str]:
    """Why the offline engine decided in the model's place, once per decision it took over
    (an integration can fall back twice: choosing the episode and writing the merge)."""
    return [reason for key in FALLBACK_KEYS if key in type(payload).model_fields
            and (reason := getattr(payload, key))]


# ---- events -------------------------------------------------------------------------------

class _Event(BaseModel):
    """One decision a stage made, with links to everything it involved."""
    window: int
    seq: int = 0
    message_ids: list[str] = Field(default_factory=list)
    episode_ids: list[str] = Field(default_factory=list)
    memory_ids: list[str] = Field(default_factory=list)
    call_ids: list[str] = Field(default_factory=list)


class PartitionEvent(_Event):
    stage: Literal["partition"] = "partition"
    payload: PartitionPayload


class NarrateEvent(_Event):
    stage: Literal["narrate"] = "narrate"
    payload: NarratePayload


class IntegrateEvent(_Event):
    stage: Literal["integrate"] = "integrate"
    payload: IntegratePayload


class AnticipateEvent(_Event):
    stage: Literal["anticipate"] = "anticipate"
    payload: AnticipatePayload


class DistillEvent(_Event):
    stage: Literal["distill"] = "distill"
    payload: DistillPayload


class ConsolidateEvent(_Event):
    stage: Literal["consolidate"] = "consolidate"
    payload: Consolidation


StageEvent = Annotated[Union[PartitionEvent, NarrateEvent, IntegrateEvent, AnticipateEvent,
                             DistillEvent, ConsolidateEvent], Field(discriminator="stage")]
EVENT_OF_STAGE: dict[str, type[_Event]] = {
    cls.model_fields["stage"].default: cls
    for cls in (PartitionEvent, NarrateEvent, IntegrateEvent, AnticipateEvent, DistillEvent,
                ConsolidateEvent)}
STAGES = tuple(EVENT_OF_STAGE)
_ADAPTER: TypeAdapter = TypeAdapter(StageEvent)


def event_of(payload: Payload, *, window: int, seq: int, **links: list[str]) -> StageEvent:
    """The event that carries `payload`, of the stage the payload belongs to."""
    return EVENT_OF_STAGE[payload.stage](window=window, seq=seq, payload=payload, **links)


def load_event(fields: dict[str, Any]) -> StageEvent:
    """An event read back from the store; unknown payload keys are kept, not refused."""
    return _ADAPTER.validate_python(fields, context=STORED)


def build_event(fields: dict[str, Any]) -> StageEvent:
    """An event from plain fields (payload as a dict), as strictly as code builds one."""
    return _ADAPTER.validate_python(fields)
