"""Episodes: the narratives the memory wrote, and how new episodes were integrated."""

import pandas as pd
import streamlit as st

from nemori_ui.core.views.episodes import (episode_cards, episode_label, episode_messages,
                                           integration_detail, integration_table)
from nemori_ui.ui.episodic_charts import candidates_figure, narrative_block
from nemori_ui.ui.layout import page_setup
from nemori_ui.ui.readable import readable_gaps
from nemori_ui.ui.safe import md_escape
from nemori_ui.core.views.wording import plural

PER_PAGE = 20

data = page_setup("Episodes")
if data is None:
    st.stop()
if not data.episodes:
    st.info("No episode has been written yet.")
    st.stop()

run = data.run_id
narratives, integration = st.tabs(["Narratives", "Integration decisions"])

with narratives:
    status = st.segmented_control("Show", ["active", "superseded", "all"], default="active",
                                  required=True, key=f"ep_status_{run}")
    cards = episode_cards(data, status or "active")
    st.caption(f"{plural(len(cards), 'episode')}. Superseded episodes were merged into a later "
               f"one and "
               "are kept so every merge can be inspected.")
    pages = max(1, -(-len(cards) // PER_PAGE))
    page = st.number_input("Page", 1, pages, 1, key=f"ep_page_{run}_{status}") if pages > 1 else 1
    for card in cards[(page - 1) * PER_PAGE:page * PER_PAGE]:
        with st.container(border=True):
            st.markdown(f"##### {md_escape(card.cue)}")
            links = ""
            if card.superseded_by:
                links = f" · merged into {card.superseded_by}"
            if card.supersedes:
                links += f" · merges {', '.join(card.supersedes)}"
            st.caption(md_escape(f"{card.id} · {card.span} · window {card.window} · "
                                 f"{plural(card.messages, 'message')} · "
                                 f"{card.status}{links}"))
            st.text(card.narrative)
            with st.expander(f"Raw messages ({card.messages})"):
                st.dataframe(episode_messages(data, card.id), hide_index=True)

with integration:
    table = integration_table(data)
    if table.empty:
        st.info("No integration decision recorded.")
    else:
        merges = table[table["decision"].str.startswith("merged")]
        st.markdown(f"Each new episode is compared with the **K_e = {data.info.config.k_e}** "
                    "most similar earlier episodes; it either continues one of them (the two "
                    f"are merged) or stays on its own. **{len(merges)}** of {len(table)} "
                    "new episodes were merged.")
        # the choice is the decision's index; the decision column already says it in words
        shown = table.drop(columns=["choice"]).assign(
            **{"best score": pd.to_numeric(table["best score"], errors="coerce"),
               "reason": table["reason"].map(readable_gaps)})
        st.dataframe(shown, hide_index=True,
                     column_config={"best score": st.column_config.NumberColumn(
                                        format="%.3f", help="empty: no earlier candidate"),
                                    "reason": st.column_config.TextColumn(width="large")})
        options = list(table["new episode"])
        default = merges["new episode"].iloc[0] if len(merges) else options[0]
        key = f"ep_integration_{run}"
        if st.session_state.get(key) not in options:
            st.session_state[key] = default
        chosen = st.selectbox("Decision about the new episode", options, key=key,
                              format_func=lambda i: episode_label(data, i))
        detail = integration_detail(data, chosen)
        picked = detail.choice
        st.markdown(f"**{md_escape(detail.decision)}**" + (
            f" (candidate {picked} of {len(detail.candidates)})"
            if isinstance(picked, int) and picked > 0 else ""))
        if detail.reason:
            st.caption("Reason")
            st.text(detail.reason)
        if detail.repair:
            st.warning(f"Repaired: {md_escape(detail.repair)}")
        if detail.skipped:
            st.caption(md_escape(detail.skipped))
        else:
            left, right = st.columns([2, 3])
            left.plotly_chart(candidates_figure(detail.candidates),
                              key=f"ep_candidates_{run}_{chosen}",
                              config={"displayModeBar": False})
            right.dataframe(detail.candidates, hide_index=True,
                            column_config={"score": st.column_config.ProgressColumn(
                                "score", min_value=0.0, max_value=1.0, format="%.3f")})
        if detail.merged:
            st.markdown(f"**Merge** of {detail.target} and {chosen} into "
                        f"{detail.result_id}")
            cols = st.columns(3)
            for col, title, text in zip(cols, ["Before (earlier episode)", "Incoming (new)",
                                               "After (merged)"],
                                        [detail.before, detail.incoming, detail.after]):
                with col:
                    narrative_block(title, text)
