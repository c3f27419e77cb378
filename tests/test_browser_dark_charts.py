"""The charts' own marks follow the theme: in a browser that prefers dark, the Partitions
ribbon's cuts and window edges and the Prediction error chart's chosen bar are drawn in a light
ink, in one that prefers light in a dark one, so they read on the page behind them."""

from __future__ import annotations

import re

import pytest

from tests.browser_app import SHOTS, app_server, need_chromium, open_browser, open_home, open_nav
from tests.browser_runs import stored_run

# The contrast of each mark's colour with the page's background, for the marks the app colours
# itself: scatter points and lines (cuts, window edges) and outlined bars (the chosen episode).
MARKS = """(sel) => {
  const rgb = css => (css.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const page = lum(rgb(getComputedStyle(document.querySelector('[data-testid="stApp"]'))
                       .backgroundColor));
  const contrast = css => {
    const [hi, lo] = [lum(rgb(css)), page].sort((a, b) => b - a);
    return (hi + 0.05) / (lo + 0.05);
  };
  const out = [];
  for (const e of document.querySelectorAll(sel)) {
    const s = getComputedStyle(e);
    const [what, colour, opacity] = e.classList.contains('js-line') || parseFloat(s.strokeWidth) >= 2
      ? ['stroke', s.stroke, s.strokeOpacity] : ['fill', s.fill, s.fillOpacity];
    // plotly draws a transparent colour as its rgb with opacity 0: not a mark
    if (!colour || colour === 'none' || parseFloat(opacity) === 0) continue;
    out.push({what, colour, contrast: contrast(colour)});
  }
  return out;
}"""
RIBBON = ('[data-testid="stPlotlyChart"] .scatterlayer path.point, '
          '[data-testid="stPlotlyChart"] .scatterlayer path.js-line')
CHOSEN_BAR = '[data-testid="stPlotlyChart"] .barlayer path[style*="stroke-width: 3"]'


def marks(page, selector: str, where: str) -> list[dict]:
    page.locator(selector).first.wait_for(state="attached")
    found = page.evaluate(MARKS, selector)
    assert found, f"{where}: no marks"
    faint = [f for f in found if f["contrast"] < 3]
    assert not faint, f"{where}: marks hard to see on the page: {faint[:5]}"
    return found


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_chart_marks_follow_the_theme(tmp_path, scheme):
    need_chromium()
    home = tmp_path / "home"
    stored_run(home)
    with app_server(home, tmp_path / "streamlit.log") as (url, _), \
            open_browser(viewport=(1280, 800), failure_shot=f"charts-{scheme}-failure.png") \
            as page:
        page.emulate_media(color_scheme=scheme)
        open_home(page, url)
        open_nav(page, "partitions", re.compile("Partitions"))
        found = marks(page, RIBBON, "Partitions")
        assert {f["what"] for f in found} == {"fill", "stroke"}    # cut markers and lines
        page.screenshot(path=SHOTS / f"charts-partitions-{scheme}.png")
        open_nav(page, "prediction_error", re.compile("Prediction error"))
        marks(page, CHOSEN_BAR, "Prediction error")
        page.screenshot(path=SHOTS / f"charts-prediction-error-{scheme}.png")
