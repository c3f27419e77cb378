"""The HTML the app writes itself, in a real browser that prefers dark: the Evaluation page's
retrieved context with its evidence highlighted, the Prediction error page's raw messages,
prediction and insights, and Compare's word differences follow the dark theme: no pale box on
the dark page, and every text readable on what is behind it."""

from __future__ import annotations

import re

from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.eval.harness import EvalOptions, evaluate
from nemori_ui.core.store import open_store
from nemori_ui.core.transcripts import load_transcript
from tests.browser_app import (ROOT, SHOTS, app_server, need_chromium, open_browser, open_home,
                               open_nav, settle)
from tests.conftest import run_sample

SMALL = ROOT / "tests" / "fixtures" / "transcripts" / "locomo_small.json"
# For each element of the app's own HTML (inline styles in markdown and st.html): the colour
# behind it, every see-through background on the way down composed, and the contrast of its
# text with that. Chromium reports color-mix() results as color(srgb r g b / a), 0-1 each.
FRAGMENTS = """() => {
  const parse = css => {
    const n = (css.match(/[\\d.]+/g) || []).map(Number);
    const unit = css.startsWith('color(') ? 255 : 1;
    if (css.startsWith('color(')) n.shift();
    return {r: n[0] * unit, g: n[1] * unit, b: n[2] * unit, a: n.length > 3 ? n[3] : 1};
  };
  const over = (top, under) => ({r: top.r * top.a + under.r * (1 - top.a),
    g: top.g * top.a + under.g * (1 - top.a), b: top.b * top.a + under.b * (1 - top.a), a: 1});
  const lum = c => {
    const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  };
  const behind = e => {
    const chain = [];
    for (let x = e; x; x = x.parentElement) chain.push(parse(getComputedStyle(x).backgroundColor));
    return chain.reverse().reduce((under, top) => over(top, under), {r: 255, g: 255, b: 255, a: 1});
  };
  const own = '[data-testid="stMarkdownContainer"] [style], [data-testid="stHtml"] [style]';
  return [...document.querySelectorAll(own)].filter(e => e.checkVisibility()).map(e => {
    const bg = behind(e);
    const fg = over(parse(getComputedStyle(e).color), bg);
    const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
    const text = [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    return {text: e.innerText.slice(0, 60), background: lum(bg), hasText: text,
            contrast: (hi + 0.05) / (lo + 0.05)};
  });
}"""


def check_dark(page, where: str) -> int:
    found = page.evaluate(FRAGMENTS)
    pale = [f["text"] for f in found if f["background"] > 0.2]
    assert not pale, f"{where}: pale boxes on the dark page: {pale}"
    faint = [(f["text"], round(f["contrast"], 1)) for f in found
             if f["hasText"] and f["contrast"] < 4.5]
    assert not faint, f"{where}: text hard to read on its background: {faint}"
    return len(found)


def test_the_apps_own_html_follows_the_dark_theme(tmp_path):
    need_chromium()
    home = tmp_path / "home"
    store = open_store(home)
    evaluate(store, load_transcript(SMALL), PipelineConfig(), EvalOptions(variant="nemori"),
             source=str(SMALL))
    run_sample(store, variant="nemori-s")
    run_sample(store)                                  # the newest: the pages open on it
    store.close()
    with app_server(home, tmp_path / "streamlit.log") as (url, _), \
            open_browser(viewport=(1280, 800), failure_shot="dark-fragments-failure.png") as page:
        page.emulate_media(color_scheme="dark")
        open_home(page, url)

        open_nav(page, "prediction_error", re.compile("Prediction error"))
        page.get_by_text(re.compile("^learnt: became an insight")).first.wait_for()
        page.screenshot(path=SHOTS / "dark-prediction-error.png", full_page=True)
        assert check_dark(page, "Prediction error") > 10

        open_nav(page, "evaluation", re.compile("Evaluation"))
        page.get_by_role("tab", name="Questions").click()
        page.get_by_text("Retrieved context").wait_for()
        settle(page)
        context = page.get_by_text(re.compile("^Highlighted: the evidence turns"))
        context.scroll_into_view_if_needed()
        page.screenshot(path=SHOTS / "dark-evaluation-context.png")
        assert check_dark(page, "Evaluation") > 3

        open_nav(page, "compare", re.compile("Compare runs"))
        page.get_by_role("tab", name=re.compile(r"Reworded \(\d+\)")).click()
        settle(page)
        page.locator(".word-diffs .wd-added, .word-diffs .wd-removed").first.wait_for()
        page.locator(".word-diffs").scroll_into_view_if_needed()
        page.screenshot(path=SHOTS / "dark-compare-diffs.png")
        assert check_dark(page, "Compare") > 3
