"""A clause becomes a memory only when it can stand on its own: our own examples."""

import pytest

from nemori_ui.core.offline import referents, standalone
from nemori_ui.core.offline.phatic import rule
from nemori_ui.core.offline.resolve import resolve_pronouns, strip_openers
from nemori_ui.core.offline.text import normalise_chat

SPEAKERS = ["Rafa", "Lucia"]


@pytest.mark.parametrize("clause", [
    "I teach maths at a school in Valencia",
    "My sister Carmen runs a bakery",
    "We adopted a rescue greyhound in March",
    "Lucia is training for a half marathon",
    "Restoring old bikes is my favourite thing",
])
def test_clauses_about_someone_named_or_the_speaker_stand(clause):
    assert standalone.judge(clause, SPEAKERS, [])[0] is not None


@pytest.mark.parametrize("clause,why", [
    ("You'd be a wonderful teacher", "listener"),
    ("It showed me how much the town has changed", "refers"),
    ("That was the best paella of the summer", "refers"),
    ("Check out my new bike", "order"),
    ("Running, swimming or cycling every morning", "fragment"),
    ("Board games are a great way to unwind", "general remark"),
    ("Not the week I hoped for", "general remark"),
    ("I loved it so much", "refers"),
    ("I'd fall asleep by nine", "hypothetical"),
    ("My cousin and her wife might move to Cork", "hypothetical"),
    ("I've booked another one for June", "refers"),
    ("I met him at your birthday", "refers"),
    ("Tomorrow sounds good to me", "general remark"),
    ("Three weeks to go", "general remark"),
    # what someone said or thought of an unnamed "it"
    ("Grandad thinks it's too cold for the beach", "refers"),
    ("The physio said it was healing well on 3 May", "refers"),
    ("Marisol reckons that it is the best tapas bar in Seville", "refers"),
    # an 's that says "is": no possession, so no one named
    ("Yoga's a great way to switch off", "general remark"),
    ("Life's about the little things", "general remark"),
    ("Music's so good for the soul", "general remark"),
])
def test_clauses_that_cannot_stand_alone_are_left_out_with_a_reason(clause, why):
    subject, reason = standalone.judge(clause, SPEAKERS, [])
    assert subject is None and why in reason


def test_he_or_she_is_named_by_the_third_party_the_message_introduced():
    earlier = referents.referents("My cousin Pablo moved to Bilbao.", SPEAKERS)
    assert earlier == ["Pablo"]
    subject, _ = standalone.judge("He works at the port", SPEAKERS, earlier)
    assert subject == "Pablo"
    assert referents.name_third_person("He works at the port", "Pablo") == "Pablo works at the port"
    assert standalone.judge("He works at the port", SPEAKERS, [])[0] is None


def test_a_name_said_with_whose_it_is_names_the_person_not_the_possessive():
    earlier = referents.referents("Okay, the bad part: Nuno's contract got cut.", SPEAKERS)
    assert earlier == ["Nuno"]
    assert referents.name_third_person("His last day is 23 May", earlier[-1]) == \
        "Nuno's last day is 23 May"
    # two names, the first one's thing named by the second, stay one name
    assert referents.referents("Yes, Finch Labs hired her.", SPEAKERS) == ["Finch Labs"]


def test_a_capital_that_opens_a_sentence_is_a_name_only_before_a_verb():
    said = "Great day. Last Friday I saw Iris. Sad. Thankfully she called. Tariq said yes."
    assert referents.referents(said, SPEAKERS) == ["Iris", "Tariq"]
    # an acronym or a weekday is never who "he" or "she" is
    assert referents.referents("Nadia got her SIM on Monday, via the API.", SPEAKERS) == \
        ["Nadia"]


def test_a_pronoun_the_message_said_in_lower_case_is_named_from_before_it():
    from nemori_ui.core.models import Message
    from nemori_ui.core.offline.knowledge import _standalone
    m = Message(id="m1", speaker=SPEAKERS[0], text="Perfect. And Tariq said he'll handle it, "
                "he knows the old tables better than anyone.")
    placed, _ = _standalone("He knows the old tables better than anyone.", m, SPEAKERS)
    assert placed == "Tariq knows the old tables better than anyone."


