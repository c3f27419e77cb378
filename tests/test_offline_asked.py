"""An "it" that opens an answer stands for the one thing the question asked about."""

from __future__ import annotations

from datetime import datetime

from nemori_ui.core.models import Message
from nemori_ui.core.offline.asked import answered_it, asked_thing

SPEAKERS = ["Rosa", "Dev"]


def said_by(speaker: str, text: str) -> Message:
    return Message(id="m0001", speaker=speaker, text=text, timestamp=datetime(2024, 8, 2))


def test_the_one_thing_a_question_names_with_the():
    assert asked_thing("Are you still organising the street party?") == "street party"
    assert asked_thing("Did you talk to Dad about the knee surgery?") == "knee surgery"
    assert asked_thing("Is the client demo still on Thursday?") == "client demo"
    # none, several, or no question: nothing to stand for
    assert asked_thing("How are you?") is None
    assert asked_thing("Is the party before or after the match?") is None
    assert asked_thing("I booked the venue.") is None


def test_an_opening_it_is_named_by_the_question_before():
    asked = (said_by("Rosa", "Are you still organising the street party?"),)
    assert answered_it("it's on Saturday 24 August", "Hi Rosa! Yes, ", asked, "Dev",
                       SPEAKERS) == "The street party's on Saturday 24 August"
    assert answered_it("It is on Saturday", "", asked, "Dev", SPEAKERS) == \
        "The street party is on Saturday"


def test_an_it_stays_as_said_unless_it_answers_someone_elses_question():
    asked = (said_by("Rosa", "Are you still organising the street party?"),)
    # said after something else in the message: the "it" may be that
    assert answered_it("it's on Saturday", "I booked the hall. ", asked, "Dev",
                       SPEAKERS) == "it's on Saturday"
    # the speaker's own question, or no question at all
    assert answered_it("it's on Saturday", "", asked, "Rosa", SPEAKERS) == "it's on Saturday"
    told = (said_by("Rosa", "I love the street party."),)
    assert answered_it("it's on Saturday", "", told, "Dev", SPEAKERS) == "it's on Saturday"
    # an "it" that is no subject of "is" / "was" is left alone
    assert answered_it("it rained all day", "", asked, "Dev", SPEAKERS) == "it rained all day"
