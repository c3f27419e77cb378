"""Prediction error: what the memory expected an episode to hold, and what it learnt instead."""

import streamlit as st

from nemori_ui.core.views.episodes import episode_label
from nemori_ui.core.views.prediction import (CARRIED, PREDICTED, SURPRISE_DEFINITION, admitted,
                                             charted, comparison, evoked, evoked_caption,
                                             line_decisions,
                                             looked_similarities, most_predicted,
                                             most_surprising,
                                             surprise_table)
from nemori_ui.ui.episodic_charts import (clicked_episode, evoked_figure, insights_html,
                                          legend_html, prediction_html, raw_html, show_html,
                                          similarity_histogram, surprise_figure)
from nemori_ui.ui.layout import page_setup
from nemori_ui.ui.mark_widgets import mark_control
from nemori_ui.ui.safe import md_escape
from nemori_ui.core.views.wording import plural

data = page_setup("Prediction error")
if data is None:
    st.stop()
table = surprise_table(data)
if table.empty:
    st.info("No episode has been distilled yet.")
    st.stop()

run = data.run_id
direct = (table["mode"] == "direct").all()
if direct:
    st.info("This run uses **Nemori-s**: each raw episode is distilled directly, with no "
            "prediction, so there is no prediction error to show. Every statement worth keeping "
            "is stored; below are the insights and the raw lines they came from.")
else:
    st.markdown(
        "Before storing an episode, the memory **predicts** it from its cue and the knowledge "
        "the cue evokes (memories with similarity above **τ**). Only what the prediction missed "
        "or got wrong is kept as insight; what it already held is **not stored**.")

# A click on the strip chooses the episode; remembered so a later selectbox choice wins.
key, chart_key, last_key = f"pe_episode_{run}", f"pe_strip_{run}", f"pe_last_click_{run}"
options = list(table["episode"])
clicked = clicked_episode(st.session_state.get(chart_key))
if clicked != st.session_state.get(last_key):
    st.session_state[last_key] = clicked
    if clicked in options:
        st.session_state[key] = clicked
opened = st.session_state.pop("pe_open", None)   # a link from another page: (run, episode)
if opened and opened[0] == run and opened[1] in options:
    st.session_state[key] = opened[1]
if st.session_state.get(key) not in options:
    # open where something was predicted: the page is about what prediction saved
    st.session_state[key] = most_predicted(data, table) or most_surprising(table)

st.subheader("Where the memory was surprised")
st.plotly_chart(surprise_figure(table, st.session_state[key]), key=chart_key,
                on_select="rerun", selection_mode="points", config={"displayModeBar": False})
st.caption(f"One bar per episode, in transcript order; click one to inspect it. "
           f"{SURPRISE_DEFINITION}.")

looked = looked_similarities(data)
if not direct and not looked.empty and data.info.config.management == "native":
    tau = data.info.config.tau
    seen_all = admitted(looked, tau)
    with st.expander(f"What τ = {tau:.2f} admits: {seen_all.evoking} of "
                     f"{plural(seen_all.episodes, 'episode')} evoked a memory"):
        st.plotly_chart(similarity_histogram(looked, tau), key=f"pe_hist_{run}",
                        config={"displayModeBar": False})
        st.caption(f"Every similarity between an episode and the top K_s memories it looked at: "
                   f"{seen_all.passing} of {seen_all.pairs} pairs pass τ (above it, or "
                   "learnt from the episode the looking one continues). τ depends on the "
                   "embedder (MiniLM's is calibrated on LoCoMo questions; see docs/method.md); the "
                   "Tuning page shows what another τ would change.")

chosen = st.selectbox("Episode (opens on the one whose prediction held the most)", options, key=key,
                      format_func=lambda i: episode_label(data, i))
row = table[table["episode"] == chosen].iloc[0]
comp = comparison(data, chosen)
seen = evoked(data, chosen)

c = st.columns(5)
c[0].metric("Raw messages", int(row["messages"]))
c[1].metric("Insights stored", int(row["insights"]))
c[2].metric("Predicted, not stored", int(row["covered"]) if comp.statements_checked else "–",
            help="raw statements a prediction from earlier episodes already held (reported by "
                 "the offline engine); what the episode only repeats of its own earlier part "
                 "is carried, not predicted")
c[3].metric("Surprise", f"{row['surprise']:.2f}", help=SURPRISE_DEFINITION)
c[4].metric("Memories evoked", f"{seen.passed} of {len(charted(seen.frame))}" if seen else "–",
            help="memories above τ to the cue or to a statement of the episode, or learnt "
                 "from the episode this one continues, of the cue's top K_s and those")
