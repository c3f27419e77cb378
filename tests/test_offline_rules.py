"""The offline engine's pure rules: statements, pronouns, dates, talk, conflicts."""

from datetime import datetime

import pytest

from nemori_ui.core.embed import load_minilm
from nemori_ui.core.offline.dates import absolutize, replace_relative, resolve
from nemori_ui.core.offline.conflicts import conflict
from nemori_ui.core.offline.facts import change_cue, negated, same_topic
from nemori_ui.core.offline.phatic import KNOWLEDGE_KIND, PHATIC_KIND, PhaticClassifier, rule
from nemori_ui.core.offline.resolve import (resolve_pronouns, split_clauses, strip_openers,
                                            third_person)

FRIDAY = datetime(2024, 3, 8, 12, 0)
MONDAY = datetime(2024, 3, 11, 12, 0)


@pytest.mark.parametrize("said,speaker,addressee,expected", [
    ("I drink three cups of coffee every morning.", "Maya", "Jonas",
     "Maya drinks three cups of coffee every morning."),
    ("I'm vegan and I've been for years.", "Nora", "Sam", "Nora is vegan and Nora has been for years."),
    ("I went to Lisbon with my sister.", "Maya", "Jonas", "Maya went to Lisbon with Maya's sister."),
    ("I don't eat meat.", "Nora", "Sam", "Nora doesn't eat meat."),
    ("I really love my new job.", "Ana", "Ben", "Ana really loves Ana's new job."),
    ("I'll bring you some sencha.", "Jonas", "Maya", "Jonas will bring Maya some sencha."),
    ("You're moving to York, right?", "Sam", "Nora", "Nora is moving to York, right?"),
    ("I can swim but you can't.", "Ana", "Ben", "Ana can swim but Ben can't."),
    ("I need your help.", "Ana", "Ben", "Ana needs Ben's help."),
])
def test_first_and_second_person_become_the_speakers(said, speaker, addressee, expected):
    assert resolve_pronouns(said, speaker, addressee) == expected


def test_without_a_listener_you_stays_you():
    assert resolve_pronouns("I told you so.", "Ana", None) == "Ana told you so."


@pytest.mark.parametrize("verb,third", [("watch", "watches"), ("study", "studies"),
                                        ("play", "plays"), ("go", "goes"), ("have", "has"),
                                        ("run", "runs")])
def test_third_person_of_a_verb(verb, third):
    assert third_person(verb) == third


@pytest.mark.parametrize("sentence,parts", [
    ("Thank you, but I don't drink coffee anymore, I switched to green tea every morning.",
     ["Thank you", "I don't drink coffee anymore", "I switched to green tea every morning."]),
    ("My partner and I have been together for six years.",
     ["My partner and I have been together for six years."]),
    ("My brother Kofi and I built a shed last summer.",
     ["My brother Kofi and I built a shed last summer."]),
    ("Oh, guess what: Kofi and I built a shed.", ["Oh, guess what: Kofi and I built a shed."]),
    ("Also my aunt and I are going to Accra in May.",
     ["Also my aunt and I are going to Accra in May."]),
    ("The office is in the old harbour district, so I cycle to work along the river.",
     ["The office is in the old harbour district", "I cycle to work along the river."]),
    ("I moved in March and I'm renting a small house.",
     ["I moved in March", "I'm renting a small house."]),
    # a colon between two clauses: each is read on its own; a label or a time is no clause
    ("Guess what happened: my sister bought a boat in Kiel.",
     ["Guess what happened", "my sister bought a boat in Kiel."]),
    ("Big news: my sister bought a boat in Kiel.", ["Big news: my sister bought a boat in Kiel."]),
    ("The ferry leaves at 7:45 on Sundays.", ["The ferry leaves at 7:45 on Sundays."]),
])
def test_one_fact_per_clause(sentence, parts):
    assert split_clauses(sentence) == parts


