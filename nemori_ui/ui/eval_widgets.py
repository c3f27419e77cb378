"""The Evaluation page's parts: the choice of evaluation, the table by category beside the
paper's, the variants side by side, and one question taken apart. Benchmark text is shown
as text only: tables, st.text, escaped markdown or escaped HTML."""

from __future__ import annotations

import streamlit as st

from ..core.eval import paper, results, tables
from ..core.eval.ablations import VARIANTS
from ..core.eval.judge import JUDGE_PRESETS
from ..core.deciders.offline import OFFLINE_LABEL
from ..core.views.calls import format_cost
from . import tints
from .safe import html_text, md_escape
from .state import get_store, home
from ..core.views.wording import plural

EVAL_COMMAND = ("python -m nemori_ui eval locomo locomo10.json --conversations conv-26 "
                "--variant nemori,full-context,rag-4096")
MARKS = {"evidence": f"background:{tints.STRONG_YELLOW};font-weight:600;",
         "episode": f"background:{tints.BLUE};"}
NUMBER = st.column_config.NumberColumn(format="%.1f")
TEXT = st.column_config.TextColumn(width="medium")


@st.cache_data(show_spinner=False, max_entries=8)
def _questions(home_path: str, eval_id: str) -> list[results.QuestionResult]:
    # an evaluation never changes once stored, so its id is a complete cache key
    return results.load_questions(get_store(), eval_id)


def questions_of(run: results.EvalRun) -> list[results.QuestionResult]:
    return _questions(str(home()), run.id)


def empty_state() -> None:
    st.info("No evaluation stored yet. Start one above, or from the command line; for "
            "example, Nemori and both baselines on one LoCoMo conversation:")
    st.code(EVAL_COMMAND, language="bash")
    st.caption("Add --backend openai (with a key or --base-url) for the LLM judge; the offline "
               "engine scores F1, BLEU-1 and evidence recall without one.")


def _label(run: results.EvalRun) -> str:
    scope = ", ".join(run.options.get("conversations") or []) or "all conversations"
    n = run.summary.get("questions", 0)
    return (f"{run.created_at.replace('T', ' ')[:16]} · {run.benchmark} · {run.variant} · "
            f"{scope} · {plural(n, 'question')}")


def provenance(run: results.EvalRun) -> str:
    """Which prompts and which judge rubric produced the figures, and what the answers and
    verdicts cost."""
    judge = run.summary.get("judge", {})
    parts = []
    if run.decider != OFFLINE_LABEL:
        # evaluations stored before presets existed used what is now the strict preset
        parts.append(f"prompts: {run.summary.get('prompts') or run.config.prompts}")
    if judge.get("model"):
        rubric = run.options.get("judge_prompts", "strict")
        parts.append(f"judge rubric: {rubric} ({JUDGE_PRESETS.get(rubric, rubric)})")
    calls = run.summary.get("calls")
    made = calls and any((calls.get(kind) or {}).get(n) for kind in ("eval", "judge")
                         for n in ("calls", "cached", "failed"))
    if made:        # the offline engine makes no call: no counter of zeros
        answer, verdict = calls.get("eval", {}), calls.get("judge", {})
        parts.append(f"answer calls {answer.get('calls', 0)} (+{answer.get('cached', 0)} cached), "
                     f"judge calls {verdict.get('calls', 0)} (+{verdict.get('cached', 0)} "
                     f"cached), {answer.get('input_tokens', 0) + verdict.get('input_tokens', 0):,}"
                     f" tokens in, cost {format_cost(calls.get('cost_usd'))}")
    return " · ".join(parts) or "no LLM calls"


