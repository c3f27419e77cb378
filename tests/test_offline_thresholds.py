"""The offline engine's cut-offs, pinned on either side: a clause of one word fewer than the
word-count rule allows, one content word short, a classifier score just under and just over
the margin that a name or number raises, a negation or change one word inside and one word
past the main clause. Moving any of these constants turns one of these tests red."""

from __future__ import annotations

import numpy as np
import pytest

from nemori_ui.core.offline.facts import change_cue, negated
from nemori_ui.core.offline.phatic import (KNOWLEDGE_KIND, PHATIC_KIND, PhaticClassifier, rule)
from nemori_ui.core.offline.phatic_examples import PHATIC

TOO_THIN = "too little content to state a fact"


# -- words: fewer than four, or fewer than two content words, is talk --------------------------

@pytest.mark.parametrize("clause, thin", [
    ("Maya adopted puppies", True),                 # 3 words (all of them content)
    ("Maya adopted two puppies", False),            # 4 words
    ("it is on the table", True),                   # 5 words, 1 content word
    ("the cat is on the table", False),             # 6 words, 2 content words
])
def test_the_word_count_rule_at_its_edges(clause, thin):
    decided = rule(clause)
    if thin:
        assert decided is not None and decided.kind == PHATIC_KIND
        assert decided.reason == TOO_THIN
    else:
        assert decided is None          # left to the classifier


# -- the classifier: a name or a number raises the margin a clause must clear to be talk ---------

class TwoPoleEmbedder:
    """Every phatic example at one pole, every knowledge example at the other: a clause
    vector (a, b) then scores exactly a - b."""
    dim = 2

    def embed(self, texts):
        phatic = set(PHATIC)
        return np.array([[1.0, 0.0] if t in phatic else [0.0, 1.0] for t in texts], np.float32)


def scored(score: float) -> np.ndarray:
    return np.array([[0.5 + score / 2, 0.5 - score / 2]], np.float32)


MARGIN = 0.05          # the engine's default phatic margin (OfflineThresholds.phatic_margin)
SPECIFIC_AT = MARGIN + 0.06


@pytest.mark.parametrize("clause, score, kind", [
    ("went home early after the long shift", MARGIN - 0.002, KNOWLEDGE_KIND),
    ("went home early after the long shift", MARGIN + 0.002, PHATIC_KIND),
    ("went to Porto after the long shift", SPECIFIC_AT - 0.002, KNOWLEDGE_KIND),
    ("went to Porto after the long shift", SPECIFIC_AT + 0.002, PHATIC_KIND),
    ("ran 12 kilometres on Sunday morning", SPECIFIC_AT - 0.002, KNOWLEDGE_KIND),
    ("ran twelve kilometres after work", SPECIFIC_AT - 0.002, KNOWLEDGE_KIND),
], ids=["plain-under", "plain-over", "name-under", "name-over", "digits", "number-word"])
def test_a_name_or_number_raises_the_margin_by_the_specificity_bonus(clause, score, kind):
    classifier = PhaticClassifier(TwoPoleEmbedder(), margin=MARGIN)
    [decided] = classifier.decide_vectors([clause], scored(score))
    assert decided.kind == kind, decided.reason
    assert decided.score == pytest.approx(score, abs=1e-4)


def test_a_capital_that_opens_the_clause_or_a_lone_i_is_no_name():
    classifier = PhaticClassifier(TwoPoleEmbedder(), margin=MARGIN)
    for clause in ("Went home early after the long shift", "I went home early after work"):
        [decided] = classifier.decide_vectors([clause], scored(MARGIN + 0.002))
        assert decided.kind == PHATIC_KIND and "names/numbers" not in decided.reason


# -- the main clause: a negation or a change this far into the statement is its own ----------

@pytest.mark.parametrize("statement, is_negated", [
    ("Maya said her friend Tom never eats meat", True),         # 'never' is word 6
    ("Maya said her old friend Tom never eats meat", False),    # 'never' is word 7
])
def test_a_negation_counts_within_the_main_clause_bound(statement, is_negated):
    assert negated(statement) is is_negated


@pytest.mark.parametrize("statement, cue", [
    ("Maya and her brother Tom sold the boat", "sold"),         # five words before it
    ("Maya and her older brother Tom sold the boat", None),     # six words before it
    ("Maya and her older brother Tom do not row anymore", "anymore"),   # an afterthought
])
def test_a_change_counts_within_the_main_clause_bound(statement, cue):
    assert change_cue(statement) == cue
