"""The sidebar's run picker in a real browser at 1280×800: runs with long names, as a sweep
across conversations names its points, are read whole before choosing one."""

from __future__ import annotations

from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.store import open_store, runs
from tests.browser_app import SHOTS, app_server, need_chromium, open_browser, open_home, settle
from tests.browser_runs import stored_run

NAMES = ["tau sweep across conv-26 and conv-30 · τ=0.55 · w=20",
         "tau sweep across conv-26 and conv-30 · τ=0.62 · w=20"]
# cut at either edge: wider or taller than the box that shows it
CUT = """e => [e, ...e.querySelectorAll('*')].some(x => x.scrollWidth > x.clientWidth + 1
                                                 || x.scrollHeight > x.clientHeight + 1)"""


def test_long_run_names_are_read_whole_in_the_picker(tmp_path):
    need_chromium()
    home = tmp_path / "home"
    ids = [stored_run(home, config=PipelineConfig(tau=t)) for t in (0.55, 0.62)]
    store = open_store(home)
    for run_id, name in zip(ids, NAMES):
        runs.rename_run(store, run_id, name)
    store.close()
    with app_server(home, tmp_path / "streamlit.log") as (url, _), \
            open_browser(viewport=(1280, 800), failure_shot="run-picker-failure.png") as page:
        open_home(page, url)
        sidebar = page.locator('[data-testid="stSidebar"]')
        picker = sidebar.get_by_role("combobox", name="Run")
        picker.scroll_into_view_if_needed()
        # the run shown: its whole name under the picker, and in the picker's help
        sidebar.get_by_text(NAMES[1], exact=True).wait_for(state="visible", timeout=30_000)
        picker.click()
        options = page.get_by_role("option")
        options.first.wait_for()
        page.screenshot(path=SHOTS / "run-picker-open.png")
        assert options.count() == 2
        for option, name, run_id in zip(options.all(), reversed(NAMES), reversed(ids)):
            text = option.inner_text()
            assert name in text and run_id in text, text
            assert not option.evaluate(CUT), f"option cut short: {text!r}"
            box, item = page.get_by_role("listbox").bounding_box(), option.bounding_box()
            assert item["x"] + item["width"] <= box["x"] + box["width"] + 1
        first, second = (o.bounding_box() for o in options.all())
        assert first["y"] + first["height"] <= second["y"] + 1, "options overlap"
        options.nth(1).click()
        settle(page)
        # under load the rerun that writes the chosen run's name may come after settling
        sidebar.get_by_text(NAMES[0], exact=True).wait_for(state="visible", timeout=30_000)
        # the rerun may show the stale picker beside the new one for a moment
        page.wait_for_function(
            "id => { const p = [...document.querySelectorAll("
            "'[data-testid=\"stSidebar\"] input[aria-label=\"Run\"]')];"
            " return p.length === 1 && p[0].value.endsWith(id); }", arg=ids[0], timeout=30_000)
