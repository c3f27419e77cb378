"""How a clause becomes a statement a reader would accept: who it is about when a phrase, a
colon or an "and I" comes first, which pronouns it may keep, and what counts as content."""

from datetime import datetime

import pytest

from nemori_ui.core.config import OfflineThresholds
from nemori_ui.core.embed.minilm import load_minilm
from nemori_ui.core.models import Message
from nemori_ui.core.offline import referents, standalone
from nemori_ui.core.offline.knowledge import _standalone, _statement
from nemori_ui.core.offline.phatic import KNOWLEDGE_KIND, PHATIC_KIND, PhaticClassifier, rule
from nemori_ui.core.offline.resolve import resolve_pronouns, split_clauses

SPEAKERS = ["Rafa", "Lucia"]


def test_a_him_after_the_third_party_it_stands_for_is_named():
    clause = "My brother Theo wants to come if work gives him the day off"
    assert standalone.judge(clause, SPEAKERS, [])[0] == "self"


def test_a_would_inside_what_a_past_verb_reports_is_no_hypothetical():
    assert standalone.judge("Lucia said she would bring the tent", SPEAKERS, [])[0] == "Lucia"


def test_the_listener_addressed_by_a_short_name_is_no_third_party():
    # "they" after "Thanks, Luci!" is not Lucia: she is spoken to, and "they" are the friends
    said = "Thanks, Luci! My friends are my rocks, they keep me going."
    assert referents.referents(said, SPEAKERS) == []
    assert referents.referents("Thanks, Luci! Marco says hi.", SPEAKERS) == ["Marco"]


@pytest.mark.parametrize("said,stated", [
    ("In April I started night classes in pharmacy.",
     "In April Rafa started night classes in pharmacy."),
    ("After the funeral my uncle Tomas sold the farm.",
     "After the funeral Rafa's uncle Tomas sold the farm."),
    ("At the workshop Ines showed everyone her loom.",
     "At the workshop Ines showed everyone her loom."),
])
def test_a_phrase_of_time_or_place_before_the_subject_keeps_the_statement(said, stated):
    m = Message(id="m0001", speaker="Rafa", text=said, timestamp=datetime(2024, 5, 1, 9, 0))
    clause, why = _standalone(said.rstrip("."), m, SPEAKERS)
    assert clause is not None, why
    assert _statement(clause, m, "Lucia") == stated


@pytest.mark.parametrize("clause", ["In the Lisbon office every single day",
                                    "At the end of the day it's fine",
                                    "With Lucia on the phone all evening"])
def test_a_phrase_with_no_subject_after_it_is_no_statement(clause):
    assert standalone.fronted(clause) == ("", clause)


@pytest.mark.parametrize("said,stated", [
    ("Hannah and I are expecting our second", "Hannah and Leo are expecting Leo's second"),
    ("Sven and I've been together for years", "Sven and Leo have been together for years"),
    ("My cousin and I run a stall on Saturdays", "Leo's cousin and Leo run a stall on Saturdays"),
    # "and" between two clauses: each "I" is one person again
    ("I like it and I go there often", "Leo likes it and Leo goes there often"),
])
def test_i_joined_to_someone_by_and_keeps_a_plural_verb(said, stated):
    assert resolve_pronouns(said, "Leo", "Tom") == stated


@pytest.mark.parametrize("said, stated", [
    ("I drew the plans myself", "Leo drew the plans themself"),
    ("I went by myself in the end", "Leo went alone in the end"),
    # "we" of the speaker alone: one person, as "myself"
    ("We painted the hall ourselves", "Leo painted the hall themself"),
    ("You should be proud of yourself", "Tom should be proud of themself"),
])
def test_a_reflexive_does_not_say_the_name_twice(said, stated):
    assert resolve_pronouns(said, "Leo", "Tom") == stated


@pytest.mark.parametrize("line", ["I'm on nights from the 9th.", "The shed is 3 by 4.",
                                  "Her flight lands at 6 on Sunday."])
def test_a_short_number_is_content_enough_for_a_fact(line):
    assert rule(line) is None


def test_a_number_alone_is_still_too_little():
    assert "too little" in rule("Back in 10.").reason


