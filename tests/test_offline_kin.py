"""A relative the speaker names by how they are related ("my mum", "Mum", "my kids") is who a
"she" or "they" after it stands for, and the statement names them as the speaker's."""

from datetime import datetime

import pytest

from nemori_ui.core.models import Message
from nemori_ui.core.offline import kin
from nemori_ui.core.offline.knowledge import _standalone, _statement

SPEAKERS = ["Rafa", "Lucia"]


def stated(text: str, clause: str) -> str | None:
    """The statement `clause` of Rafa's message `text` makes, or None when it is dropped."""
    m = Message(id="m0001", speaker="Rafa", text=text, timestamp=datetime(2024, 5, 1, 9, 0))
    placed, _ = _standalone(clause, m, SPEAKERS)
    return _statement(placed, m, "Lucia") if placed else None


@pytest.mark.parametrize("text,clause,statement", [
    ("I need a present for my mum, she turns 60 on 2 June.", "she turns 60 on 2 June",
     "Rafa's mum turns 60 on 2 June."),
    ("My grandfather was a miner. He's been retired for twenty years.",
     "He's been retired for twenty years", "Rafa's grandfather has been retired for twenty "
                                             "years."),
    ("I'm lucky to have my husband and kids; they keep me motivated.", "they keep me motivated",
     "Rafa's husband and kids keep Rafa motivated."),
    ("My little sister just moved. Her flat is in Porto.", "Her flat is in Porto",
     "Rafa's little sister's flat is in Porto."),
    ("Mum loved the scarf!", "Mum loved the scarf", "Rafa's mum loved the scarf."),
])
def test_a_relative_named_by_kinship_is_the_speakers(text, clause, statement):
    assert stated(text, clause) == statement


@pytest.mark.parametrize("text,clause", [
    # someone else unnamed could be meant
    ("My mum met your sister, she's moving to Porto.", "she's moving to Porto"),
    # two relatives of that gender
    ("My mum and my aunt came, she stayed till midnight.", "she stayed till midnight"),
    # the wrong gender: "she" is not the brother
    ("My brother called. She says the house is sold.", "She says the house is sold"),
    # something plural after the group: the "they" may be the pancakes
    ("I made my kids pancakes, they were gone in minutes.", "they were gone in minutes"),
])
def test_a_pronoun_with_more_than_one_possible_relative_is_dropped(text, clause):
    assert stated(text, clause) is None


def test_a_relative_with_a_name_is_named_as_before():
    assert stated("My sister Ana visited, she brought cake.", "she brought cake") \
        == "Ana brought cake."


def test_a_word_that_starts_like_a_parent_is_no_parent():
    assert kin.own_kin("Madison loved it") == "Madison loved it"
    assert kin.own_kin("Mum's coming on Sunday") == "my mum's coming on Sunday"
