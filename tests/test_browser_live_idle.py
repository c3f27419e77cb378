"""The Live panel in a real browser while nothing feeds it: not one of its elements is redrawn
(faded and drawn again) while nothing changes, and a message another process adds, as an
agent using the Python API does, still shows within a few seconds."""

from __future__ import annotations

import re

from nemori_ui.core.models import Message
from nemori_ui.core.pipeline.append import add_messages, renumber
from nemori_ui.core.store import open_store, records
from nemori_ui.core.store.runs import list_runs
from tests.browser_app import SHOTS, app_server, open_browser, settle, wait_for
from tests.test_browser_live import metric
from tests.test_browser_live_presenting import open_live_demo, stored_messages

QUIET_MS = 8_000      # more than two of the old 3 s refreshes
# every change under the page's main part from now on: an element faded as stale, replaced
WATCH = """() => { window.changes = [];
  new MutationObserver(ms => ms.forEach(m => window.changes.push(
      m.type + ' ' + (m.attributeName || '') + ' ' + (m.target.getAttribute
        && m.target.getAttribute('data-testid') || m.target.nodeName))))
    .observe(document.querySelector('[data-testid="stMain"]'),
             {subtree: true, childList: true, attributes: true, characterData: true}); }"""


def test_an_idle_panel_is_left_alone_until_something_changes(tmp_path):
    home, log = tmp_path / "home", tmp_path / "streamlit.log"
    with app_server(home, log) as (url, _), \
            open_browser(viewport=(1280, 800), failure_shot="live-idle.png") as page:
        open_live_demo(page, url)
        step = page.get_by_role("button", name="Step", exact=True)
        for n in (1, 2, 3):
            step.click()
            page.get_by_text(f"live_demo.txt: {n} of 30 messages added", exact=False).wait_for()
            settle(page)
        wait_for(lambda: metric(page, "Messages") == "3", 30, "three messages shown")
        page.wait_for_timeout(1_500)
        page.evaluate(WATCH)
        page.wait_for_timeout(QUIET_MS)
        changes = page.evaluate("window.changes")
        assert not changes, f"the idle panel was redrawn: {changes[:6]} ({len(changes)} changes)"

        # an agent adds a message to the same memory from another process
        store = open_store(home)
        try:
            [run_id] = [r.id for r in list_runs(store) if r.name.startswith("live demo")]
            last = records.load_messages(store, run_id)[-1]
            typed = Message(id="x", speaker=last.speaker, text="I booked the train to Porto.",
                            timestamp=last.timestamp)
            add_messages(store, run_id, renumber([typed], first_idx=3), source="api")
        finally:
            store.close()
        wait_for(lambda: metric(page, "Messages") == "4", 15,
                 "the message added elsewhere shows on the idle page")
        page.get_by_text(re.compile("I booked the train to Porto")).first.wait_for()
        page.screenshot(path=SHOTS / "live-idle-added.png")
    assert [len(m) for m in stored_messages(home)] == [4]