def test_how_the_week_is_going_is_talk_and_a_dated_change_a_fact():
    # a state of the moment is gone by the next conversation; a contract's end is not
    default = PhaticClassifier(load_minilm(), OfflineThresholds().phatic_margin)
    decided = default.decide(["My head's been all over the place since Monday.",
                              "The office is freezing and grey as always.",
                              "Her internship at the museum ends in June."])
    assert [d.kind for d in decided] == [PHATIC_KIND, PHATIC_KIND, KNOWLEDGE_KIND]


@pytest.mark.parametrize("clause", ["Took me three months", "Told me the shop was closing",
                                    "Gave us a lift to the station"])
def test_a_verb_done_to_the_speaker_has_no_subject_to_name(clause):
    assert standalone.judge(clause, SPEAKERS, [])[0] is None


def test_a_verb_the_speaker_did_keeps_the_speaker():
    assert standalone.judge("Took the early train to Faro", SPEAKERS, [])[0] is not None


@pytest.mark.parametrize("sentence,clauses", [
    ("My cousins keep asking to borrow the van, they're obsessed.",
     ["My cousins keep asking to borrow the van", "they're obsessed."]),
    ("I met Ines at the market, she rocks.", ["I met Ines at the market", "she rocks."]),
    # a comma before words with no verb goes on with a list
    ("I went to Porto, Braga and Faro.", ["I went to Porto, Braga and Faro."]),
])
def test_a_short_clause_after_a_comma_is_a_clause_of_its_own(sentence, clauses):
    assert split_clauses(sentence) == clauses


@pytest.mark.parametrize("sentence,clauses", [
    # "but I" after two words: the clause before is talk, the one after a fact of its own
    ("It's stressful but I want to finish my degree this year.",
     ["It's stressful", "I want to finish my degree this year."]),
    # "shed" is a past form, so what follows the comma is a clause, not a list
    ("They're doing great, Susie shed her skin yesterday!",
     ["They're doing great", "Susie shed her skin yesterday!"]),
    # a bare "and" after two words still joins a subject
    ("My partner and I have been together for years.",
     ["My partner and I have been together for years."]),
])
def test_a_clause_after_but_or_a_past_form_is_cut_off(sentence, clauses):
    assert split_clauses(sentence) == clauses


@pytest.mark.parametrize("clause", ["Since I was 17 or so", "Although we never met",
                                    "Until Lucia finds a flat"])
def test_a_clause_that_opens_with_a_subordinator_and_ends_there_is_a_fragment(clause):
    assert standalone.judge(clause, SPEAKERS, [])[0] is None


def test_since_before_a_time_is_a_phrase_before_the_subject():
    assert standalone.fronted("Since May I've been running to work") == \
        ("Since May", "I've been running to work")


@pytest.mark.parametrize("clause", ["Art can be a real mood-booster",
                                    "Parenting can really be exhausting"])
def test_what_a_thing_can_be_is_said_of_no_one(clause):
    assert standalone.judge(clause, SPEAKERS, [])[0] is None


def test_what_a_speaker_can_be_is_said_of_them():
    assert standalone.judge("Lucia can be very stubborn", SPEAKERS, [])[0] == "Lucia"


def test_every_word_of_a_place_name_is_the_places():
    # "Thomas'" is part of the hospital's name, not someone a "he" could be
    assert referents.referents("It's booked for 22 October at St Thomas'. ", SPEAKERS) == []
    assert referents.referents("We flew to New York and Dana met us. ", SPEAKERS) == ["Dana"]


def test_a_name_after_an_article_is_a_thing_no_he_or_she_stands_for():
    said = "Lars dropped out of the Dragon Ride, he broke his wrist on Thursday."
    assert referents.referents(said, SPEAKERS) == ["Lars"]
    assert referents.referents("Dana took an Uber Eats job. ", SPEAKERS) == ["Dana"]


def test_a_statement_said_with_several_exclamation_marks_ends_with_one_full_stop():
    from nemori_ui.core.models import Message
    from nemori_ui.core.offline.knowledge import _statement
    said = Message(id="m0001", speaker="Jo", text="I got the flat in Earlsdon!!")
    assert _statement("I got the flat in Earlsdon!!", said, "Sam") == \
        "Jo got the flat in Earlsdon."
