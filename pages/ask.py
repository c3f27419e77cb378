"""Ask: a question answered from the run's memory (§3.4), with everything that was retrieved,
its scores, the size of the context, and where the hits lie in the memory space."""

import pandas as pd
import streamlit as st

from nemori_ui.core.clients import RunEnvironment, build_clients
from nemori_ui.core.llm.redact import strip_url_credentials
from nemori_ui.core.deciders.offline import OFFLINE_LABEL
from nemori_ui.core.views.wording import ask_placeholder
from nemori_ui.core.projection import pca_project, point_vectors, points_frame
from nemori_ui.core.episode_lines import attach_lines
from nemori_ui.core.retrieval import answer_question
from nemori_ui.core.store import call_log
from nemori_ui.ui.layout import page_setup
from nemori_ui.ui.map_widgets import active_pca, index_facts, map_figure, memory_state, show_map
from nemori_ui.ui.safe import md_escape
from nemori_ui.ui.state import get_store

TEXT = st.column_config.TextColumn(width="large")
SCORE = st.column_config.ProgressColumn(min_value=0.0, max_value=1.0, format="%.3f")


def secrets() -> dict:
    try:
        return {k: st.secrets[k] for k in ("OPENAI_API_KEY", "OPENAI_BASE_URL") if k in st.secrets}
    except Exception:  # no secrets.toml: Streamlit raises rather than returning empty
        return {}


def answer(data, state, question: str, ablation: dict) -> dict:
    """Retrieve and answer through the run's own backend and embedder; raises on failure."""
    config = data.info.config
    raw = st.session_state.get("base_url_raw")
    # the URL as typed on the Run page (with any user:password) when it is this run's server
    base_url = raw if raw and strip_url_credentials(raw) == config.base_url else None
    clients = build_clients(config, get_store(),
                            RunEnvironment(api_key=st.session_state.api_key or None,
                                           secrets=secrets(), base_url=base_url))
    # the shared memory gets its lines once (embedded when the run was built: cache hits)
    attach_lines(state, data.message_by_id, clients.embedder, config)
    out = answer_question(question, clients.decider, clients.embedder, state,
                          data.message_by_id, config, run_id=data.run_id, **ablation)
    # embedded once more (a cache hit) to place the question on the map
    vector = clients.embedder.embed([question])[0].tolist()
    ids = set(out.call_ids)
    calls = [c for c in call_log.calls_of_run(get_store(), data.run_id, "ask") if c.id in ids]
    return {"run_id": data.run_id, "question": question, "answer": out.answer,
            "found": out.found.model_dump(), "vector": vector, "call_ids": out.call_ids,
            "source": out.source, "fallback": out.fallback,
            "tokens": (sum(c.input_tokens for c in calls if not c.cached),
                       sum(c.output_tokens for c in calls if not c.cached))}


def show_result(result: dict) -> None:
    found = result["found"]
    st.markdown(f"**Question:** {md_escape(result['question'])}")
    st.success(md_escape(result["answer"] or "(no answer)"))
    source = result.get("source", "model")
    if source == "offline fallback":
        st.warning("Answered by the offline engine: the model's reply could not be used "
                   f"({md_escape(result.get('fallback') or '')}).")
    else:
        st.caption("Answered by the model" if source == "model" else
                   "Answered by the offline engine, no LLM (an extractive answer)")
    c = st.columns(4)
    c[0].metric("Context size", f"{found['context_tokens']:,} tokens",
                help="tokens of the retrieved context sent to the answer step "
                     "(about four characters per token)")
    c[1].metric("Narratives", len(found["episodes"]))
    c[2].metric("Semantic memories", len(found["semantic"]))
    c[3].metric("Raw messages", len(found["raw"]))
    if result["call_ids"]:
        st.caption(f"Answer LLM calls: {len(result['call_ids'])} · tokens in "
                   f"{result['tokens'][0]:,} / out {result['tokens'][1]:,}")
    st.markdown("**Retrieved narratives** (top k episodes)")
    st.dataframe(pd.DataFrame(found["episodes"], columns=["score", "id", "cue", "narrative"]),
                 hide_index=True, key="ask_episodes",
                 column_config={"score": SCORE, "narrative": TEXT})
    st.markdown("**Retrieved semantic memories** (top m = 2k)")
    st.dataframe(pd.DataFrame(found["semantic"], columns=["score", "id", "text"]),
                 hide_index=True, key="ask_memories", column_config={"score": SCORE, "text": TEXT})
    st.markdown("**Raw messages** of the top r episodes")
    st.dataframe(pd.DataFrame(found["raw"], columns=["episode_score", "episode_id", "message_id",
                                                     "speaker", "text", "timestamp"]),
                 hide_index=True, key="ask_raw", column_config={"episode_score": SCORE, "text": TEXT})
    with st.expander("Context sent to the answer step"):
        st.code(found["context"] or "(empty)", language=None, wrap_lines=True)


data = page_setup("Ask")
if data is None:
    st.stop()
state = memory_state(data)
if state is None or (len(state.episode_index) == 0 and len(state.memory_index) == 0):
    st.info("Nothing is indexed in this run yet: there is no memory to ask.")
    st.subheader("FAISS indexes")
    index_facts(state)
    st.stop()

config = data.info.config
st.subheader("Question")
engine = ("the offline engine, no LLM (an extractive answer)" if data.info.decider == OFFLINE_LABEL
          else f"{config.backend} model {config.model}")
st.caption(f"Answered by {md_escape(engine)}, the run's configured backend. Retrieval: "
           f"k = {config.k} narratives, m = {config.m} memories, raw messages of r = "
           f"{config.r} episodes.")
question = st.text_input("Question", key="ask_question",
                         placeholder=ask_placeholder(
                             list(dict.fromkeys(m.speaker for m in data.messages))))
a1, a2, a3 = st.columns(3)
ablation = {"episodic": a1.checkbox("Narratives", True, key="ask_episodic"),
            "semantic": a2.checkbox("Semantic memories", True, key="ask_semantic"),
            "raw": a3.checkbox("Raw messages", True, key="ask_raw_messages")}
if st.button("Ask", type="primary", key="ask_button"):
    if not question.strip():
        st.warning("Type a question first.")
    else:
        try:
            with st.spinner("Retrieving and answering…"):
                st.session_state.ask_result = answer(data, state, question.strip(), ablation)
        except Exception as exc:  # a backend or key problem: say so and keep the page
            st.error(f"Could not answer: {md_escape(f'{type(exc).__name__}: {exc}')}")

result = st.session_state.get("ask_result")
if result and result["run_id"] == data.run_id:
    show_result(result)

st.subheader("Where the hits are")
frame = points_frame(data)
frame = frame[frame["status"] == "active"].reset_index(drop=True)
vectors = point_vectors(data, frame)
basis = active_pca(data, vectors)
marked, query_xy = [], None
if result and result["run_id"] == data.run_id:
    found = result["found"]
    marked = [e["id"] for e in found["episodes"]] + [m["id"] for m in found["semantic"]]
    query_xy = pca_project(result["vector"], basis)[0]
    st.caption("PCA of the active episodes (◆) and memories (●); the retrieved ones are ringed "
               "and the question is the star.")
else:
    st.caption("PCA of the active episodes (◆) and memories (●). Ask a question to see what "
               "it retrieves.")
show_map(map_figure(frame, pca_project(vectors, basis), "kind", marked=marked,
                    query_xy=query_xy, height=420), key="ask_map", selectable=False)

st.subheader("FAISS indexes")
index_facts(state)
