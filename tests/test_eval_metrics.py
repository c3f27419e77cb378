"""The answer metrics against hand-computed cases, and question items against bad data."""

from __future__ import annotations

import math

import pytest

from nemori_ui.core.eval import qa
from nemori_ui.core.eval.metrics import bleu1, f1, sentence_bleu, split_sentences, word_tokenize
from nemori_ui.core.models import Conversation, Message


# -- F1 ------------------------------------------------------------------------------------------

def test_f1_compares_sets_not_counts():
    # with counts, the repeated "the" would cost precision (2/3); as sets both are {the, cat}
    assert f1("the the cat", "the cat") == 1.0
    assert f1("cat cat cat", "cat dog") == pytest.approx(2 * 1 * 0.5 / 1.5)


def test_f1_partial_overlap():
    # common {a, b}: precision 2/4, recall 2/3
    assert f1("a b c d", "a b e") == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
    assert f1("Paris", "London") == 0.0


def test_f1_turns_only_four_punctuation_marks_into_spaces():
    assert f1("May 7, 2023.", "7 may 2023") == 1.0
    assert f1("Yes! Really?", "yes really") == 1.0
    # other punctuation stays part of the word
    assert f1("Paris;", "Paris") == 0.0
    assert f1("Jon's", "Jon") == 0.0


def test_f1_of_empty_answers_is_zero():
    assert f1("", "Paris") == 0.0
    assert f1("Paris", "") == 0.0
    assert f1("   ", "Paris") == 0.0
    assert f1("...", "Paris") == 0.0     # only punctuation: no token left


def test_integer_answers_are_compared_as_text():
    assert f1(2022, "2022") == 1.0
    assert f1("in 2022", 2022) == pytest.approx(2 * 0.5 * 1 / 1.5)
    assert bleu1("2022", 2022) == 1.0


# -- BLEU-1 --------------------------------------------------------------------------------------

def test_bleu1_is_precision_times_brevity_penalty():
    # 3 of 3 unigrams match; hypothesis 3 tokens against 6: BP = exp(1 - 6/3)
    assert bleu1("the cat sat", "the cat sat on the mat") == pytest.approx(math.exp(-1))
    assert bleu1("the cat sat on the mat", "the cat sat on the mat") == 1.0


def test_bleu1_clips_repeated_words():
    # "the" counts once against a reference holding it once: 1/3, no penalty (3 > 2)
    assert bleu1("the the the", "the cat") == pytest.approx(1 / 3)


def test_bleu1_counts_punctuation_tokens():
    # "7 may , 2023" against "7 may 2023": 3 of 4 match, and the comma is a token
    assert bleu1("7 May, 2023", "7 May 2023") == pytest.approx(0.75)
    assert f1("7 May, 2023", "7 May 2023") == 1.0


def test_bleu1_is_zero_without_a_common_word_and_for_empty_answers():
    assert bleu1("dog", "cat") == 0.0
    assert bleu1("", "cat") == 0.0
    assert bleu1("cat", "") == 0.0


def test_bleu1_lowercases():
    assert bleu1("PARIS", "paris") == 1.0


def test_smoothing_method_1_applies_to_higher_orders():
    # BLEU-2 of [a, c] against [a, b, c]: p1 = 1, p2 = 0 -> 0.1 / 1; BP = exp(1 - 3/2)
    expected = math.exp(1 - 1.5) * math.exp(0.5 * math.log(1) + 0.5 * math.log(0.1))
    assert sentence_bleu(["a", "b", "c"], ["a", "c"], (0.5, 0.5)) == pytest.approx(expected)


# -- word_tokenize -------------------------------------------------------------------------------

@pytest.mark.parametrize("text, tokens", [
    ("he went home. she stayed.", ["he", "went", "home", ".", "she", "stayed", "."]),
    ("i don't know", ["i", "do", "n't", "know"]),
    ("caroline's dog", ["caroline", "'s", "dog"]),
    ("cannot go", ["can", "not", "go"]),
    ('she said "hi" (twice)', ["she", "said", "``", "hi", "''", "(", "twice", ")"]),
    ("it costs $3.88, or 1,000 yen", ["it", "costs", "$", "3.88", ",", "or", "1,000", "yen"]),
    ("dr. smith came", ["dr.", "smith", "came"]),          # a known abbreviation
    ("in 2023. then", ["in", "2023.", "then"]),            # a number does not end a sentence
    ("wait... what?!", ["wait", "...", "what", "?", "!"]),
])
def test_word_tokenize_like_nltk(text, tokens):
    assert word_tokenize(text) == tokens


def test_sentences_split_at_sentence_ends_only():
    assert split_sentences("we met mr. jones. it was fun! really?") == [
        "we met mr. jones.", "it was fun!", "really?"]


# -- question items ------------------------------------------------------------------------------

def conversation(qa_items) -> Conversation:
    messages = [Message(id=f"m{i:04d}", speaker="Ana", text=f"turn {i}", session=1,
                        source_ref=f"D1:{i}") for i in range(1, 4)]
    return Conversation(id="c1", messages=messages, extra={"qa": qa_items})


def test_items_skip_bad_questions_with_a_reason():
    found = qa.locomo_items(conversation([
        {"question": "q1", "answer": "a", "evidence": ["D1:1"], "category": 4},
        {"question": "q2", "evidence": ["D1:2"], "category": 1},                 # no answer
        {"question": "q3", "adversarial_answer": "x", "evidence": [], "category": 5},
        {"question": "q4", "answer": 2023, "evidence": ["D1:3"], "category": 2},  # an integer
        {"question": "q5", "answer": "a", "evidence": ["D1:1"], "category": "x"},
        {"question": "", "answer": "a", "evidence": ["D1:1"], "category": 4},
        "not an object",
    ]))
    assert [i.id for i in found.items] == ["c1#1", "c1#4"]
    assert found.items[1].answer == "2023"
    assert found.skipped() == {qa.NO_ANSWER: 1, qa.ADVERSARIAL: 1, qa.BAD_CATEGORY: 1,
                               qa.NO_QUESTION: 1, "not a question object": 1}


def test_malformed_evidence_is_split_or_reported():
    found = qa.locomo_items(conversation([
        {"question": "q1", "answer": "a", "evidence": ["D1:1; D1:3"], "category": 1},
        {"question": "q2", "answer": "a", "evidence": ["D9:9"], "category": 1},
        {"question": "q3", "answer": "a", "evidence": ["D1:2", "see above"], "category": 1},
        {"question": "q4", "answer": "a", "evidence": [], "category": 3},
    ]))
    split, missing, garbage, none = found.items
    assert [e.message_id for e in split.evidence] == ["m0001", "m0003"] and split.checkable
    assert split.notes and "D1:1; D1:3" in split.notes[0]
    assert not missing.checkable and missing.evidence[0].message_id is None
    assert not garbage.checkable and [e.ref for e in garbage.evidence] == ["D1:2", "see above"]
    assert not none.checkable
    # all four are still answered; only recall leaves the last three out
    assert found.skipped() == {qa.BAD_EVIDENCE: 2, qa.NO_EVIDENCE: 1}
    assert all(not i.skipped for i in found.issues)


def test_categories_can_be_chosen():
    found = qa.locomo_items(conversation([
        {"question": "q1", "answer": "a", "evidence": ["D1:1"], "category": 4},
        {"question": "q2", "answer": "a", "evidence": ["D1:1"], "category": 2},
    ]), categories=[2])
    assert [i.category for i in found.items] == ["2"]
    assert found.skipped() == {qa.NOT_CHOSEN: 1}
