"""The prediction-error demo: what Nemori stores beside Nemori-s, which stores without predicting."""

from dataclasses import asdict

import pandas as pd
import streamlit as st

from nemori_ui.core.clients import build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.presenter_banners import demo_banners
from nemori_ui.core.store.runs import stored_conversation
from nemori_ui.core.tuning.compare import knowledge_diff, prediction_change
from nemori_ui.core.tuning.demo import prediction_demo
from nemori_ui.core.views.demo_story import consolidation_outcomes, demo_headline
from nemori_ui.ui.diff_widgets import prediction_panel
from nemori_ui.ui.jobs.runs import registry
from nemori_ui.ui.jobs.tasks import mine, outcome, remember, watch
from nemori_ui.ui.layout import page_setup
from nemori_ui.ui.presenter import key_bindings, presenter_toggle, scroll_to, show_banners
from nemori_ui.ui.state import current_run, get_store, list_runs, run_data
from nemori_ui.ui.tuning_widgets import demo_pair, start_demo

page_setup("Prediction-error demo", needs_run=False)
presenting = presenter_toggle()
st.markdown("Nemori predicts each episode from what it already knows and stores only what the "
            "prediction missed. Nemori-s stores everything it distils. Same transcript, same "
            "engine: the difference is what prediction saved.")

# rebuilt from the stored runs: a reload, another tab or a later visit runs nothing again
pair = demo_pair()
if pair is None:
    asked = st.session_state.pop("demo_requested", False)
    if not registry().alive(("demo",)):
        outcome(mine("demo"), lambda job: None)     # a demo run stopped: say why
        if st.button("Run the demo on the bundled sample", type="primary",
                     key="demo_button") or asked:
            for job in start_demo():
                remember("demo", job)
            st.rerun()
    if registry().alive(("demo",)):
        st.caption("Nemori and Nemori-s on the sample, offline engine: a few seconds. The runs "
                   "go on in the server if you leave the page; this page shows them when done.")
        watch(("demo",))
    else:
        st.info("Press the button: both runs take a few seconds with the offline engine.")
    st.stop()

known = {r.id: r for r in list_runs()}
nemori, direct = run_data(known[pair[0]]), run_data(known[pair[1]])
embedder = build_clients(PipelineConfig(), get_store()).embedder
demo = prediction_demo(nemori, direct, embedder)
ours, theirs = consolidation_outcomes(nemori), consolidation_outcomes(direct)
# the views sit below tuning, so the headline reads the demo's figures by name
head = demo_headline(asdict(demo), ours, theirs)
st.subheader(head.title)


def step_moment(by: int) -> None:
    st.session_state.demo_moment = st.session_state.get("demo_moment", 0) + by if by else 0


# in presenter mode the moment comes first, under the headline, in sight on a laptop's screen
moments = demo_banners(nemori, demo.skipped_as_predicted) if presenting else []
if moments:
    # one moment at a time, in the transcript's order, as a presenter tells them: each fact
    # Nemori skipped because it predicted it, and each conflict; Space the next, R the first
    moment = st.session_state.get("demo_moment", 0) % len(moments)
    shown, step, again = st.columns([8, 1.2, 1.2], vertical_alignment="center")
    with shown:
        show_banners([moments[moment]])
    step.button("Next", key="demo_step", on_click=step_moment, args=(1,), width="stretch",
                help="The next moment: a fact Nemori skipped, or a conflict (Space)")
    again.button("Restart", key="demo_restart", on_click=step_moment, args=(0,),
                 width="stretch", help="Back to the first moment (R)")
    key_bindings({" ": "demo_step", "r": "demo_restart"}, again)
    scroll_to(".presenter-banner", f"demo:{moment}")

figures = [("Insights distilled", "insights", head.fewer_insights),
           ("Consolidation decisions", None, head.fewer_decisions),
           ("Memories stored", "memories", head.fewer_memories),
           ("Tokens stored", "tokens", head.fewer_tokens)]
cols = st.columns(len(figures) + 1)
cols[0].metric("Facts predicted", head.predicted,
               help="Said in an earlier session and predicted from the memory it left there: "
                    "not distilled, not stored. The banners step through the same facts.")
for col, (label, key, fewer) in zip(cols[1:], figures):
    value = getattr(demo.nemori, key) if key else ours["decisions"]
    other = getattr(demo.nemori_s, key) if key else theirs["decisions"]
    # the delta reads against Nemori-s: fewer is the saving, shown green
    col.metric(f"{label}, Nemori", value, delta=f"{-fewer:+d} against Nemori-s ({other})",
               delta_color="inverse")
st.info(head.why)


st.subheader("Facts told again that Nemori predicted, and what Nemori-s did with them")
skipped = pd.DataFrame([asdict(f) for f in demo.skipped_as_predicted])
if not skipped.empty and skipped["message_id"].isna().all():
    # facts inferred from Nemori-s's insights: no message of their own to show
    skipped = skipped[["text", "episode_id"]]
elif not skipped.empty:
    skipped = skipped[["text", "first_session", "first_message_id", "again_session",
                       "message_id", "predicted_by", "score", "nemori_s", "episode_id"]]
if not skipped.empty:
    skipped = skipped.rename(columns={
        "text": "fact, as said again", "first_session": "first told in session",
        "first_message_id": "first message", "again_session": "told again in session",
        "message_id": "message", "predicted_by": "memory that predicted it",
        "score": "similarity", "nemori_s": "Nemori-s", "episode_id": "episode"})
st.dataframe(skipped, hide_index=True)
if not skipped.empty:
    fact_col = "fact, as said again"
    c1, c2 = st.columns([3, 2], vertical_alignment="bottom")
    pick = c1.selectbox("Skipped fact", range(len(skipped)), key="demo_fact",
                        format_func=lambda i: f"{skipped.iloc[i][fact_col][:100]} · "
                                              f"{skipped.iloc[i]['episode']}")
    if c2.button("Open its episode on Prediction error", key="demo_open", width="stretch"):
        st.session_state.run_id = pair[0]
        st.session_state.pe_open = (pair[0], str(skipped.iloc[pick]["episode"]))
        st.switch_page("pages/prediction_error.py")
prediction_panel(prediction_change(nemori, direct, stored_conversation(get_store(), pair[0]),
                                   embedder.embed), knowledge_diff(nemori, direct),
                 figures=False)
st.subheader("Surprising facts both kept")
st.dataframe(pd.DataFrame([asdict(b) for b in demo.kept_by_both]), hide_index=True)
current = current_run()
if current and current.id not in pair:
    st.caption("The demo runs are saved like any other: pick one in the sidebar to inspect it.")
