"""Evidence a retrieved memory brings into the context: only turns it came from and states."""

from nemori_ui.core.eval.evidence import carries, credited_turns, evidence_found
from nemori_ui.core.models import Message, SemanticMemory


def turn(mid: str, text: str) -> Message:
    return Message(id=mid, speaker="Caroline", text=text)


TURNS = {m.id: m for m in [
    turn("m1", "I went to a LGBTQ support group yesterday and it was so powerful."),
    turn("m2", "Here's my latest painting! [Image: a photo of a sunset over a lake]"),
    turn("m3", "[Image: a photo of a dog on a couch]"),
    turn("m4", "I'm thinking of studying psychology to become a counsellor."),
]}


def memory(text: str, *sources: str) -> SemanticMemory:
    return SemanticMemory(id="sm1", text=text, source_message_ids=list(sources))


def test_a_memory_credits_the_turn_whose_content_it_states():
    assert carries("Caroline went to a LGBTQ support group on 7 May 2023.", TURNS["m1"].text)
    assert credited_turns([memory("Caroline went to a LGBTQ support group on 7 May 2023.", "m1")],
                          TURNS) == {"m1"}


def test_a_memory_does_not_credit_a_turn_it_was_not_distilled_from():
    text = "Caroline went to a LGBTQ support group on 7 May 2023."
    assert credited_turns([memory(text, "m4")], TURNS) == set()


def test_a_merged_memory_credits_only_the_turns_its_text_still_carries():
    merged = memory("Caroline went to a LGBTQ support group on 7 May 2023.", "m1", "m4")
    assert credited_turns([merged], TURNS) == {"m1"}


def test_a_caption_does_not_credit_what_was_said_beside_it():
    from_caption = memory("A photo of a sunset over a lake.", "m2")
    assert credited_turns([from_caption], TURNS) == set()
    assert credited_turns([memory("A photo of a dog on a couch.", "m3")], TURNS) == set()
    said = memory("Caroline shared Caroline's latest painting.", "m2")
    assert credited_turns([said], TURNS) == {"m2"}


def test_one_shared_word_is_not_enough():
    assert not carries("Caroline likes psychology.", TURNS["m4"].text)
    assert carries("Caroline is thinking of studying psychology to become a counsellor.",
                   TURNS["m4"].text)


def test_found_in_episodes_and_in_the_whole_context():
    marks = evidence_found(["m1", "m2", "m4", None], {"m1"}, {"m2"})
    assert marks == [{"in_episodes": True, "found": True}, {"in_episodes": False, "found": True},
                     {"in_episodes": False, "found": False},
                     {"in_episodes": False, "found": False}]


def test_a_memory_is_credited_only_when_it_carries_the_gold_answer_the_turn_holds():
    said = turn("m5", "We adopted a guinea pig last month, his name is Oscar and he loves carrots.")
    turns = {"m5": said}
    topic_only = memory("Caroline adopted a guinea pig last month and he loves carrots.", "m5")
    with_answer = memory("Caroline adopted a guinea pig named Oscar.", "m5")
    assert credited_turns([topic_only], turns, answer="Oscar") == set()
    assert credited_turns([with_answer], turns, answer="Oscar") == {"m5"}


def test_without_the_answer_in_the_turn_most_of_the_turn_must_be_carried():
    said = turn("m6", "I finally finished the quilt for my niece, blue squares and yellow stars.")
    turns = {"m6": said}
    # the answer (a date) is not in the turn: most of its content words decide
    assert credited_turns([memory("Caroline finished a quilt.", "m6")], turns,
                          answer="June 2023") == set()
    assert credited_turns([memory("Caroline finished the quilt for her niece with blue squares "
                                  "and yellow stars.", "m6")], turns, answer="June 2023") == {"m6"}
