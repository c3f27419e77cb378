"""Word-level diffs of memories that differ."""

from nemori_ui.core.word_diff import word_diff


def test_a_reworded_memory_shows_the_words_added_and_dropped():
    pieces = word_diff("Maya works at Finch Labs in Porto.", "Maya works at Corvo in Porto now.")
    said = [(p.kind, p.text.strip()) for p in pieces]
    assert said == [("same", "Maya works at"), ("removed", "Finch Labs"), ("added", "Corvo"),
                    ("same", "in"), ("removed", "Porto."), ("added", "Porto now.")]
    assert "".join(p.text for p in pieces if p.kind != "removed") == \
        "Maya works at Corvo in Porto now."


def test_the_same_text_is_one_piece_and_an_empty_side_is_all_added_or_removed():
    assert [(p.kind, p.text) for p in word_diff("Ana has a dog.", " Ana  has a dog. ")] == [
        ("same", "Ana  has a dog.")]
    assert [p.kind for p in word_diff("", "Ana has a dog.")] == ["added"]
    assert [p.kind for p in word_diff("Ana has a dog.", "")] == ["removed"]


def test_the_last_word_of_either_text_stays_apart_from_the_piece_after_it():
    pieces = word_diff("Maya runs on Sundays. Her long run was 12 km.", "Maya runs on Sundays.")
    assert "".join(p.text for p in pieces) == "Maya runs on Sundays. Her long run was 12 km."
    pieces = word_diff("Maya cycles along the river.", "Maya cycles along the river every day.")
    assert [(p.kind, p.text) for p in pieces[-2:]] == [("removed", "river. "),
                                                       ("added", "river every day.")]
