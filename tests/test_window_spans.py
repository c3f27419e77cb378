"""The window arithmetic an add reads: counts and the buffer's start from the cuts alone, and
windows listed from the end of a known one, agree with listing every window."""

from hypothesis import given, strategies as st

from nemori_ui.core.window_spans import (closed_end, pending_count, tail_processed, window_count,
                                          window_spans)

runs = st.integers(0, 90).flatmap(lambda n: st.tuples(
    st.just(n), st.integers(1, 12), st.lists(st.integers(0, n + 2), max_size=5)))


@given(runs, st.booleans())
def test_window_count_is_the_number_of_windows(run, flush):
    n, w, cuts = run
    assert window_count(n, w, cuts, flush=flush) == len(window_spans(n, w, cuts, flush=flush))


@given(runs)
def test_the_buffer_starts_where_the_last_closed_window_ends(run):
    n, w, cuts = run
    spans = window_spans(n, w, cuts, flush=False)
    assert closed_end(n, w, cuts) == (spans[-1][1] if spans else 0)
    assert pending_count(n, w, cuts) == n - closed_end(n, w, cuts)


@given(runs, st.data())
def test_windows_after_a_known_one_extend_the_list(run, data):
    n, w, cuts = run
    spans = window_spans(n, w, cuts, flush=False)
    k = data.draw(st.integers(0, len(spans)))
    end = spans[k - 1][1] if k else 0
    assert spans[:k] + window_spans(n, w, cuts, flush=False, start=end) == spans


def test_a_cut_closes_a_short_window_and_the_tail_waits():
    assert window_spans(25, 10, [13], flush=False) == [(0, 10), (10, 13), (13, 23)]
    assert (window_count(25, 10, [13]), closed_end(25, 10, [13])) == (3, 23)
    assert window_count(25, 10, [13], flush=True) == 4


def test_a_processed_short_tail_stays_closed():
    # 25 messages, w = 10: windows 0-10 and 10-20 closed, 5 in the buffer
    assert not tail_processed(25, 10, [], windows_done=2)     # the buffer still fills
    assert tail_processed(25, 10, [], windows_done=3)         # a finished run took it
    assert not tail_processed(20, 10, [], windows_done=2)     # no short tail at all
