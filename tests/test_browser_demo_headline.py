"""The Prediction demo in a real browser: its headline is the saving prediction makes (insights
and consolidation decisions) and it says in words why the memories differ by so little."""

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
        title = page.get_by_role("heading", name=re.compile(r"^Prediction kept \d+ repeated"))
        title.wait_for()
        fewer = int(re.search(r"kept (\d+)", title.inner_text()).group(1))
        why = page.get_by_text(re.compile(r"^Nemori-s distilled \d+ insights")).inner_text()
        decisions = page.locator('[data-testid="stMetric"]', has_text="Consolidation decisions")
        assert decisions.count() == 1
    distilled = [int(x) for x in re.findall(r"distilled (\d+) insights, (\d+) more than "
                                            r"Nemori's (\d+)", why)[0]]
    assert distilled[0] - distilled[2] == distilled[1] == fewer, why
    assert re.search(r"merged \d+ of them into memories it already held, \d+ changing nothing",
                     why), why
    assert re.search(r"stores only -?\d+ memor(y|ies) more", why), why
