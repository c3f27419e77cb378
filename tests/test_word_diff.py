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