def pick_eval(runs: list[results.EvalRun]) -> results.EvalRun:
    ids = [r.id for r in runs]
    labels = {r.id: _label(r) for r in runs}
    if st.session_state.get("eval_id") not in ids:
        st.session_state.eval_id = ids[0]
    chosen = st.selectbox("Evaluation", ids, format_func=labels.get, key="eval_id")
    run = next(r for r in runs if r.id == chosen)
    judge = run.summary.get("judge", {})
    engine = "offline engine, no LLM" if run.decider == OFFLINE_LABEL else run.decider
    st.caption(md_escape(
        f"Answered by {engine} · judge: {judge.get('model') or judge.get('note', 'none')} · "
        f"k = {run.summary.get('k', run.config.k)} · "
        f"{plural(run.summary['questions'], 'question')} in "
        f"{run.seconds:.1f} s · source {run.source}"))
    st.caption(md_escape(provenance(run)))
    if run.decider == OFFLINE_LABEL:
        st.caption("The offline engine answers with the retrieved sentence that best matches "
                   "the question, so its F1 and BLEU-1 are far below a model's; evidence recall "
                   "measures retrieval alone and compares directly.")
    st.caption("recall@k counts an evidence turn when the context holds it: in a retrieved "
               "episode, or in a retrieved memory distilled from that turn whose text states "
               "what it said; *episodes only* counts retrieved episodes alone.")
    return run


def paper_model_choice(run: results.EvalRun) -> str:
    own = paper.paper_model(run.config.model) if run.config.backend != "offline" else None
    model = st.radio("Paper figures for", paper.MODELS, horizontal=True,
                     index=paper.MODELS.index(own) if own else 0, key=f"eval_model_{run.id}")
    if own is None:
        st.caption("These results are not from one of the paper's models: its figures are "
                   "shown for orientation, not as a like-for-like comparison.")
    return model


def category_section(run: results.EvalRun, model: str) -> None:
    table = tables.category_table(run, model)
    st.dataframe(table, hide_index=True,
                 column_config={c: NUMBER for c in table.columns if c not in ("category", "n")})
    st.caption(md_escape(tables.scoring_note(run) + "."))
    if not run.summary["overall"].get("judged"):
        st.caption("No judge ran, so only the paper's judge scores are shown.")
    row = tables.paper_row_name(run)
    if run.benchmark == "locomo" and paper.locomo_row(model, row) is None:
        st.caption(f"The paper reports no {md_escape(row or run.variant)} row for {model}.")
    st.markdown("**Context and latency per question**")
    cost = tables.cost_table(run, model)
    st.dataframe(cost, hide_index=True,
                 column_config={c: NUMBER for c in cost.columns if c != "category"})
    skipped = run.summary.get("skipped") or {}
    if skipped:
        st.caption("Left out: " + md_escape("; ".join(f"{k}: {v}" for k, v in skipped.items())))
    issues = run.summary.get("issues") or []
    if issues:
        with st.expander(f"Data problems in the question set ({len(issues)})"):
            st.dataframe(issues, hide_index=True)


def comparison_section(runs: list[results.EvalRun], run: results.EvalRun, model: str) -> None:
    same = tables.comparable(runs, run)
    st.caption("The newest evaluation of each variant on the same questions, answered by the "
               "same engine or model.")
    table = tables.comparison_table(same, model)
    st.dataframe(table, hide_index=True,
                 column_config={c: NUMBER for c in table.columns
                                if c not in ("variant", "n", "paper row")})
    st.caption(md_escape(tables.scoring_note(run) + "."))
    missing = tables.missing_variants(same)
    if missing:
        with st.expander(f"Variants not evaluated on these questions ({len(missing)})"):
            st.dataframe([{"variant": name, "what it is": VARIANTS[name].label,
                           "paper row": VARIANTS[name].paper or ""} for name in missing],
                         hide_index=True)
            st.caption("Run them with the same command and --variant NAME[,NAME...].")


