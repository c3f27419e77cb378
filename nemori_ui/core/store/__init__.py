"""The run store: one SQLite database per home folder, shared safely between processes."""

from .db import Store, default_home, open_store

__all__ = ["Store", "default_home", "open_store"]
