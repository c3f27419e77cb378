"""The offline engine: every stage decided from embeddings and rules, no LLM.

Deterministic and fast; every decision it returns carries the reason a person can check.
"""

from .decider import OFFLINE_LABEL, OfflineDecider

__all__ = ["OFFLINE_LABEL", "OfflineDecider"]
