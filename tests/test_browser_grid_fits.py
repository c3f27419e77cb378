"""Tables the issue found cut, in a real browser at 1280×800: the Saved runs status column
shows "interrupted" whole, and the what-if table's evoked columns are on screen, not
scrolled out of sight. A data grid draws on a canvas, so its columns and cells are read from
the grid component itself and the text measured in the grid's own font."""

from __future__ import annotations

import re
import time

from nemori_ui.core.store import open_store, runs
from tests.browser_app import (RUN_HEADING, SHOTS, STEP_MS, app_server, need_chromium,
                               open_browser, open_home, open_nav, settle)
from tests.browser_runs import stored_run

# every grid on the page: its columns (title, left edge, width), the width it shows, the text
# of each cell, and how wide each text is in the grid's font with the cell's padding
GRIDS = """() => [...document.querySelectorAll('[data-testid="stDataFrame"] .dvn-scroller')]
  .filter(s => s.checkVisibility()).map(s => {
  let f = s[Object.keys(s).find(k => k.startsWith('__reactFiber'))];
  while (f && !(f.memoizedProps && Array.isArray(f.memoizedProps.columns)
                && f.memoizedProps.getCellContent && f.memoizedProps.theme)) f = f.return;
  const p = f.memoizedProps, t = p.theme;
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = `${t.baseFontStyle} ${t.fontFamily}`;
  let left = 0;
  const columns = p.columns.map((c, i) => {
    const cells = [];
    for (let r = 0; r < Math.min(p.rows, 50); r++) {
      const cell = p.getCellContent([i, r]);
      const text = String(cell.displayData ?? cell.data ?? '');
      cells.push({text, need: ctx.measureText(text).width + 2 * t.cellHorizontalPadding});
    }
    const col = {title: c.title, left, width: c.width, cells};
    left += c.width;
    return col;
  });
  return {columns, shown: s.clientWidth};
})"""


def grid_with(page, title: str) -> dict:
    """The first grid with a column titled `title`, waiting for it to be drawn: a click's
    rerun can still be on its way when the page last looked settled."""
    deadline = time.monotonic() + STEP_MS / 1000
    while True:
        grids = [g for g in page.evaluate(GRIDS)
                 if any(c["title"] == title for c in g["columns"])]
        if grids or time.monotonic() > deadline:
            break
        page.wait_for_timeout(250)
    assert grids, f"no table with a {title!r} column"
    return grids[0]


def test_saved_runs_status_and_whatif_columns_show_whole(tmp_path):
    need_chromium()
    home = tmp_path / "home"
    stopped = stored_run(home)
    stored_run(home)
    store = open_store(home)
    runs.set_status(store, stopped, "interrupted")
    store.close()
    with app_server(home, tmp_path / "streamlit.log") as (url, _), \
            open_browser(viewport=(1280, 800), failure_shot="grid-fits-failure.png") as page:
        open_home(page, url)
        open_nav(page, "run", RUN_HEADING)
        page.get_by_role("heading", name="Saved runs").scroll_into_view_if_needed()
        settle(page)
        page.screenshot(path=SHOTS / "grid-saved-runs-1280.png")
        status = next(c for c in grid_with(page, "status")["columns"] if c["title"] == "status")
        texts = [c["text"] for c in status["cells"]]
        assert "interrupted" in texts, texts
        cut = [c["text"] for c in status["cells"] if c["need"] > status["width"]]
        assert not cut, f"status cut in a column of {status['width']} px: {cut}"

        open_nav(page, "tuning", re.compile("Tuning"))
        page.get_by_role("tab", name="What-if τ").click()
        settle(page)
        page.get_by_text(re.compile("^Every episode")).click()
        settle(page)
        grid = grid_with(page, "evoked at this τ")
        hidden = [c["title"] for c in grid["columns"] if c["left"] + c["width"] > grid["shown"] + 1]
        page.get_by_text(re.compile("^Every episode")).scroll_into_view_if_needed()
        page.screenshot(path=SHOTS / "grid-whatif-1280.png")
        assert not {"evoked in the run", "evoked at this τ"} & set(hidden), \
            f"scrolled out of sight: {hidden} (the table shows {grid['shown']} px)"