@pytest.mark.parametrize("clause,expected", [
    ("Wow, Mel, that sounds like a lot of work", "That sounds like a lot of work"),
    ("Absolutely, I drink three cups", "I drink three cups"),
    ("I loved the concert, Jon!", "I loved the concert"),
    ("Hey Gina, my shop opened last week", "My shop opened last week"),
    ("Bad news, the ferry to Kiel is cancelled", "The ferry to Kiel is cancelled"),
    # an aside within or after the statement says nothing of it
    ("Melanie's shop opened last week by the way", "Melanie's shop opened last week"),
    ("The shop is open, by the way, since Monday.", "The shop is open, since Monday."),
])
def test_openers_and_forms_of_address_are_dropped(clause, expected):
    assert strip_openers(clause, ["Melanie", "Jon", "Gina"]) == expected


@pytest.mark.parametrize("phrase,when,expected", [
    ("last Friday", FRIDAY, ("on", "1 March 2024")),     # said on a Friday: a week back
    ("last Friday", MONDAY, ("on", "8 March 2024")),
    ("next Friday", FRIDAY, ("on", "15 March 2024")),
    ("this Friday", FRIDAY, ("on", "8 March 2024")),
    ("last Monday", MONDAY, ("on", "4 March 2024")),
    ("yesterday", MONDAY, ("on", "10 March 2024")),
    ("two weeks ago", MONDAY, ("on", "26 February 2024")),
    ("last month", datetime(2024, 1, 15), ("in", "December 2023")),
    ("last year", MONDAY, ("in", "2023")),
])
def test_relative_dates_resolve_from_the_day_said(phrase, when, expected):
    assert resolve(phrase, when) == expected


def test_dates_off_the_calendar_stay_as_said():
    assert resolve("tomorrow", datetime(9999, 12, 31)) is None
    assert resolve("yesterday", datetime(1, 1, 1)) is None
    assert replace_relative("see you tomorrow", datetime(9999, 12, 31)) == "see you tomorrow"
    assert absolutize("it was yesterday", datetime(1, 1, 1)) == "it was yesterday"


def test_a_plural_is_its_word_and_s_unless_the_word_needs_es():
    from nemori_ui.core.offline.facts import stem
    assert stem("coffees") == stem("coffee")
    assert stem("boxes") == stem("box") and stem("wishes") == stem("wish")


def test_three_words_of_what_the_speaker_does_are_judged_not_dropped():
    assert rule("I'm learning Japanese") is None
    assert rule("I quit smoking!") is None
    assert rule("I do- Oscar").kind == PHATIC_KIND
    assert rule("Sounds fun, mate").kind == PHATIC_KIND


def test_a_weekend_is_dated_by_its_saturday():
    # MONDAY is 11 March 2024
    assert replace_relative("The fair is this weekend", MONDAY) == \
        "The fair is on the weekend of 16 March 2024"
    assert replace_relative("I'm away next week", MONDAY) == \
        "I'm away in the week of 18 March 2024"


def test_a_date_said_again_beside_a_relative_one_is_said_once():
    # MONDAY is 11 March 2024
    assert replace_relative("It switches tomorrow, 12 March, at noon", MONDAY) == \
        "It switches on 12 March 2024, at noon"
    assert replace_relative("Back next Friday (March 15th)", MONDAY) == "Back on 15 March 2024"
    # another day beside it is no repeat: both stay, as said
    assert replace_relative("tomorrow, 20 March", MONDAY) == "on 12 March 2024, 20 March"


def test_statements_replace_relative_dates_and_narratives_annotate_them():
    assert replace_relative("I went yesterday", MONDAY) == "I went on 10 March 2024"
    assert replace_relative("busy since yesterday", MONDAY) == "busy since 10 March 2024"
    assert absolutize("I went yesterday", MONDAY) == "I went yesterday (10 March 2024)"


