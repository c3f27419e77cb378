"""Tables say what a person needs: gaps in days and hours, no column that is always true, no
internal index or repeated kind, and the offline engine's runs no counter of zeros."""

from __future__ import annotations

import re

import pandas as pd
from streamlit.testing.v1 import AppTest

from nemori_ui.core.store import open_store
from nemori_ui.ui.readable import duration, readable_gaps, without_constant
from tests.conftest import ROOT, run_sample


def test_gaps_read_in_days_hours_and_minutes():
    assert readable_gaps("time gap of 849.2 h") == "time gap of 35 d 9 h"
    assert readable_gaps("session change; time gap of 24.0 h") == "session change; time gap of 1 d"
    assert duration(5.5) == "5 h 30 min" and duration(0.25) == "15 min"
    assert readable_gaps("topic: hiking") == "topic: hiking"


def test_a_column_that_always_says_the_same_is_left_out():
    frame = pd.DataFrame({"contiguous": [True, True], "reason": ["a", "b"]})
    assert list(without_constant(frame, "contiguous")) == ["reason"]
    mixed = frame.assign(contiguous=[True, False])
    assert list(without_constant(mixed, "contiguous")) == ["contiguous", "reason"]


def page(name: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page(f"pages/{name}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_partitions_and_episodes_tables_show_no_internals(isolated_home):
    run_sample(open_store(isolated_home))
    at = page("partitions")
    cuts = next(d.value for d in at.dataframe if "reason" in d.value and "starts at" in d.value)
    assert "contiguous" not in cuts, "always true after repair: no column for it"
    hours = [r for r in cuts["reason"] if re.search(r"\d+\.\d h\b", str(r))]
    assert not hours, hours
    at = page("episodes")
    table = next(d.value for d in at.dataframe if "new episode" in d.value)
    assert "choice" not in table
    assert pd.api.types.is_float_dtype(table["best score"]), "no 'None' for a missing score"
