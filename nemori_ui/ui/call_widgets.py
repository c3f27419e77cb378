"""One LLM call shown in full, as the Calls and cost page and the Trace page show it."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from nemori_ui.core.views import calls as views
from nemori_ui.ui.safe import md_escape
from ..core.views.wording import plural


def call_detail(calls) -> None:
    by_id = {c.id: c for c in calls}
    call_id = st.selectbox("Call", list(by_id), key="call_id",
                           format_func=lambda i: f"{i} · {by_id[i].prompt_name} · "
                                                 f"{by_id[i].status}"
                                                 + (" · cached" if by_id[i].cached else ""))
    call_view(by_id[call_id])


def call_view(c, key: str = "call") -> None:
    """One call in full: where it went, what it cost, every message sent and the reply."""
    served = f" (the server says {md_escape(c.served_model)})" \
        if c.served_model and c.served_model != c.model else ""
    st.caption(f"{md_escape(c.backend)} · {md_escape(views.model_label(c))}{served} · stage "
               f"{md_escape(views.stage_of(c.prompt_name))} · for {md_escape(views.served_for(c))}"
               f" · {c.input_tokens:,} in / {c.output_tokens:,} out tokens · {c.latency_s:.2f} s"
               f" · {plural(c.attempts, 'request')}"
               + (" · served from the cache" if c.cached else "")
               + (f" · {md_escape(c.server)}" if c.server else ""))
    if c.error:
        if c.status == "failed":
            st.error("This call failed: the offline engine made its decision.")
        else:
            st.warning("This call needed a retry or a repair.")
        st.code(views.masked(c.error), language=None, wrap_lines=True)
    if c.requests:
        st.caption("Requests sent")
        st.dataframe(pd.DataFrame(c.requests), hide_index=True, key=f"{key}_requests")
    for i, message in enumerate(c.messages, start=1):
        st.caption(f"Message {i}: {md_escape(str(message.get('role', '?')))}")
        st.code(views.masked(str(message.get("content", ""))), language=None, wrap_lines=True)
    st.caption("Response")
    st.code(views.masked(c.response_text) or "(no response)", language=None, wrap_lines=True)
    if c.parsed is not None:
        with st.expander("Parsed reply"):
            st.json(c.parsed)
