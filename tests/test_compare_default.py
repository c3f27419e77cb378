"""Compare opens B on another run of the same conversation, says when there is none, and draws
both maps on the same axes."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from nemori_ui.core.store import open_store
from nemori_ui.core.transcripts import load_transcript
from tests.conftest import ROOT, SAMPLE
from tests.test_sweep_quality import run_small


def compare_page() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180).run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_b_is_another_run_of_the_same_conversation(isolated_home):
    store = open_store(isolated_home)
    same = run_small(store, tau=0.6)
    shown = run_small(store, tau=0.8)
    run_small(store, load_transcript(SAMPLE).conversations[0])
    at = compare_page()
    at.selectbox(key="cmp_a").set_value(shown).run()
    assert at.selectbox(key=f"cmp_b_{shown}").value == same
    assert [m.label for m in at.metric][:1] == ["Boundary precision"]
    assert not [i for i in at.info if "No other run of this conversation" in i.value]


def test_without_a_partner_it_says_so_and_shows_no_boundary_figures(isolated_home):
    store = open_store(isolated_home)
    run_small(store)
    run_small(store, load_transcript(SAMPLE).conversations[0])
    at = compare_page()
    assert [i for i in at.info if "No other run of this conversation" in i.value]
    assert not [m for m in at.metric if m.label == "Boundary precision"]