@pytest.mark.parametrize("line,reason", [
    ("How was your weekend?", "a question"),
    ("Thanks so much!", "greeting"),
    ("I can't wait!", "idiom"),
    ("Totally.", "greeting"),
    ("So cool", "too little"),
    ("I'm off to grab a shower before dinner.", "taking leave"),
    ("I've got some boxes to pack.", "taking leave"),
    ("I have to run now!", "taking leave"),
])
def test_rules_decide_talk_without_a_model(line, reason):
    decision = rule(line)
    assert decision is not None and decision.kind == PHATIC_KIND and reason in decision.reason


@pytest.mark.parametrize("line", ["I have to go to Glasgow for the trial next week.",
                                  "I'm off work every Friday.",
                                  "I'm off the antibiotics since the weekend.",
                                  "I've got two exams to sit in May."])
def test_a_plan_is_not_read_as_taking_leave(line):
    decision = rule(line)
    assert decision is None or "leave" not in decision.reason


def test_no_way_that_opens_a_clause_keeps_its_negation():
    # "No way we're hiring anyone this year" says the opposite of "we're hiring anyone"
    assert strip_openers("No way we're hiring anyone this year", []).lower().startswith("no way")
    assert strip_openers("No way! I passed the bar exam", []) == "I passed the bar exam"


@pytest.fixture(scope="module")
def classifier():
    return PhaticClassifier(load_minilm(), margin=0.05)


def test_the_classifier_tells_talk_from_facts(classifier):
    talk = ["That is so sweet of you, you always know how to cheer me up.",
            "I really appreciate how thoughtful you always are with me.",
            "It's so important to look after yourself these days."]
    facts = ["My grandmother taught me to knit when I was eight.",
             "I bought a second-hand piano for the living room.",
             "Our office is moving to the old brewery in September."]
    decided = classifier.decide(talk + facts)
    assert [d.kind for d in decided] == [PHATIC_KIND] * 3 + [KNOWLEDGE_KIND] * 3
    for d in decided:
        assert d.reason.startswith("classifier") and isinstance(d.score, float)


def test_a_complaint_only_a_little_nearer_talk_is_talk_at_the_default_margin():
    # scored +0.04 by the classifier: above the default margin, as a lament should be
    from nemori_ui.core.config import OfflineThresholds
    default = PhaticClassifier(load_minilm(), OfflineThresholds().phatic_margin)
    assert default.decide(["Deadlines are killing me."])[0].kind == PHATIC_KIND


@pytest.mark.parametrize("new,old", [
    ("Maya doesn't drink coffee anymore.", "Maya drinks three cups of strong coffee every morning."),
    ("Nora moved to York in March.", "Nora lives in Leeds, in a flat near the canal."),
    ("Sam sold Sam's green Volvo.", "Sam drives an old green Volvo to rehearsals."),
    ("The cathedral concert moved to 23 March.",
     "Sam's band is playing a concert at the cathedral on 16 March."),
    ("Ana has three cats.", "Ana has two cats."),
    ("Ben works the day shift now.", "Ben works the night shift at the depot."),
    ("Ana: The wedding is planned for 3 June.", "Ana: The wedding is planned for 12 May."),
    # a numbered thing taken back by the one who holds it
    ("Ana moved to room 14 instead of room 12.", "Ana works in room 12 at the clinic."),
])
def test_a_changed_fact_conflicts(new, old):
    assert conflict(new, old), (new, old)


