"""One run's data for the pages: loaded by the store (store/run_data.py), read here by the
views beside the rest of what they show."""

from __future__ import annotations

from ..store.run_data import RunData, derived, load_run_data

__all__ = ["RunData", "derived", "load_run_data"]
