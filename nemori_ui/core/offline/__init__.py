"""The offline engine: every stage decided from embeddings and rules, no LLM.

Deterministic and fast; every decision it returns carries the reason a person can check. Its
entry point as a decider is `core.deciders.offline.OfflineDecider`.
"""
