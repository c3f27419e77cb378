"""The memory map's tools in a real browser, as Embedding Atlas and the TensorBoard projector
have them: colour by window, session, decision or speaker, a scrubber back to the memory as it
stood after a window, and a lasso whose members are listed and exported, and stay listed when
the map is drawn again with other colours or another layout."""

from __future__ import annotations

import csv
import re

from nemori_ui.core.store import open_store
from tests.browser_app import (NEXT_FRAMES, SHOTS, app_server, need_chromium, open_browser,
                               open_home, open_nav, settle, umap_shown, wait_for)
from tests.conftest import run_sample

# the map's points as drawn: per legend entry, the ids of its points
DRAWN = """() => {
  const chart = document.querySelector('[data-testid="stPlotlyChart"] .js-plotly-plot');
  const out = {};
  for (const t of chart._fullData)
    if (t.customdata) out[t.name] = Array.from(t.customdata, c => String(c[1]));
  return out;
}"""


def drawn(page) -> dict[str, list[str]]:
    return page.evaluate(DRAWN)


def changed(page, before: dict) -> dict[str, list[str]]:
    """The map once its rerun has drawn it otherwise than `before`."""
    settle(page)
    return wait_for(lambda: (now := drawn(page)) != before and now, 30, "the map redrawn")


def colour_by(page, what: str) -> dict[str, list[str]]:
    before = drawn(page)
    box = page.get_by_role("combobox", name="Colour by")
    # scrolled to from further down, the scroll's events came after the click and closed the
    # list it had opened
    box.scroll_into_view_if_needed()
    page.evaluate(NEXT_FRAMES)
    box.click()
    page.get_by_role("option", name=what, exact=True).click()
    return changed(page, before)


def listed(export) -> int:
    """How many points the selection lists, from its Export button."""
    return int(re.search(r"these (\d+)", export.inner_text()).group(1))


def lasso_everything(page) -> None:
    chart = page.locator('[data-testid="stPlotlyChart"]').first
    chart.hover()
    chart.locator('.modebar-btn[data-title="Lasso Select"]').click()
    area = chart.locator(".nsewdrag").first.bounding_box()
    inset = 4
    corners = [(area["x"] + inset, area["y"] + inset),
               (area["x"] + area["width"] - inset, area["y"] + inset),
               (area["x"] + area["width"] - inset, area["y"] + area["height"] - inset),
               (area["x"] + inset, area["y"] + area["height"] - inset)]
    page.mouse.move(*corners[0])
    page.mouse.down()
    for x, y in corners[1:] + corners[:1]:
        page.mouse.move(x, y, steps=8)
    page.mouse.up()


def test_colour_scrub_and_lasso_on_the_map(tmp_path):
    need_chromium()
    home = tmp_path / "home"
    store = open_store(home)
    run_sample(store)
    store.close()
    with app_server(home, tmp_path / "streamlit.log") as (url, _), \
            open_browser(viewport=(1280, 800), failure_shot="map-tools-failure.png") as page:
        open_home(page, url)
        open_nav(page, "memory_map", re.compile("Memory map"))
        umap_shown(page)         # the tools are tried on the layout that stays
        page.locator('[data-testid="stPlotlyChart"] .main-svg').first.wait_for()
        every = sorted(i for ids in drawn(page).values() for i in ids)
        assert len(every) > 20

        by = {what: colour_by(page, what) for what in ("window", "session", "decision", "speaker")}
        assert len(by["window"]) > 3 and all(re.fullmatch(r"window \d+", n) for n in by["window"])
        assert len(by["session"]) > 1 and all(re.fullmatch(r"session \d+|unknown", n)
                                              for n in by["session"])
        assert {"episode", "new"} <= set(by["decision"]), by["decision"].keys()
        assert {"Maya", "Jonas"} <= set(by["speaker"]), by["speaker"].keys()
        for groups in by.values():       # each colouring draws every point once
            assert sorted(i for ids in groups.values() for i in ids) == every

        # the scrubber: back to the memory as it stood after the first window
        colour_by(page, "window")
        scrub = page.locator('[data-testid="stSlider"]', has_text="As the memory stood")
        scrub.get_by_role("slider").focus()
        page.keyboard.press("Home")
        early = changed(page, by["window"])
        assert list(early) == ["window 1"], list(early)
        assert 0 < len(early["window 1"]) < len(every)
        page.screenshot(path=SHOTS / "map-scrubbed-1280.png")
        page.keyboard.press("End")
        assert sorted(i for ids in changed(page, early).values() for i in ids) == every

        # the lasso round the whole plot: every point is listed, and exported
        export = page.get_by_role("button", name=re.compile(r"^Export these \d+ \(CSV\)"))
        lasso_everything(page)
        export.wait_for()
        settle(page)
        # a double click on the chart clears its selection, and nothing is kept of it
        area = page.locator('[data-testid="stPlotlyChart"] .nsewdrag').first.bounding_box()
        page.mouse.dblclick(area["x"] + area["width"] / 2, area["y"] + area["height"] / 2)
        page.get_by_text(re.compile(r"^Nothing selected")).wait_for()
        settle(page)
        assert export.count() == 0
        lasso_everything(page)
        export.wait_for()
        settle(page)
        count = listed(export)
        assert count == len(every), (count, len(every))
        assert page.get_by_text("Nothing selected").count() == 0
        page.get_by_text("Selection", exact=True).scroll_into_view_if_needed()
        page.screenshot(path=SHOTS / "map-lasso-1280.png")
        with page.expect_download() as download:
            export.click()
        with open(download.value.path(), newline="") as f:
            rows = list(csv.reader(f))
        assert rows[0][:2] == ["id", "kind"]
        assert sorted(r[0] for r in rows[1:]) == every

        # the selection outlives a redraw of the same points: another colouring, then PCA
        colour_by(page, "speaker")
        kept = page.get_by_text(re.compile(r"^Kept from before the map was redrawn"))
        kept.wait_for()
        settle(page)
        assert listed(export) == len(every)
        page.get_by_text("PCA (instant)", exact=True).click()
        page.get_by_text(re.compile(r"^Layout shown: PCA")).wait_for()
        settle(page)
        assert kept.count() == 1
        kept.scroll_into_view_if_needed()
        page.screenshot(path=SHOTS / "map-selection-kept-1280.png")
        assert listed(export) == len(every)
        # back on the drawing it was made on, drawn anew with nothing selected: still kept
        page.get_by_text("UMAP", exact=True).click()
        page.get_by_text(re.compile(r"^Layout shown: UMAP")).wait_for()
        colour_by(page, "window")
        assert kept.count() == 1
        assert listed(export) == len(every)
        page.get_by_role("button", name="Clear", exact=True).click()
        page.get_by_text(re.compile(r"^Nothing selected")).wait_for()
        settle(page)
        assert kept.count() == 0 and export.count() == 0
        page.set_viewport_size({"width": 1920, "height": 1080})
        settle(page)
        page.screenshot(path=SHOTS / "map-1920.png")
