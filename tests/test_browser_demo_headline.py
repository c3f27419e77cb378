"""The Prediction demo in a real browser: its headline is the number of facts told again that
prediction held, and it says in words what Nemori-s did with the same facts and what it saved."""

from __future__ import annotations

import re

from nemori_ui.core.tuning.demo import VARIANTS, demo_config
from tests.browser_app import SHOTS, app_server, need_chromium, open_browser, open_home, open_nav
from tests.browser_runs import stored_run


def test_the_demo_headline_says_where_prediction_saves(tmp_path):
    need_chromium()
    home = tmp_path / "home"
    for variant in VARIANTS:
        stored_run(home, config=demo_config(variant))
    with app_server(home, tmp_path / "streamlit.log") as (url, _), \
            open_browser(viewport=(1280, 800), failure_shot="demo-failure.png") as page:
        open_home(page, url)
        open_nav(page, "demo", re.compile("Prediction-error demo"))
        page.screenshot(path=SHOTS / "demo-headline.png")
        title = page.get_by_role("heading", name=re.compile(r"^Prediction held \d+ facts told"))
        title.wait_for()
        told = int(re.search(r"held (\d+) facts", title.inner_text()).group(1))
        why = page.get_by_text(re.compile(r"^Each was told in an earlier session")).inner_text()
        decisions = page.locator('[data-testid="stMetric"]', has_text="Consolidation decisions")
        assert decisions.count() == 1
    assert told >= 6, title
    assert re.search(rf"distilled all {told} again: ", why), why
    assert re.search(r"made \d+ fewer consolidation decisions?", why), why
    assert re.search(r"(stores \d+ memor(y|ies) fewer|end up nearly the same)", why), why
