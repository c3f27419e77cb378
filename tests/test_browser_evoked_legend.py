"""The Prediction error page's evoked chart in a real browser: its colours, the count above it
and the caption under it say the same thing about which memories the τ rule evoked."""

from __future__ import annotations

import re

from nemori_ui.core.views.prediction import charted, evoked
from nemori_ui.core.store import open_store
from nemori_ui.core.views.run_data import load_run_data
from nemori_ui.ui.episodic_charts import CONTINUED_COLOUR, NOT_PASSED, PASSED, RECALLED_COLOUR
from tests.browser_app import (SHOTS, app_server, need_chromium, open_browser, open_home,
                               open_nav, settle, wait_for)
from tests.browser_runs import stored_run

# the sample's episode whose cue evoked memories of the episode it continues, below τ
EPISODE = "ep0005"
BARS = """() => {
  const charts = [...document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot')];
  const chart = charts.find(c => c.data && c.data[0] && c.data[0].orientation === 'h');
  const bar = chart.data[0];
  return {x: Array.from(chart._fullData[0].x, Number), colour: bar.marker.color};
}"""


def test_the_evoked_colours_count_and_caption_agree(tmp_path):
    need_chromium()
    home = tmp_path / "home"
    run_id = stored_run(home)
    store = open_store(home)
    seen = evoked(load_run_data(store, run_id), EPISODE)
    store.close()
    tau = seen.tau
    assert (seen.frame["continued"] & (seen.frame["score"] <= tau)).any(), \
        "the sample no longer has a continued memory below τ here: pick another episode"
    with app_server(home, tmp_path / "streamlit.log") as (url, _), \
            open_browser(viewport=(1280, 800), failure_shot="evoked-failure.png") as page:
        open_home(page, url)
        open_nav(page, "prediction_error", re.compile("Prediction error"))
        choice = page.get_by_role("combobox", name=re.compile("^Episode"))
        if not choice.input_value().startswith(EPISODE):
            choice.click()
            page.keyboard.type(EPISODE)
            page.keyboard.press("Enter")
            settle(page)
        assert choice.input_value().startswith(EPISODE)
        # the chart of the episode opened first may still be on the page a moment
        wait_for(lambda: len(page.evaluate(BARS)["x"]) == len(charted(seen.frame)), 30,
                 f"the chart of {EPISODE}")
        bars = page.evaluate(BARS)
        caption = page.get_by_text(re.compile(r"evoked, used for the prediction")).inner_text()
        box = page.locator('[data-testid="stMetric"]', has_text="Memories evoked")
        box.scroll_into_view_if_needed()
        page.screenshot(path=SHOTS / "evoked-legend.png")
        count = box.locator('[data-testid="stMetricValue"]').inner_text()

    pairs = list(zip(bars["x"], bars["colour"]))
    assert all(x > tau for x, c in pairs if c == PASSED), \
        f"a green bar is not above τ = {tau}: {pairs}"
    assert all(x <= tau for x, c in pairs if c != PASSED), pairs
    used = sum(c != NOT_PASSED for _, c in pairs)
    assert count == f"{used} of {len(pairs)}", (count, pairs)
    hatched = sum(c == CONTINUED_COLOUR for _, c in pairs)
    assert hatched and "episode this one continues, so already known" in caption, caption
    assert caption.startswith(f"{used} of {len(pairs)} evoked"), caption
    recalled = sum(c == RECALLED_COLOUR for _, c in pairs)
    assert f"above τ = {tau:.2f} ({used - hatched - recalled})" in caption, caption
    if recalled:
        assert f"called up by what was said ({recalled})" in caption, caption
