"""Is a clause knowledge or talk? Rules first, then a prototype classifier over embeddings.

The rules catch what needs no judgement: questions, greetings and thanks, idioms, image
captions alone, clauses too thin to state anything. The rest is compared with the labelled
examples in `phatic_examples`: the mean similarity to the closest phatic examples minus that to
the closest knowledge examples is the clause's phatic score, and a score above the margin
makes it talk. Every decision carries its reason and score, so a person can check it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .phatic_examples import KNOWLEDGE, PHATIC
from .text import content_words, words

KNOWLEDGE_KIND, PHATIC_KIND = "knowledge", "phatic"
CAPTION_ONLY = "an image caption alone"
TOP = 3    # examples of each kind a clause is compared with

_GREETING = re.compile(
    r"^(hi|hey|hello|thanks|thank you|bye|good ?bye|see you|ok|okay|sure|wow|haha|lol|yeah|"
    r"yes|no|great|cool|nice|awesome|congrats|congratulations|welcome back|good morning|"
    r"good night|cheers|aw+|omg|yay|same|exactly|indeed|agreed|definitely|absolutely|totally"
    r")\b[\s\w,!.'’]{0,24}$", re.I)
IDIOMS = re.compile(
    r"\b(can't wait|cannot wait|can't believe|can't deny|can't thank you enough|can't imagine|"
    r"couldn't agree more|couldn't be happier|never mind|no problem|no worries|not bad|"
    r"no wonder|not sure|never forget|no way|don't worry|never give up|never looked back|"
    r"can't help but|nothing beats|talk (to you )?soon|see you(?![' ]?(?:ve|have|are|re|were|"
    r"got|did|know|made|in the)\b)|good luck|wish me luck|"
    r"take care|well deserved|lucky you|sounds (like )?(a )?(good|great|solid|fun|amazing)|"
    r"you'll be (great|fine)|glad to hear|happy for you|proud of you|here for you|keep it up|"
    r"you got this|you've got this|means a lot|means the world)\b", re.I)
# the speaker taking leave: "I'm off to nap before my shift", "I've got boxes to pack"
LEAVING = re.compile(
    r"^(?:(?:I'm|I am) off(?=\s+(?:to|now|for|home|out|then)\b|[\s,!.]*$)|"
    r"(?:I've|I have|I) got (?:\w+ ){1,3}to (?:pack|do|finish|sort|catch|cook|clean|mark|grade|"
    r"write)\b|(?:I|I've) (?:gotta|got to|have to|"
    r"need to|must) (?:go|run|dash|fly|head off|get going|get back|sleep|crash)(?: now| soon)?"
    r"[\s,!.]*$)", re.I)
# a question by its word order, asked in chat without its question mark: "how's the dog btw",
# "did you get the tickets"
QUESTION_FORM = re.compile(
    r"^(?:(?:how|what|where|when|who|why|which)(?:'s|’s|\s+(?:is|are|was|were|do|does|did|has|"
    r"have|can|could|will|would)\b)|(?:what|which|how) \w+ (?:do|does|did|is|are|was|were|can|"
    r"will)\b|(?:do|does|did|are|is|was|were|have|has|can|could|will|"
    r"would|should)\s+(?:you|we|they|he|she|it|I)\b)", re.I)
_SELF_SAYS = re.compile(r"^(?:I|I'm|I've|We|We're|We've)(?:\s+[A-Za-z]+){2}[.!]?$", re.I)
SPECIFIC = re.compile(r"\b(?!I\b)[A-Z][a-z]+|\d|\b(one|two|three|four|five|six|seven|eight|"
                      r"nine|ten|twelve|twenty|hundred)\b")
SPECIFIC_BONUS = 0.06
CAPTION = re.compile(r"\[Image: [^\]]*\]")


@dataclass(frozen=True)
class LineDecision:
    kind: str          # "knowledge" or "phatic"
    reason: str        # the rule that decided, or the classifier with its score
    score: float       # phatic score: above the margin is talk (rules give ±1)


def without_captions(text: str) -> str:
    return CAPTION.sub(" ", text).strip()


def rule(clause: str) -> LineDecision | None:
    """The rule that decides the clause on its own, if any."""
    stripped = clause.strip()
    said = words(stripped)
    # a number is what a fact is made of, however short: "on the 10th", "the 10k"
    n_words = len(said)
    n_content = len(content_words(stripped)) + sum(w[0].isdigit() and len(w) < 3 for w in said)
    if stripped.endswith("?") or QUESTION_FORM.match(stripped):
        return LineDecision(PHATIC_KIND, "a question", 1.0)
    if _GREETING.match(stripped):
        return LineDecision(PHATIC_KIND, "greeting, thanks or reaction", 1.0)
    idiom = IDIOMS.search(stripped)
    if idiom and (n_content < 5 or len(words(stripped[:idiom.start()])) <= 2):
        # an idiom that is the clause's own verb ("I can't wait for ...") says how the speaker
        # feels, not what holds
        return LineDecision(PHATIC_KIND, f"idiom '{idiom.group(0)}'", 1.0)
    if LEAVING.match(stripped):
        # precision first: "I'm off to Lyon on Monday" is lost with "I'm off to nap"
        return LineDecision(PHATIC_KIND, "the speaker taking leave", 1.0)
    if n_content < 2 or (n_words < 4 and not _SELF_SAYS.match(stripped)):
        # three words that say what the speaker does ("I'm learning Japanese", "I quit
        # smoking") are for the classifier to judge, as longer clauses are
        return LineDecision(PHATIC_KIND, "too little content to state a fact", 1.0)
    return None


class PhaticClassifier:
    """Decides clauses with the rules, then by nearest labelled examples."""

    def __init__(self, embedder, margin: float = 0.0):
        self.embedder = embedder
        self.margin = margin
        self._protos: tuple[np.ndarray, np.ndarray] | None = None

    def _prototypes(self) -> tuple[np.ndarray, np.ndarray]:
        if self._protos is None:
            vecs = self.embedder.embed(list(PHATIC) + list(KNOWLEDGE))
            self._protos = (vecs[:len(PHATIC)], vecs[len(PHATIC):])
        return self._protos

    def scores(self, vectors: np.ndarray) -> np.ndarray:
        """Phatic score of each clause vector: closeness to talk minus closeness to facts."""
        if len(vectors) == 0:
            return np.zeros(0, np.float32)
        phatic, knowledge = self._prototypes()
        near_p = np.sort(vectors @ phatic.T, axis=1)[:, -TOP:].mean(axis=1)
        near_k = np.sort(vectors @ knowledge.T, axis=1)[:, -TOP:].mean(axis=1)
        return near_p - near_k

    def decide_vectors(self, clauses: list[str], vectors: np.ndarray | None) -> list[LineDecision]:
        """The classifier's decision for clauses no rule decided, from their vectors."""
        if not clauses or vectors is None:
            return []
        out = []
        for text, s in zip(clauses, self.scores(vectors)):
            # a name or a number is what facts are made of: such a clause must be clearly
            # nearer talk to count as talk
            specific = bool(SPECIFIC.search(text[1:]))
            talk = float(s) > self.margin + (SPECIFIC_BONUS if specific else 0.0)
            out.append(LineDecision(
                PHATIC_KIND if talk else KNOWLEDGE_KIND,
                f"classifier: nearer {'talk' if talk else 'facts'} "
                f"({float(s):+.2f}{', has names/numbers' if specific else ''})",
                round(float(s), 4)))
        return out

    def decide(self, clauses: list[str]) -> list[LineDecision]:
        """Rules, then the classifier."""
        decided = [rule(c) for c in clauses]
        open_idx = [i for i, d in enumerate(decided) if d is None]
        said = [clauses[i] for i in open_idx]
        for i, d in zip(open_idx, self.decide_vectors(said, self.embedder.embed(said)
                                                      if said else None)):
            decided[i] = d
        return decided  # type: ignore[return-value]
