"""The memory map never waits for UMAP: it shows PCA at once, computes UMAP on the server's
background worker, and shows UMAP once it is ready."""

from __future__ import annotations

import time
from pathlib import Path

from nemori_ui.ui.map_widgets import _projector
from tests.test_app_knowledge import open_page, sample_home, with_sample  # noqa: F401


def wait_for_file(path: str, seconds: float) -> None:
    """Runs in the projection process: busy until the test creates `path`."""
    deadline = time.monotonic() + seconds
    while not Path(path).exists() and time.monotonic() < deadline:
        time.sleep(0.05)


def shown_layout(at) -> str:
    return next(c.value for c in at.caption if c.value.startswith("Layout shown"))


def test_pca_first_then_umap_without_waiting(with_sample, tmp_path):  # noqa: F811
    gate = tmp_path / "gate"
    busy = _projector().submit(wait_for_file, str(gate), 120)  # busy: UMAP must queue
    try:
        at = open_page("memory_map")
        assert at.radio(key="map_method").value == "umap"
        assert shown_layout(at).startswith("Layout shown: **PCA**")
        assert "computed in the background" in shown_layout(at)
        assert len(at.get("plotly_chart")) == 1, "the map is drawn meanwhile"
    finally:
        gate.touch()
    busy.result(120)
    _projector().submit(int).result(300)   # everything queued before it is done
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert shown_layout(at) == "Layout shown: **UMAP**."


def test_a_sessions_first_page_loads_the_chart_code_once(isolated_home):
    """The browser fetches the charting code with the first chart it meets: the first page of
    a session holds a blank one, so the memory map's first visit does not wait for the code."""
    from streamlit.testing.v1 import AppTest

    from tests.conftest import ROOT
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.sidebar.get("plotly_chart")) == 1
    at.run()
    assert not at.sidebar.get("plotly_chart"), "drawn on the first page only"
