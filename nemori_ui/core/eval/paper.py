"""The paper's published figures (arXiv 2508.03341), transcribed from its tables, so results
can be shown beside the numbers they reproduce.

LoCoMo figures are (LLM-judge, F1, BLEU-1) on the 0-100 scale, keyed by our category numbers
(the paper names its columns; LoCoMo's categories are 1 multi-hop, 2 temporal, 3 open-domain,
4 single-hop) and "overall" for its Average column. Table 2 holds the main rows; Table 10 the
ablations by category (its overall column is Table 5); Table 13 the index / retrieve strategies
(Table 6, gpt-4.1-mini only). Table 4 is response-time efficiency with gpt-4o-mini and Table 8
LongMemEval_S judge scores by question type.
"""

from __future__ import annotations

MODELS = ("gpt-4o-mini", "gpt-4.1-mini")
_COLUMNS = ("2", "3", "1", "4", "overall")   # the paper's order: temporal, open, multi, single


def _row(text: str) -> dict[str, tuple[float, float, float]]:
    values = [float(v) for v in text.split()]
    assert len(values) == 15, text
    return {col: tuple(values[3 * i:3 * i + 3]) for i, col in enumerate(_COLUMNS)}


LOCOMO: dict[tuple[str, str], dict[str, tuple[float, float, float]]] = {
    # Table 2
    ("gpt-4.1-mini", "Full Context"): _row("74.2 47.5 40.0 56.6 28.4 22.2 77.2 44.2 33.7 "
                                           "86.9 61.4 53.4 80.6 53.3 45.0"),
    ("gpt-4.1-mini", "RAG-4096"): _row("27.4 22.3 19.1 28.8 17.9 13.9 31.7 20.1 12.8 "
                                       "35.9 25.8 22.0 32.9 23.5 19.2"),
    ("gpt-4.1-mini", "Nemori"): _row("77.3 58.7 50.7 56.3 31.7 25.1 74.8 40.8 31.7 "
                                     "87.0 55.7 49.5 80.8 52.1 45.0"),
    ("gpt-4o-mini", "Full Context"): _row("56.2 44.1 36.1 48.6 24.5 17.2 66.8 35.4 26.1 "
                                          "83.0 53.1 44.7 72.3 46.2 37.8"),
    ("gpt-4o-mini", "RAG-4096"): _row("23.7 19.5 15.7 32.6 19.0 13.5 31.3 18.6 11.7 "
                                      "32.0 22.2 18.6 30.2 20.8 16.4"),
    ("gpt-4o-mini", "Nemori"): _row("67.6 57.3 47.6 45.8 23.9 18.5 61.7 38.1 26.0 "
                                    "81.9 54.8 43.8 73.0 50.3 39.7"),
    # Table 10 (management on unless the row says naive)
    ("gpt-4o-mini", "Nemori-s"): _row("33.3 36.8 31.1 49.0 24.4 18.6 47.9 30.5 20.2 "
                                      "60.3 39.7 32.1 51.7 36.4 28.9"),
    ("gpt-4o-mini", "Nemori-s, naive"): _row("32.7 35.9 30.4 40.6 21.8 17.0 47.5 31.3 20.7 "
                                             "62.1 40.3 32.7 52.0 36.6 29.1"),
    ("gpt-4o-mini", "w/o e"): _row("57.9 53.0 44.6 53.1 26.5 19.6 57.8 35.5 24.4 "
                                   "70.8 49.4 40.4 64.6 46.2 37.1"),
    ("gpt-4o-mini", "w/o e, naive"): _row("56.7 52.8 44.8 54.2 27.8 20.6 59.9 36.5 24.8 "
                                          "71.1 48.9 39.8 65.0 46.2 36.9"),
    ("gpt-4o-mini", "w/o s"): _row("32.7 38.9 33.0 42.7 22.2 17.0 53.9 33.0 22.2 "
                                   "64.7 44.1 36.1 54.7 39.6 31.7"),
    ("gpt-4o-mini", "w/o p"): _row("56.7 52.7 43.4 45.8 25.0 19.3 59.9 36.3 23.5 "
                                   "77.5 51.7 40.7 68.0 47.4 36.8"),
    ("gpt-4.1-mini", "Nemori-s"): _row("46.4 42.2 33.7 49.0 26.5 20.7 67.4 36.2 28.8 "
                                       "74.9 44.5 39.0 66.0 41.4 34.9"),
    ("gpt-4.1-mini", "Nemori-s, naive"): _row("47.0 42.5 32.5 50.0 28.5 22.7 70.6 38.9 29.9 "
                                              "72.7 42.8 37.4 65.5 41.1 34.1"),
    ("gpt-4.1-mini", "w/o e"): _row("63.2 49.6 41.1 52.1 27.2 21.2 72.7 38.9 29.1 "
                                    "82.4 53.2 47.0 74.7 48.2 40.9"),
    ("gpt-4.1-mini", "w/o e, naive"): _row("65.4 51.0 42.5 56.3 29.1 23.0 70.2 39.0 29.5 "
                                           "82.2 52.2 45.8 74.9 48.1 40.7"),
    ("gpt-4.1-mini", "w/o s"): _row("73.5 54.3 46.9 55.2 26.9 21.3 73.1 41.9 32.5 "
                                    "81.9 53.7 47.3 76.9 50.0 42.9"),
    ("gpt-4.1-mini", "w/o p"): _row("67.3 53.4 45.0 52.1 24.7 19.5 71.3 40.1 30.7 "
                                    "83.1 51.4 45.2 75.7 48.1 40.9"),
    # Table 13: index → retrieve, without semantic memory
    ("gpt-4.1-mini", "N→N"): _row("72.9 55.7 48.3 55.2 26.0 20.4 72.3 41.8 32.8 "
                                  "82.3 53.3 47.1 76.9 50.0 42.9"),
    ("gpt-4.1-mini", "P→N"): _row("71.7 56.5 49.0 47.9 24.0 19.6 72.3 40.5 30.8 "
                                  "82.8 55.0 48.7 76.4 50.7 43.7"),
    ("gpt-4.1-mini", "N→P"): _row("73.8 43.4 35.8 55.2 27.3 21.5 72.0 43.2 32.4 "
                                  "82.4 57.8 51.0 77.0 50.2 42.6"),
    ("gpt-4.1-mini", "P→P"): _row("69.5 42.5 35.2 51.0 22.6 18.2 67.0 40.2 30.5 "
                                  "83.0 59.4 52.4 75.3 50.1 42.7"),
}

