"""The conversations a sweep can run on: every conversation a finished run holds, the bundled
sample transcripts, and those of a file added here (a LoCoMo file holds several)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import streamlit as st

from ..core.errors import InputError
from ..core.store import Store
from ..core.transcripts import load_transcript, parse_transcript
from ..core.tuning.across import SweepInput, input_from_run, input_key, stored_inputs
from .safe import md_escape
from ..core.views.wording import plural

DATA = Path(__file__).resolve().parents[1] / "data"
BUNDLED = (DATA / "sample_conversation.txt", DATA / "live_demo.txt")
ADDED = "sweep_added_inputs"        # {key: SweepInput} of files added in this session


def bundled_inputs() -> dict[str, Callable[[], SweepInput]]:
    found = {}
    for path in BUNDLED:
        transcript = load_transcript(path)
        for conv in transcript.conversations:
            found[input_key(path.name, conv.id)] = (
                lambda conv=conv, fmt=transcript.format, name=path.name:
                SweepInput(conversation=conv, source=name, fmt=fmt))
    return found


def input_choices(store: Store) -> dict[str, Callable[[], SweepInput]]:
    """Every choice by its key, read when the sweep starts: the stored ones first (their
    messages as stored win over a file of the same name), then added files, then the
    bundled samples."""
    choices: dict[str, Callable[[], SweepInput]] = {
        key: (lambda run_id=run_id: input_from_run(store, run_id))
        for key, run_id in stored_inputs(store).items()}
    for key, item in st.session_state.get(ADDED, {}).items():
        choices.setdefault(key, lambda item=item: item)
    for key, make in bundled_inputs().items():
        choices.setdefault(key, make)
    return choices


def add_file() -> None:
    """A file whose conversations become choices of the sweep form."""
    upload = st.file_uploader("Add conversations from a file (a LoCoMo file holds several)",
                              key="sweep_upload",
                              type=["json", "jsonl", "ndjson", "csv", "tsv", "txt", "md"])
    if upload is None:
        return
    try:
        transcript = parse_transcript(upload.getvalue(), source=upload.name)
    except (InputError, ValueError) as exc:
        st.error(md_escape(str(exc)))
        return
    added = st.session_state.setdefault(ADDED, {})
    for conv in transcript.conversations:
        added[input_key(upload.name, conv.id)] = SweepInput(conversation=conv, source=upload.name,
                                                            fmt=transcript.format)
    st.caption(f"{plural(len(transcript.conversations), 'conversation')} of "
               f"{md_escape(upload.name)} "
               "can be chosen below.")
