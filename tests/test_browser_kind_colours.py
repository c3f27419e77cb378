"""Episodes and memories look the same on every map, in a real browser: the Memory map,
Memory over time and Compare draw each kind in one colour and symbol."""

from __future__ import annotations

import re

from nemori_ui.core.config import PipelineConfig
from tests.browser_app import app_server, need_chromium, open_browser, open_home, open_nav
from tests.browser_runs import stored_run

KINDS = """() => {
  const out = {};
  for (const chart of document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot')) {
    for (const t of chart._fullData || []) {
      if (t.name !== 'episode' && t.name !== 'memory') continue;
      const c = Array.isArray(t.marker.color) ? t.marker.color[0] : t.marker.color;
      const s = Array.isArray(t.marker.symbol) ? t.marker.symbol[0] : t.marker.symbol;
      out[t.name] = String(c).toLowerCase() + ' ' + s;
    }
  }
  return out;
}"""


def test_each_kind_keeps_its_look_across_pages(tmp_path):
    need_chromium()
    home = tmp_path / "home"
    stored_run(home, config=PipelineConfig(tau=0.65))     # Compare's other run
    stored_run(home)
    looks = {}
    with app_server(home, tmp_path / "streamlit.log") as (url, _), \
            open_browser(viewport=(1280, 800), failure_shot="kind-colours-failure.png") as page:
        open_home(page, url)
        for stem, title in (("memory_map", "Memory map"), ("timeline", "Memory over time"),
                            ("compare", "Compare runs")):
            open_nav(page, stem, re.compile(title))
            looks[stem] = page.evaluate(KINDS)
    assert set(looks["memory_map"]) == {"episode", "memory"}, looks
    assert looks["timeline"] == looks["memory_map"], looks
    assert looks["compare"] == looks["memory_map"], looks