TABLE_OF = {"Full Context": "Table 2", "RAG-4096": "Table 2", "Nemori": "Table 2",
            "N→N": "Table 13", "P→N": "Table 13", "N→P": "Table 13", "P→P": "Table 13"}

# Table 4, gpt-4o-mini: judge score, context tokens, search ms (None: no search), total ms
RESPONSE_TIME = {"Full Context": (72.3, 23653, None, 5806), "RAG-4096": (30.2, 3430, 544, 2884),
                 "Nemori": (73.0, 2745, 787, 3053)}

# Table 8: LongMemEval_S judge scores, (Full-context, Nemori)
LONGMEMEVAL: dict[str, dict[str, tuple[float, float]]] = {
    "gpt-4o-mini": {"single-session-preference": (6.7, 46.7),
                    "single-session-assistant": (89.3, 83.9),
                    "temporal-reasoning": (42.1, 61.7), "multi-session": (38.3, 51.1),
                    "knowledge-update": (78.2, 61.5), "single-session-user": (78.6, 88.6),
                    "overall": (55.0, 64.2)},
    "gpt-4.1-mini": {"single-session-preference": (16.7, 86.7),
                     "single-session-assistant": (98.2, 92.9),
                     "temporal-reasoning": (60.2, 72.2), "multi-session": (51.1, 55.6),
                     "knowledge-update": (76.9, 79.5), "single-session-user": (85.7, 90.0),
                     "overall": (65.6, 74.6)},
}


def paper_model(model: str | None) -> str | None:
    """The paper model a configured model name is (dated snapshots included), if any."""
    if not model:
        return None
    name = model.lower().split("/")[-1]
    return next((m for m in MODELS if name == m or name.startswith(m + "-")), None)


def locomo_row(model: str, row: str | None) -> dict[str, dict[str, float]] | None:
    """{category or "overall": {"judge", "f1", "bleu1"}} for one paper row, or None."""
    figures = LOCOMO.get((model, row or ""))
    if figures is None:
        return None
    return {col: {"judge": j, "f1": f, "bleu1": b} for col, (j, f, b) in figures.items()}


def table_of(row: str) -> str:
    return TABLE_OF.get(row, "Table 10")


def longmemeval_figures(model: str, system: str) -> dict[str, float] | None:
    """Judge score by question type for "Full Context" or "Nemori"."""
    table = LONGMEMEVAL.get(model)
    if table is None or system not in ("Full Context", "Nemori"):
        return None
    pick = 0 if system == "Full Context" else 1
    return {qtype: pair[pick] for qtype, pair in table.items()}