@pytest.mark.parametrize("new,old", [
    # an idiom negates nothing
    ("Maya can't wait for the trip to Lisbon.", "Maya is going on a trip to Lisbon."),
    # addressing the other speaker is not another value
    ("Gina loves the blue vase, Jon.", "Gina loves the blue vase in the picture."),
    # a rescheduling must name the event: "the concert" alone could be any concert
    ("Sam: The concert moved to 23 March.", "Sam: The band plays a concert at the town hall."),
    # two events of one kind on different dates are two events
    ("Nora went to Whitby on 13 April.", "Nora went to Edinburgh on 3 May."),
    ("Sam: The band played a concert on 10 February.", "Sam: The band played a concert on 16 March."),
    # a numbered thing someone else takes back: "year 3" is anyone's
    ("Ruby is in year 2, not year 3.", "Tom's year 3 class are wild this term."),
    # a result beside a goal
    ("Maya ran the 10k race in 53 minutes.", "Maya wants to finish the 10k race in under 55 minutes."),
    # different people
    ("Jon is vegan.", "Gina is not vegan."),
    # a negation in a later clause is about someone else
    ("Caroline shared her story so they know they're not alone.", "Caroline shared her story at school."),
    # the same fact twice
    ("Maya joined Finch Labs as a data engineer.", "Maya joined Finch Labs as a data engineer."),
])
def test_what_can_both_hold_does_not_conflict(new, old):
    assert conflict(new, old) is None, (new, old)


def test_same_topic_needs_the_same_subject_and_attribute():
    assert same_topic("Nora moved to York.", "Nora lives in Leeds.")
    assert same_topic("Nora moved to York.", "Sam lives in Leeds.") is None
    assert same_topic("Nora likes jazz.", "Nora lives in Leeds.") is None


def test_negation_and_change_are_read_in_the_main_clause():
    assert negated("Maya doesn't drink coffee.")
    assert not negated("Maya can't wait to see the show.")
    assert not negated("Caroline shared her story with the group so they know they're not alone.")
    assert change_cue("Nora moved to York last week.") == "moved"
    assert change_cue("Caroline has known them since she moved from her home country long ago.") is None


def _memory(mid: str, text: str):
    from nemori_ui.core.models import SemanticMemory
    return SemanticMemory(id=mid, text=text)


def test_a_conflict_wins_over_a_merge():
    from nemori_ui.core.config import OfflineThresholds
    from nemori_ui.core.offline.knowledge import consolidation_rule
    insight = "Maya doesn't drink coffee anymore."
    candidates = [(_memory("sm1", "Maya doesn't drink coffee anymore, she said."), 0.95),
                  (_memory("sm2", "Maya drinks three cups of strong coffee every morning."), 0.70)]
    action, targets, reason = consolidation_rule(insight, candidates, OfflineThresholds())
    assert action == "conflict" and targets == [2] and "sm2" in reason


def test_a_detail_merges_and_a_repeat_leaves_the_memory_as_it_is():
    from nemori_ui.core.config import OfflineThresholds
    from nemori_ui.core.offline.knowledge import consolidation_rule, merged_text
    known = "Maya joined Finch Labs as a data engineer."
    action, targets, _ = consolidation_rule("Maya joined Finch Labs as a data engineer in March.",
                                            [(_memory("sm1", known), 0.93)], OfflineThresholds())
    assert action == "merge" and targets == [1]
    assert merged_text("Maya joined Finch Labs as a data engineer in March.", [known]) != known
    assert merged_text("Maya joined Finch Labs as a data engineer.", [known]) == known
    action, _, _ = consolidation_rule("Maya adopted a grey cat named Pixel.",
                                      [(_memory("sm1", known), 0.30)], OfflineThresholds())
    assert action == "new"


def test_a_question_stays_with_its_answer_when_the_topic_shifts():
    import numpy as np
    from nemori_ui.core.config import OfflineThresholds
    from nemori_ui.core.models import Message
    from nemori_ui.core.offline.episodes import cut_points
    texts = ["a", "b", "c", "d", "Any news?", "e", "f", "g", "h"]
    window = [Message(id=f"m{i}", speaker="Ana" if i % 2 else "Ben", text=t)
              for i, t in enumerate(texts)]
    # the topic changes between the question (index 4) and its answer (index 5)
    vectors = np.array([[1.0, 0.0]] * 5 + [[0.0, 1.0]] * 4, dtype=np.float32)
    limits = OfflineThresholds(min_episode=3)
    assert list(cut_points(window, vectors, limits)) == [4]
    # a question first in the window has nothing before it to leave
    window[0] = Message(id="m0", speaker="Ben", text="Any news?")
    vectors = np.array([[1.0, 0.0]] + [[0.0, 1.0]] * 8, dtype=np.float32)
    cut_points(window, vectors, OfflineThresholds(min_episode=1))


