"""Text the issue found cut short, in a real browser at 1280×800: the demo's button to the
Prediction error page, the Evaluation page's variant chips and the what-if chart's axis title
each show whole."""

from __future__ import annotations

import re

from nemori_ui.core.tuning.demo import VARIANTS, demo_config
from tests.browser_app import (ROOT, SHOTS, app_server, need_chromium, open_browser, open_home,
                               open_nav, settle)
from tests.browser_runs import stored_run

CUT = """e => {
  const cut = x => x.scrollWidth > x.clientWidth + 1;
  return [e, ...e.querySelectorAll('*')].some(cut);
}"""
AXIS_FITS = """chart => {
  const svg = chart.querySelector('.main-svg').getBoundingClientRect();
  const t = chart.querySelector('.g-xtitle text').getBoundingClientRect();
  return t.left >= svg.left - 1 && t.right <= svg.right + 1 && t.width > 0;
}"""


def test_no_label_is_cut_short(tmp_path):
    need_chromium()
    home = tmp_path / "home"
    for variant in reversed(VARIANTS):      # Nemori last: the run the pages open on
        stored_run(home, config=demo_config(variant))
    with app_server(home, tmp_path / "streamlit.log") as (url, _), \
            open_browser(viewport=(1280, 800), failure_shot="text-fits-failure.png") as page:
        open_home(page, url)
        open_nav(page, "demo", re.compile("Prediction-error demo"))
        button = page.get_by_role("button", name=re.compile("episode on (the )?Prediction error"))
        button.scroll_into_view_if_needed()
        page.screenshot(path=SHOTS / "fits-demo.png")
        assert not button.evaluate(CUT), f"cut: {button.inner_text()!r}"

        open_nav(page, "evaluation", re.compile("Evaluation"))
        page.locator('[data-testid="stFileUploader"] input[type=file]').set_input_files(
            ROOT / "tests" / "fixtures" / "transcripts" / "locomo_small.json")
        page.get_by_role("combobox", name=re.compile("Variants")).wait_for()
        settle(page)
        box = page.get_by_role("combobox", name=re.compile("Variants"))
        for name in ("RAG-4096", "Full Context", "w/o e, naive"):
            box.click()
            page.get_by_role("option", name=name, exact=True).click()
            settle(page)
        page.keyboard.press("Escape")
        chips = page.locator('[data-testid="stMultiSelect"]', has_text="Variants")
        chips.scroll_into_view_if_needed()
        page.screenshot(path=SHOTS / "fits-eval.png")
        assert all(name in chips.inner_text() for name in ("Nemori", "RAG-4096", "Full Context",
                                                         "w/o e, naive"))
        assert not chips.evaluate(CUT), f"variant chips cut: {chips.inner_text()!r}"

        open_nav(page, "tuning", re.compile("Tuning"))
        page.get_by_role("tab", name="What-if τ").click()
        settle(page)
        chart = page.locator('[data-testid="stPlotlyChart"]').filter(
            has=page.locator(".g-xtitle"), visible=True).last
        chart.scroll_into_view_if_needed()
        settle(page)
        page.screenshot(path=SHOTS / "fits-whatif.png")
        assert chart.evaluate(AXIS_FITS), "the what-if axis title is cut"