def test_chat_spellings_are_read_as_the_words_they_stand_for():
    assert normalise_chat("im moving in may. i dont drive") == "I'm moving in may. I don't drive"
    assert resolve_pronouns(normalise_chat("ive got a cat"), "Rafa", "Lucia") == \
        "Rafa has got a cat"


def test_we_is_the_speaker_and_the_one_named_beside_them_or_the_speaker_alone():
    assert resolve_pronouns("We sold our boat", "Rafa", "Lucia") == "Rafa sold Rafa's boat"
    assert resolve_pronouns("We've sold our boat", "Rafa", "Lucia", "Rafa's dad") == \
        "Rafa and Rafa's dad have sold Rafa's boat"
    assert resolve_pronouns("We're moving in May", "Rafa", "Lucia") == "Rafa is moving in May"


def test_who_we_includes_is_the_one_person_named_beside_the_speaker():
    from nemori_ui.core.offline.referents import companion
    assert companion(["Me and my dad restored an old car."], "Dave") == "Dave's dad"
    assert companion(["My sister Ana and I went to Rome."], "Dave") == "Ana"
    assert companion(["I went hiking with my kids."], "Dave") == "Dave's kids"
    assert companion(["We went out."], "Dave") is None
    # two beside the speaker, or two named in turn: no one "we" could be
    assert companion(["I went with Priya and my dad."], "Dave") is None
    assert companion(["Priya and I went.", "Me and my dad went too."], "Dave") is None


def test_an_idiom_that_is_the_clause_verb_is_talk_and_no_way_is_an_opener():
    assert rule("I can't wait for the day we stop using the old printer").kind == "phatic"
    assert strip_openers("No way, we're doing this without a map", SPEAKERS).startswith("We're")
    # without the pause it negates the clause: kept, and then talk, never its opposite
    kept = strip_openers("No way we're doing this without a map", SPEAKERS)
    assert kept.startswith("No way") and rule(kept).kind == "phatic"


@pytest.mark.parametrize("clause", [
    "Starting June I'll be working from the Leeds office",
    "Brennan & Co have me on the bridge survey until autumn",
])
def test_a_clause_the_speaker_is_in_stands_whatever_opens_it(clause):
    assert standalone.judge(clause, SPEAKERS, [])[0] == "self"


@pytest.mark.parametrize("clause", ["The pottery course starts in october",
                                    "The pottery course starts in October"])
def test_a_thing_dated_in_lower_case_is_as_specific_as_in_capitals(clause):
    assert standalone.judge(clause, SPEAKERS, [])[0] == "thing"


@pytest.mark.parametrize("said,kept", [
    ("Quick update: the bakery moved to Calle Mayor", "The bakery moved to Calle Mayor"),
    ("The less fun part: my shift starts at six now", "My shift starts at six now"),
    ("Sorted, an electrician comes on Monday at nine", "An electrician comes on Monday at nine"),
    ("Yesterday, the boiler broke down again", "Yesterday, the boiler broke down again"),
    ("Mum, Dad and I drove to Porto", "Mum, Dad and I drove to Porto"),
    ("Note: ok", "Note: ok"),
])
def test_a_lead_in_that_frames_the_statement_is_dropped(said, kept):
    assert strip_openers(said, SPEAKERS) == kept


def test_a_past_verb_with_its_i_left_out_is_the_speakers_unless_someone_was_just_named():
    from nemori_ui.core.models import Message
    from nemori_ui.core.offline.knowledge import _standalone
    said = "omg. went to my cousin's wedding in Porto"
    placed, _ = _standalone("Went to my cousin's wedding in Porto",
                            Message(id="m1", speaker="Rafa", text=said), SPEAKERS)
    assert placed == "I went to my cousin's wedding in Porto"
    subject, why = standalone.judge("Ate my charger cable on Monday", SPEAKERS, ["Biscuit"])
    assert subject is None and "no subject" in why


def test_an_adverb_that_opens_a_sentence_is_no_name():
    assert not referents.is_name("Still")
    assert standalone.judge("Still acts like a puppy", SPEAKERS, [])[0] is None


