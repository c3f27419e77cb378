"""The memory map never waits for UMAP: it shows PCA at once, computes UMAP on the server's
background worker, and shows UMAP once it is ready."""

from __future__ import annotations

import threading

from nemori_ui.ui.map_widgets import _projector
from tests.test_app_knowledge import open_page, sample_home, with_sample  # noqa: F401


def shown_layout(at) -> str:
    return next(c.value for c in at.caption if c.value.startswith("Layout shown"))


def test_pca_first_then_umap_without_waiting(with_sample):  # noqa: F811
    gate = threading.Event()
    busy = _projector().submit(gate.wait, 120)      # the worker is busy: UMAP must queue
    try:
        at = open_page("memory_map")
        assert at.radio(key="map_method").value == "umap"
        assert shown_layout(at).startswith("Layout shown: **PCA**")
        assert "computed in the background" in shown_layout(at)
        assert len(at.get("plotly_chart")) == 1, "the map is drawn meanwhile"
    finally:
        gate.set()
    busy.result(120)
    _projector().submit(int).result(300)   # everything queued before it is done
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert shown_layout(at) == "Layout shown: **UMAP**."