def questions_section(run: results.EvalRun) -> None:
    rows = questions_of(run)
    if not rows:
        st.info("This evaluation has no question (all were skipped).")
        return
    c1, c2, c3, c4 = st.columns([2, 1, 1.4, 2])
    names = sorted({tables.category_name(r.category) for r in rows})
    cats = c1.multiselect("Category", names, key=f"eval_cats_{run.id}")
    verdict = c2.selectbox("Judge", ["all", "correct", "wrong"], key=f"eval_verdict_{run.id}")
    missed = c3.checkbox("Missed evidence", key=f"eval_missed_{run.id}",
                         help="only questions whose evidence turns were not all retrieved")
    text = c4.text_input("Search", key=f"eval_search_{run.id}")
    shown = tables.filter_questions(rows, categories=cats, verdict=verdict,
                                    missed_evidence=missed, text=text)
    st.caption(f"{len(shown)} of {plural(len(rows), 'question')} · click a row to take it apart")
    if not shown:
        return
    key = f"eval_item_{run.id}"
    labels = {r.item_id: f"{r.item_id} · {r.question[:80]}" for r in shown}
    event = st.dataframe(tables.question_table(shown), hide_index=True, on_select="rerun",
                         selection_mode="single-row", key=f"eval_table_{run.id}",
                         column_config={"question": TEXT, "gold": TEXT, "answer": TEXT})
    picked = event.selection.rows if event else []
    if picked and picked[0] < len(shown):
        chosen = shown[picked[0]].item_id
        last = f"eval_table_last_{run.id}"
        if st.session_state.get(last) != chosen:
            # a new row click moves the drill-down; later reruns leave a manual choice alone
            st.session_state[last] = chosen
            st.session_state[key] = chosen
    if st.session_state.get(key) not in labels:
        st.session_state[key] = shown[0].item_id
    item = st.selectbox("Question", list(labels), format_func=labels.get, key=key)
    question_detail(run, next(r for r in shown if r.item_id == item))


def question_detail(run: results.EvalRun, r: results.QuestionResult) -> None:
    with st.container(border=True):
        st.markdown(f"**Question** ({md_escape(tables.category_name(r.category))}, "
                    f"{md_escape(r.item_id)})")
        st.text(r.question + (f"\n(asked on {r.question_date})" if r.question_date else ""))
        left, right = st.columns(2)
        left.markdown("**Gold answer**")
        left.text(r.gold)
        right.markdown("**Answer**")
        right.text(r.answer)
        cols = st.columns(4)
        cols[0].metric("Judge", tables.verdict_text(r))
        cols[1].metric("F1", f"{100 * r.f1:.1f}")
        cols[2].metric("BLEU-1", f"{100 * r.bleu1:.1f}")
        cols[3].metric("Context tokens", r.context_tokens)
        if r.verdict_reason:
            st.caption("Judge's reason: " + md_escape(r.verdict_reason))
        if r.fallback:
            st.caption(md_escape(r.fallback))
        for note in r.notes:
            st.caption(md_escape(note))
        st.markdown("**Evidence turns**")
        if r.evidence:
            st.dataframe([{"turn": e["ref"], "retrieved": "yes" if e["found"] else "no",
                           "speaker": e["speaker"], "text": e["text"]} for e in r.evidence],
                         hide_index=True, column_config={"text": TEXT})
        else:
            st.caption("The benchmark lists no evidence for this question.")
        st.markdown("**Retrieved context**")
        context_view(run, r)


def context_view(run: results.EvalRun, r: results.QuestionResult) -> None:
    if r.retrieved.get("full_context"):
        st.caption(f"The whole transcript ({r.context_tokens} tokens) was the context; every "
                   "evidence turn is in it.")
        return
    context = results.load_context(get_store(), run.id, r.item_id)
    if not context:
        st.caption("Nothing was retrieved.")
        return
    st.caption("Highlighted: the evidence turns themselves, and (lighter) the titles of "
               "retrieved episodes that hold one.")
    parts = []
    for line, mark in tables.context_lines(context, r):
        style = MARKS.get(mark, "")
        parts.append(f'<div style="{style}white-space:pre-wrap">{html_text(line) or "&nbsp;"}'
                     "</div>")
    st.markdown('<div style="font-family:monospace;font-size:0.85em;max-height:480px;'
                f'overflow-y:auto">{"".join(parts)}</div>', unsafe_allow_html=True)


def downloads(runs: list[results.EvalRun], run: results.EvalRun) -> None:
    c1, c2 = st.columns(2)
    c1.download_button("Questions (CSV)", results.questions_csv(run, questions_of(run)),
                       file_name=f"{run.id}-questions.csv", mime="text/csv",
                       key=f"eval_csv_q_{run.id}")
    c2.download_button("Summary of the compared variants (CSV)",
                       results.summary_csv(tables.comparable(runs, run)),
                       file_name=f"{run.id}-summary.csv", mime="text/csv",
                       key=f"eval_csv_s_{run.id}")