@pytest.mark.parametrize("line", ["How's the new flat btw", "did you get the tickets for Leeds",
                                  "What time does the ferry leave tomorrow"])
def test_a_question_asked_without_its_mark_is_talk(line):
    decision = rule(normalise_chat(line))
    assert decision is not None and decision.reason == "a question"


@pytest.mark.parametrize("line", ["When I moved to Leeds I took up climbing.",
                                  "What I love most is the sea air in Porto."])
def test_a_statement_that_opens_with_a_question_word_is_no_question(line):
    assert rule(line) is None


def test_chat_spellings_of_he_s_and_she_s_read_as_the_words():
    assert normalise_chat("shes a nurse and hes a chef") == "She's a nurse and he's a chef"


@pytest.mark.parametrize("clause", [
    "You're on the Lumen 500 plan since 2021",
    "Your booking number is QX-4410",
    "You'll get the new card on Monday",
])
def test_a_specific_said_to_the_one_listener_is_about_them(clause):
    assert standalone.judge(clause, SPEAKERS, [], one_listener=True)[0] == "listener"
    # where several people are spoken to, "you" says nobody in particular
    assert standalone.judge(clause, SPEAKERS, [])[0] is None


@pytest.mark.parametrize("clause", [
    "You'd love Granada in April",
    "You should try the 7am class",
    "You're doing great, Lucia",
    "You're the best",
    "You missed a lot: on Friday Marta quit",
])
def test_praise_advice_or_guesses_about_the_listener_stay_out(clause):
    assert standalone.judge(clause, SPEAKERS, [], one_listener=True)[0] is None


def test_you_and_someone_keep_their_verb():
    assert resolve_pronouns("You and Bruno are both invited", "Rafa", "Lucia") == \
        "Lucia and Bruno are both invited"


def test_a_short_ask_after_the_speakers_statement_is_cut_off_as_talk():
    from nemori_ui.core.offline.resolve import split_ask
    assert split_ask("We're driving to Cadiz on 3 May, want to come?") == \
        ["We're driving to Cadiz on 3 May.", "want to come?"]
    assert rule("want to come?").kind == "phatic"
    # a suggestion after the speaker's news, the news opened by a conjunction
    assert split_ask("And I'm off the antibiotics, so maybe one tasting after all?") == \
        ["And I'm off the antibiotics.", "so maybe one tasting after all?"]
    # asking whether the news is news asks nothing about it
    assert split_ask("I'm moving to the Graz office in June, did I tell you?") == \
        ["I'm moving to the Graz office in June.", "did I tell you?"]
    # a supposition checked with a tag, or an ask after words about the listener, stays whole
    assert split_ask("You're coming on Friday, right?") == ["You're coming on Friday, right?"]
    assert split_ask("You're coming to Cadiz on 3 May, want a lift?") == \
        ["You're coming to Cadiz on 3 May, want a lift?"]
    from nemori_ui.core.models import Message
    from nemori_ui.core.offline.knowledge import _clauses
    said = [c for _, c in _clauses([Message(id="m1", speaker="Rafa",
                                            text="We're driving to Cadiz on 3 May, want to come?")])]
    assert said == ["We're driving to Cadiz on 3 May.", "Want to come?"]


def test_there_is_the_one_place_the_message_named_before():
    said = "Speaking of Sevilla, "
    assert referents.name_there("I'm flying there on 2 May", said, SPEAKERS) == \
        "I'm flying to Sevilla on 2 May"
    assert referents.name_there("We lived there for years", "My aunt retired to Faro. ",
                                 SPEAKERS) == "We lived in Faro for years"
    # two places, or none: "there" stays and the clause is left out as before
    assert referents.name_there("I went there twice", "From Lisbon to Porto. ", SPEAKERS) == \
        "I went there twice"
    assert referents.name_there("There is a market", "In Porto. ", SPEAKERS) == \
        "There is a market"