st.caption(md_escape(f"{chosen} · {row['span']} · window {row['window']}"))
distilled = next((e for e in data.stage("distill") if e.payload.episode_id == chosen), None)
if distilled is not None:
    mark_control(data.run_id, distilled.seq, "distillation")
if comp.fallback:
    st.warning(f"Distillation fell back: {md_escape(str(comp.fallback))}")

if seen is not None:
    st.subheader("1. What the cue evoked")
    st.text(comp.cue)
    management = seen.management
    if seen.frame.empty:
        st.caption("Semantic memory was still empty: nothing to evoke, so the prediction is "
                   "empty and everything informative is new.")
    else:
        if seen.cold_start:
            st.info("**Nothing known yet** about this episode: no memory passed τ, so no "
                    "prediction was made (and no call asked for one); everything informative "
                    "in it is new.")
        st.plotly_chart(evoked_figure(charted(seen.frame), seen.tau, management == "native"),
                        key=f"pe_evoked_{run}_{chosen}", config={"displayModeBar": False})
        notes = {"native": evoked_caption(charted(seen.frame), seen.tau),
                 "naive": "Naive RAG management: the top K_s memories are used without τ.",
                 "summary": "Flat-summary management: the whole running summary is evoked."}
        st.caption(notes.get(management, ""))
        said = seen.frame[~seen.frame["by cue"] & seen.frame["passed"]]
        if len(said):
            st.markdown(f"**Called up by what the episode says** ({len(said)}): each statement "
                        f"of the episode also evokes the memories above τ to it, as a memory "
                        "is reminded by what is said (the offline engine; see docs/method.md's "
                        "method section).")
            st.dataframe(said[["memory", "text", "recalled by", "recall score"]].rename(
                columns={"recalled by": "statement that called it up",
                         "recall score": "similarity"}), hide_index=True)

st.subheader("2. Predicted episode and real episode" if not direct else "Raw episode")
show_html(legend_html())
if comp.mode == "direct":
    st.caption("Nemori-s: no prediction for this episode. Messages cited by an insight are "
               "marked learnt.")
    show_html(raw_html(comp.rows))
else:
    left, right = st.columns(2)
    with left:
        st.markdown("**Predicted** (one statement per line)")
        show_html(prediction_html(comp.prediction_lines))
    with right:
        st.markdown("**Real** (the raw messages)")
        show_html(raw_html(comp.rows))
    if comp.read == "narrative":
        st.caption("Cold start as the v1 code: nothing was stored yet, so the insights were "
                   "distilled from the episode's title and narrative, not from these messages; "
                   "each cites the whole episode.")
    if comp.statements_checked:
        told = [c for c in comp.covered if c.kind == "predicted"]
        st.caption(f"The offline engine checked each informative raw statement against the "
                   f"prediction: {plural(len(told), 'statement')} in "
                   f"{plural(comp.counts[PREDICTED], 'message')} were already known from "
                   "earlier episodes, so predicted and not stored.")
    carried = comp.counts.get(CARRIED, 0)
    if carried:
        st.caption(f"This episode continues an earlier one: {plural(carried, 'message')} of "
                   "that part were distilled when it was, and are not read again (carried).")
    else:
        st.caption("The model does not report which statements its prediction already held: "
                   "raw messages cited by an insight are marked learnt, the rest plain.")

lines = line_decisions(data, chosen)
if not lines.empty:
    st.subheader("How each raw line was read")
    st.caption("Knowledge or talk, clause by clause: rules first (questions, greetings, idioms, "
               "captions alone, too little content), then a classifier that compares the clause "
               "with labelled example lines (phatic score above the margin: talk). Knowledge "
               "becomes a self-contained statement: names for I and you, dates made absolute; "
               "knowledge said in a way no memory could stand on (about the listener, an "
               "unresolved 'it' or 'there', an order, a general remark) is *not standalone*.")
    st.dataframe(lines, hide_index=True,
                 column_config={"phatic score": st.column_config.NumberColumn(format="%.2f"),
                                "message": st.column_config.TextColumn(width="small"),
                                "read as": st.column_config.TextColumn(width="small"),
                                "clause": st.column_config.TextColumn(width="medium"),
                                "statement": st.column_config.TextColumn(width="medium"),
                                "why": st.column_config.TextColumn(width="medium")})

st.subheader("3. What it learnt")
if comp.insights:
    st.caption("Each insight with the raw lines it came from, and what consolidation did "
               "with it (new memory, merged into one, or replacing a conflicting one).")
    show_html(insights_html(comp.insights))
else:
    st.caption("No insight: the prediction held everything worth keeping.")