def test_a_huge_message_is_read_only_up_to_the_limit_and_says_so():
    from nemori_ui.core.models import Message
    from nemori_ui.core.offline.knowledge import READ_CHARS, UNREAD, read_episodes
    big = "I moved to a new flat near the park last spring. " * (3 * READ_CHARS // 50)
    messages = [Message(id="m1", speaker="Ana", text=big), Message(id="m2", speaker="Ben",
                                                                  text="That is a lot!")]
    clauses = read_episodes([messages], PhaticClassifier(load_minilm()))[0]
    read = [c for c in clauses if c.message_id == "m1" and c.decision.kind != UNREAD]
    assert sum(len(c.raw) for c in read) <= READ_CHARS
    notes = [c for c in clauses if c.decision.kind == UNREAD]
    assert len(notes) == 1 and f"{len(big):,} characters" in notes[0].decision.reason


def test_the_embedder_reads_a_huge_text_no_further_than_the_model_does():
    import numpy as np
    e = load_minilm()
    text = "word " * 2000
    assert np.allclose(e.embed([text])[0], e.embed([text * 200])[0], atol=1e-5)


def test_a_conflict_needs_the_same_person_and_replaces_no_past_event():
    # another person's home, a relative's home, and two trips never conflict
    assert conflict("Nora moved to York.", "Sam lives in Leeds.") is None
    assert conflict("Nora's sister Ana lives in Porto.", "Nora lives in Leeds.") is None
    assert conflict("Nora went to Edinburgh on 3 May.", "Nora went to Whitby on 13 April.") is None
    # a negation about another value of the attribute is no contradiction
    assert conflict("Nora doesn't work weekends.", "Nora works at the library.") is None


def test_the_prediction_as_a_whole_holds_a_statement_no_single_line_holds():
    import numpy as np
    from nemori_ui.core.config import OfflineThresholds
    from nemori_ui.core.offline.knowledge import prediction_gaps
    statement = ["Nora went to the pharmacy conference in Edinburgh with Felix."]
    predicted = ["Nora went to a pharmacy conference in Edinburgh.", "Nora's friend Felix works "
                 "with Nora."]
    vec = np.asarray([[1.0, 0.0]], dtype=np.float32)
    pred = np.asarray([[0.65, 0.76], [0.62, 0.78]], dtype=np.float32)
    held = prediction_gaps(statement, vec, predicted, pred, OfflineThresholds())
    assert held[0] is not None and held[0][0] == predicted[0]
    strict = OfflineThresholds(covered_whole_share=1.01)
    assert prediction_gaps(statement, vec, predicted, pred, strict) == [None]
    # the line that knows Felix is far from the statement: it holds nothing of it
    far = np.asarray([[0.65, 0.76], [0.2, 0.98]], dtype=np.float32)
    assert prediction_gaps(statement, vec, predicted, far, OfflineThresholds()) == [None]


def test_words_scattered_over_a_long_prediction_hold_nothing():
    """A rota's prediction names every weekday somewhere: a change of shifts is still news."""
    import numpy as np
    from nemori_ui.core.config import OfflineThresholds
    from nemori_ui.core.offline.knowledge import prediction_gaps
    statement = ["Sam moves to the Wednesday and Thursday opens at the café."]
    predicted = ["Sam takes the Tuesday and Friday closes at the café.",
                 "The café opens at seven on Wednesday mornings.",
                 "Thursday deliveries reach the café at six."]
    vec = np.asarray([[1.0, 0.0]], dtype=np.float32)
    pred = np.asarray([[0.66, 0.75], [0.3, 0.95], [0.25, 0.97]], dtype=np.float32)
    assert prediction_gaps(statement, vec, predicted, pred, OfflineThresholds()) == [None]


def test_a_missed_detail_of_a_predicted_fact_is_merged_into_that_fact():
    import numpy as np
    from nemori_ui.core.config import OfflineThresholds
    from nemori_ui.core.offline.knowledge import consolidation_rule, elaborations
    known = "Tomas swims twice a week at the lido."
    detail = "Tomas swam three kilometres at the lido on Sunday."
    other = "Ines swam three kilometres on Sunday."
    vec, pred = np.asarray([[1.0, 0.0]], np.float32), np.asarray([[0.7, 0.71]], np.float32)
    limits = OfflineThresholds()
    assert elaborations([detail], vec, [known], pred, limits) == [known]
    assert elaborations([other], vec, [known], pred, limits) == [None]      # someone else
    far = np.asarray([[0.3, 0.95]], np.float32)
    assert elaborations([detail], vec, [known], far, limits) == [None]      # not near enough
    candidates = [(_memory("sm1", "Tomas bought goggles."), 0.75), (_memory("sm2", known), 0.62)]
    action, targets, reason = consolidation_rule(detail, candidates, limits, elaborates=known)
    assert (action, targets) == ("merge", [2]) and "sm2" in reason
    assert consolidation_rule(detail, candidates, limits)[0] == "new"


def test_a_reply_names_who_the_question_before_it_asked_about():
    from nemori_ui.core.models import Message
    from nemori_ui.core.offline.knowledge import read_episodes
    messages = [Message(id="m1", speaker="Ana", text="Tariq said he'd run the stall."),
                Message(id="m2", speaker="Ben", text="Great. Is he still at the bakery?"),
                Message(id="m3", speaker="Ana", text="Yes. He's a baker at the Forum market.")]
    clauses = read_episodes([messages], PhaticClassifier(load_minilm()))[0]
    assert "Tariq is a baker at the Forum market." in [c.text for c in clauses]


def test_a_merge_never_repeats_a_sentence_the_memory_already_holds():
    from nemori_ui.core.offline.knowledge import merged_text
    said = "On Saturday Lucia took her nephews to a climbing wall."
    known = "Lucia is hooked on bouldering. " + said
    assert merged_text(said, [known]) == known
    assert merged_text(said.upper(), [known]) == known


def test_a_pronoun_inside_a_hyphenated_word_is_part_of_the_word():
    from nemori_ui.core.offline.resolve import resolve_pronouns
    assert resolve_pronouns("I keep an hour of me-time on Sundays, our us-first rule",
                            "Lucia", "Rafa") == \
        "Lucia keeps an hour of me-time on Sundays, Lucia's us-first rule"


def test_a_detail_said_of_one_person_is_never_merged_into_anothers_fact():
    import numpy as np
    from nemori_ui.core.config import OfflineThresholds
    from nemori_ui.core.offline.conflicts import same_party
    from nemori_ui.core.offline.knowledge import elaborations
    known = "Iris drinks oat milk these days, if Ben is making coffee."
    detail = "Ben switched to soy milk, oat gives Ben a stomach ache."
    vec, pred = np.asarray([[1.0, 0.0]], np.float32), np.asarray([[0.7, 0.71]], np.float32)
    assert elaborations([detail], vec, [known], pred, OfflineThresholds()) == [None]
    # a name both hold still makes one party of two statements about a thing
    assert same_party("The flat in Alfama has two bedrooms.", "Maya rents a flat in Alfama.")
    assert not same_party("The party is on Friday.", "The flat has two bedrooms.")


def test_typographic_apostrophes_are_read_as_plain_ones(classifier):
    """"I’m" with a typographic apostrophe is "I'm": never "Sam’m"."""
    from nemori_ui.core.models import Message
    from nemori_ui.core.offline.knowledge import read_episodes
    messages = [Message(id="m0001", speaker="Sam",
                        text="I’m really getting into bouldering, I’ve joined a club.")]
    said = [c.text for c in read_episodes([messages], classifier)[0] if c.is_knowledge]
    assert "Sam is really getting into bouldering." in said
    assert not any("’m" in s or "’ve" in s for s in said), said


def test_a_time_written_two_ways_is_one_time():
    assert conflict("The quiz night was moved to 8pm.", "The quiz night is booked for 8 pm.") \
        is None
    assert conflict("The quiz night was moved to 20:00.", "The quiz night is booked for 8 pm.") \
        is None
    assert "moved from 8 pm to 9pm" in conflict("The quiz night was moved to 9pm.",
                                                "The quiz night is booked for 8 pm.")


def test_how_long_something_has_lasted_is_no_count_held():
    """A partner of three years and a cat of two: two durations of two things, no conflict."""
    assert conflict("Priya has had her for two years now.",
                    "Priya and others have been together for three years.") is None
    assert conflict("Priya has three bikes.", "Priya has two bikes.") == \
        "priya: three bikes, not two"


def test_no_clause_is_cut_from_a_greeting(classifier):
    """"good to see you" keeps its "good": never the clause "To see you!"."""
    from nemori_ui.core.models import Message
    from nemori_ui.core.offline.knowledge import read_episodes
    from nemori_ui.core.offline.resolve import strip_openers
    assert strip_openers("Hey Evan, good to see you!", ["Evan"]) == "Good to see you!"
    assert strip_openers("Great, I start on Monday.", ["Evan"]) == "I start on Monday."
    messages = [Message(id="m0001", speaker="Sam", text="Hey Evan, good to see you!")]
    read = read_episodes([messages], classifier)[0]
    assert not any(c.raw.lower().startswith("to see") for c in read), [c.raw for c in read]
    assert not any(c.is_knowledge for c in read)


def test_a_we_of_two_people_with_no_one_named_is_no_statement(classifier):
    """A partner of three years and a cat of two: "we" is never "X and others"."""
    from nemori_ui.core.models import Message
    from nemori_ui.core.offline.knowledge import VAGUE_KIND, read_episodes
    ms = [Message(id="m0001", speaker="Jo", text="My partner Sam and I moved to Leeds in May."),
          Message(id="m0002", speaker="Kit", text="Oh lovely!"),
          Message(id="m0003", speaker="Jo", text="We have been together for three years now."),
          Message(id="m0004", speaker="Kit", text="And the cat?"),
          Message(id="m0005", speaker="Kit", text="Aww."),
          Message(id="m0006", speaker="Jo", text="She's great. We have been together for two "
                                                  "years, we adopted her in Bristol.")]
    read = read_episodes([ms], classifier)[0]
    said = [c.text for c in read if c.is_knowledge]
    # the speaker's message before names Sam beside her: "we" is Jo and Sam
    assert "Jo and Sam have been together for three years now." in said, said
    # of the cat, "we" names no one: a statement about two is said of no one, and dropped
    dropped = [c for c in read if c.raw.startswith("We have been together for two years")]
    assert [c.decision.kind for c in dropped] == [VAGUE_KIND]
    assert not any("and others" in s or "together for two" in s for s in said), said


def test_an_episode_with_no_fact_read_is_told_by_what_was_said_not_denied():
    """No template says "no statement of fact" over an episode in which Sam commits to the
    gym: what nothing was read from is quoted, as said."""
    from datetime import datetime

    from nemori_ui.core.models import Message
    from nemori_ui.core.offline.episodes import narrative
    at = datetime(2023, 7, 3, 18, 0)
    said = ["Hey Evan!", "Hey! How are things?",
            "Ok I'm doing it, gym from tomorrow, no excuses this time", "Haha go for it!"]
    ms = [Message(id=f"m{i}", speaker="Sam" if i % 2 == 0 else "Evan", text=t, timestamp=at)
          for i, t in enumerate(said)]
    told = narrative(ms, [])
    assert told.startswith("On Monday 3 July 2023 at 18:00, Sam and Evan chatted.")
    assert "gym from tomorrow" in told
    assert "no statement of fact" not in told and "Hey Evan" not in told