def test_how_the_speaker_knows_is_dropped_and_seeing_you_is_not_a_goodbye():
    assert strip_openers("I can see you've been with us since 2019", SPEAKERS) == \
        "You've been with us since 2019"
    assert strip_openers("I see what you mean", SPEAKERS) == "I see what you mean"
    assert rule("I can see you've been with us since 2019") is None
    assert rule("See you at the party!").kind == "phatic"


def test_a_he_or_she_opening_a_reply_is_the_one_person_the_question_named():
    from nemori_ui.core.models import Message
    from nemori_ui.core.offline.knowledge import _standalone
    asked = (Message(id="m1", speaker="Lucia", text="Tariq said he'd take the stall."),
             Message(id="m2", speaker="Rafa", text="Nice. Is he still at the bakery?"))
    reply = Message(id="m3", speaker="Lucia", text="Yes. He's a baker there, works nights.")
    placed, _ = _standalone("He's a baker, works nights.", reply, SPEAKERS, asked)
    assert placed == "Tariq is a baker, works nights."
    assert referents.person_before(["How's Yusuf taking it?"], SPEAKERS) == "Yusuf"


@pytest.mark.parametrize("before", [
    ["Tariq said he'd take the stall."],                      # no question asked
    ["Is Pipo going to your mum's while you're away?"],        # "your mum" is in the running
    ["Did you walk your dog Pipo today?"],                     # a pet
    ["Did Tariq and Ana sign up?"],                            # two people
])
def test_a_he_or_she_with_more_than_one_candidate_or_none_asked_stays_unnamed(before):
    assert referents.person_before(before, SPEAKERS) is None


def test_a_thing_dated_by_a_relative_day_stands_and_someone_unnamed_does_not():
    assert standalone.judge("The boxes get collected this weekend", SPEAKERS, [])[0] == "thing"
    assert standalone.judge("A friend of mine moved last year", SPEAKERS, [])[0] is None


@pytest.mark.parametrize("clause", [
    "My own, a Bianchi from 2019",
    "Our 500 Mbps fibre plan",
    "A small flat near Cadiz",
    "My cousin Pablo, a nurse in Bilbao",
])
def test_a_clause_with_no_verb_is_a_fragment(clause):
    subject, why = standalone.judge(clause, SPEAKERS, [])
    assert subject is None and "no verb" in why


@pytest.mark.parametrize("clause", [
    "I cycle to the office",            # a base verb after "I"
    "My week's been all spreadsheets",  # a contraction
    "My sister Carmen runs a bakery",
    "We adopted a rescue greyhound in March",
])
def test_a_clause_with_a_verb_is_no_fragment(clause):
    assert standalone.has_verb(clause)
    assert standalone.judge(clause, SPEAKERS, [])[0] is not None


def test_a_capital_on_a_gerund_names_no_one():
    assert standalone.judge("Gardening keeps everyone sane", SPEAKERS, [])[0] is None
    # with a day or a time it is an arrangement
    assert standalone.judge("Bowling is at 8pm from 4 March on", SPEAKERS, [])[0] == "thing"
    # a name stays a name, and a clause with the speaker in it is theirs
    assert standalone.judge("Tariq runs the stall", SPEAKERS, [])[0] == "Tariq"
    assert standalone.judge("Starting June I'll be in Leeds", SPEAKERS, [])[0] == "self"


@pytest.mark.parametrize("clause,kept", [
    ("I'm Rafa, one of the coaches here", "I'm one of the coaches here"),
    ("this is Rafa from the Madrid office", "I'm from the Madrid office"),
    ("My name is Rafa Ortiz, from the bike shop", "I'm from the bike shop"),
    ("I'm Rafa and I'll be running the session", "I'll be running the session"),
    ("I'm ready for the trip", "I'm ready for the trip"),
    ("It's Rafa's birthday on Friday", "It's Rafa's birthday on Friday"),
])
def test_a_self_introduction_states_what_follows_the_speakers_own_name(clause, kept):
    assert standalone.without_own_name(clause, "Rafa") == kept


@pytest.mark.parametrize("clause", ["I'm Rafa", "Rafa here", "it's Rafa again", "I'm rafa."])
def test_a_self_introduction_that_only_gives_the_name_states_nothing(clause):
    assert standalone.without_own_name(clause, "Rafa") is None


def test_a_self_introduction_by_the_short_form_of_the_name_is_read_as_one():
    assert standalone.without_own_name("I'm Mel, from billing", "Melanie Ortiz") == "I'm from billing"


def test_an_introduction_in_a_message_is_stored_without_the_name_said_twice():
    from datetime import datetime
    from nemori_ui.core.offline.knowledge import _standalone, _statement
    from nemori_ui.core.models import Message
    m = Message(id="m0001", speaker="Rafa", text="Hi Lucia! I'm Rafa, one of the coaches here.",
                timestamp=datetime(2024, 5, 1, 9, 0))
    clause, _ = _standalone("I'm Rafa, one of the coaches here", m, SPEAKERS)
    assert _statement(clause, m, "Lucia") == "Rafa is one of the coaches here."
    assert _standalone("I'm Rafa", m, SPEAKERS)[0] is None


@pytest.mark.parametrize("clause", ["Snores most of the night", "Barks two times a minute at the postman"])
def test_a_capitalised_verb_and_a_lower_case_word_are_no_name(clause):
    assert standalone.judge(clause, SPEAKERS, [])[0] is None


@pytest.mark.parametrize("clause", ["Weekly review is at 4pm on Fridays",
                                    "Spare key is with the neighbour at number 12",
                                    "Team dinner was moved to Dos Hermanos"])
def test_a_thing_named_without_an_article_stands_when_it_gives_a_specific(clause):
    assert standalone.judge(clause, SPEAKERS, [])[0] == "thing"


def test_a_thing_named_without_an_article_and_no_specific_is_a_general_remark():
    assert standalone.judge("Weekends are quieter", SPEAKERS, [])[0] is None


@pytest.mark.parametrize("clause,subject", [
    ("Tomas got a place at the conservatory", "Tomas"),
    ("Mateo told Lucia about the flat in Gràcia", "Mateo"),
    ("Inés bought a cargo bike for the school run", "Inés"),
])
def test_a_name_before_a_past_form_not_in_ed_is_who_the_clause_is_about(clause, subject):
    assert standalone.judge(clause, SPEAKERS, [])[0] == subject


def test_someone_whose_s_says_is_stands_when_they_speak_or_were_named_before():
    assert standalone.judge("Lucia's a nurse at the children's hospital", SPEAKERS, [])[0] == \
        "Lucia"
    assert standalone.judge("Tomas's a sound engineer in Bilbao", SPEAKERS, ["Tomas"])[0] == \
        "Tomas"
    assert standalone.judge("Tomas's sister runs a bakery", SPEAKERS, [])[0] == "Tomas"


@pytest.mark.parametrize("sentence,clauses", [
    ("I met Ana, Luis and Marta at the pub.", ["I met Ana, Luis and Marta at the pub."]),
    ("We rent a flat in Porto, Vila Nova de Gaia.", ["We rent a flat in Porto, Vila Nova de Gaia."]),
    ("We moved to Leeds, Sam got a job there.", ["We moved to Leeds", "Sam got a job there."]),
])
def test_a_comma_before_words_with_no_verb_cuts_no_clause(sentence, clauses):
    from nemori_ui.core.offline.resolve import split_clauses
    assert split_clauses(sentence) == clauses


@pytest.mark.parametrize("clause", [
    "I did, with my mum, for her birthday",
    "We have, twice",
    "Lucia is, but only on weekends",
    "My brother does too",
    "I can't, not this week",
])
def test_an_answer_that_leaves_its_verb_to_the_question_is_left_out(clause):
    subject, why = standalone.judge(clause, SPEAKERS, [])
    assert subject is None and "the question" in why


@pytest.mark.parametrize("clause", [
    "I did my first triathlon in Cadiz",
    "We have two cats and a tortoise",
    "Lucia is a nurse in Malaga",
    "I can swim five kilometres",
])
def test_an_auxiliary_with_its_verb_or_object_is_no_ellipsis(clause):
    assert standalone.judge(clause, SPEAKERS, [])[0] is not None


