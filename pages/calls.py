"""Calls and cost: every LLM call of the run, one call in full, totals per stage and prompt,
and a cost estimate from a price table the user edits."""

import pandas as pd
import streamlit as st

from nemori_ui.core.llm.servers import is_local_server
from nemori_ui.core.llm.usage import count_calls
from nemori_ui.core.deciders.offline import OFFLINE_LABEL
from nemori_ui.core.prompts import prompt_texts
from nemori_ui.core.prompts.distill import dates_kept
from nemori_ui.core.store import call_log
from nemori_ui.core.views import calls as views
from nemori_ui.ui.call_widgets import call_detail
from nemori_ui.ui.layout import page_setup
from nemori_ui.ui.safe import md_escape
from nemori_ui.ui.state import get_store
from nemori_ui.core.views.wording import plural

TEXT = st.column_config.TextColumn(width="large")


def editor_key() -> str:
    return f"price_editor_{st.session_state.price_version}"


def set_prices(rows: list[views.PriceRow]) -> None:
    # a fresh editor key: the new table is the editor's base, with no stale pending edits
    st.session_state.prices = rows
    st.session_state.price_version += 1


def commit_prices(key: str) -> None:
    set_prices(views.apply_edits(st.session_state.prices, st.session_state[key]))


def price_table(models: list[str]) -> dict:
    """The editable price table, kept in the session; returns model -> (input, output)."""
    st.session_state.setdefault("prices", views.price_rows())
    st.session_state.setdefault("price_version", 0)
    rows = views.with_models(st.session_state.prices, models)
    if len(rows) != len(st.session_state.prices):
        set_prices(rows)
    st.caption("US dollars per million tokens. These are estimates: edit them, add a row for "
               "another model, or clear a cell to mark a price unknown.")
    key = editor_key()
    table = pd.DataFrame([r.row() for r in st.session_state.prices],
                         columns=views.PRICE_COLUMNS).astype(
        {"input_per_1m": "float64", "output_per_1m": "float64"})  # numeric even when all empty
    st.data_editor(table,
                   key=key, num_rows="dynamic", hide_index=True, placeholder="unknown",
                   on_change=commit_prices, args=(key,),
                   column_config={
                       "model": st.column_config.TextColumn("model", required=True),
                       "input_per_1m": st.column_config.NumberColumn(
                           "input $/1M", min_value=0.0, format="%.3f"),
                       "output_per_1m": st.column_config.NumberColumn(
                           "output $/1M", min_value=0.0, format="%.3f")})
    st.button("Reset to the default prices", key="price_reset", on_click=set_prices,
              args=(views.with_models(views.price_rows(), models),))
    return views.prices_from_rows(st.session_state.prices)


def cost_section(calls, prices: dict) -> views.CostEstimate:
    cost = views.estimate_cost(calls, prices)
    rows = []
    for r in cost.by_model:
        price_in, price_out = (0.0, 0.0) if r.local else views.listed_price(r.model, prices)
        rows.append({"model": r.model, "cost": views.format_cost(r.cost),
                     "calls": r.calls, "cached": r.cached,
                     "input_tokens": r.input_tokens,
                     "output_tokens": r.output_tokens,
                     "input $/1M": views.LOCAL if r.local else
                     "unknown" if price_in is None else f"{price_in:g}",
                     "output $/1M": views.LOCAL if r.local else
                     "unknown" if price_out is None else f"{price_out:g}"})
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True, key="cost_by_model")
    if cost.unknown:
        st.warning("No price for " + ", ".join(md_escape(m) for m in cost.unknown)
                   + ": the cost is unknown until you enter one in the price table below.")
    return cost


def prompts_section(config) -> None:
    """The texts this run's calls were made with: its preset, every prompt in full."""
    kept = dates_kept(config.prompts, config.distill_dates)
    st.caption(f"Prompt preset **{config.prompts}** "
               + ("(written to the official implementation's prompts)" if config.prompts == "paper"
                  else "(our own stricter texts)")
               + f" · distillation {'keeps' if kept else 'leaves out'} dates "
               f"(policy: {config.distill_dates})")
    with st.expander("The prompts of this run, in full"):
        for name, text in prompt_texts(config.prompts, config.distill_dates).items():
            st.caption(name)
            st.code(text, language=None, wrap_lines=True)


def outside_section(run_id: str, prices: dict) -> None:
    """Calls made on this run's memory after it was built: Ask and evaluations."""
    later = call_log.calls_of_run(get_store(), run_id)
    st.subheader("Calls on this memory after the run (Ask, evaluation, judge)")
    if not later:
        st.caption("None yet: questions asked on the Ask page and evaluations of this run's "
                   "memory are listed here with their cost.")
        return
    counts = count_calls(later)
    cost = views.estimate_cost(later, prices)
    st.caption(f"{counts['calls']} sent · {counts['cached']} cached · {counts['failed']} failed "
               f"· {counts['input_tokens']:,} in / {counts['output_tokens']:,} out tokens · "
               f"estimated cost {views.format_cost(cost.total)}")
    st.dataframe(views.call_table(later), hide_index=True, key="calls_later",
                 column_config={"response": TEXT, "error": TEXT})


data = page_setup("Calls and cost")
if data is None:
    st.stop()
calls = data.calls
models = sorted({c.model for c in calls if not is_local_server(c.server)})
if data.info.config.backend != "offline":
    prompts_section(data.info.config)

if not calls:
    if data.info.decider == OFFLINE_LABEL:
        st.info("This run was decided by the offline engine: the offline engine makes no LLM "
                "calls, so there is nothing to list and nothing to pay.")
    else:
        st.info("No LLM call has been recorded for this run yet.")
    with st.expander("Price table"):
        price_table(models)
    st.stop()

spent = views.totals(calls, by="stage")
headline = st.container()  # filled once the price table below is read

st.subheader("Totals")
t1, t2 = st.columns(2)
t1.caption("Per stage")
t1.dataframe(spent, hide_index=True, key="totals_stage")
t2.caption("Per prompt")
t2.dataframe(views.totals(calls, by="prompt"), hide_index=True, key="totals_prompt")

st.subheader("Cost estimate")
cost_slot = st.container()  # the estimate above the table it is computed from
p1, _ = st.columns([1, 1])
with p1:
    prices = price_table(models)
with cost_slot:
    cost = cost_section(calls, prices)

counts = count_calls(calls)
m = headline.columns(4) + headline.columns(4)
m[0].metric("LLM calls", counts["calls"], help="calls sent to the server (the Overview counts "
                                              "the same); cache hits are counted apart")
m[1].metric("Cached", counts["cached"], help="answered from the response cache: "
                                             "no request, no cost")
m[2].metric("Failed", counts["failed"], help="sent calls that ended without a usable reply; "
                                             "the offline engine decided instead")
m[3].metric("Requests", counts["requests"], help=f"HTTP requests sent, {counts['retries']} of "
                                                 "them retries or repairs")
m[4].metric("Input tokens", f"{counts['input_tokens']:,}",
            help="tokens sent to the backend; cached calls spend none")
m[5].metric("Output tokens", f"{counts['output_tokens']:,}")
m[6].metric("Latency", f"{counts['latency_s']:.1f} s", help="summed over calls; "
                                                            "calls of a window overlap")
m[7].metric("Estimated cost", views.format_cost(cost.total),
            help="from the price table below; a local server costs nothing; unknown while a "
                 "model has no price")

st.subheader("Beside the paper's Tables 3 and 9")
st.caption(f"Memory construction per message of this conversation ({len(data.messages):,} "
           "messages) beside Table 3 (gpt-4o-mini, 588 messages a LoCoMo conversation), then "
           "each stage's share of construction tokens beside Table 9.")
st.dataframe(views.table3(calls, len(data.messages)), hide_index=True, key="table3")
st.dataframe(views.table9(calls), hide_index=True, key="table9",
             column_config={"how ours differs": TEXT})

st.subheader("Calls")
table = views.call_table(calls)
f1, f2, f3 = st.columns(3)
stages = f1.multiselect("Stage", sorted(table["stage"].unique()), key="calls_stage")
statuses = f2.multiselect("Status", sorted(table["status"].unique()), key="calls_status")
cached = f3.selectbox("Cache", ["all", "cached", "not cached"], key="calls_cached")
keep = pd.Series(True, index=table.index)
if stages:
    keep &= table["stage"].isin(stages)
if statuses:
    keep &= table["status"].isin(statuses)
if cached != "all":
    keep &= table["cached"] == (cached == "cached")
shown = table[keep]
st.caption(f"{len(shown)} of {plural(len(table), 'call')}")
st.dataframe(shown, hide_index=True, key="calls_table",
             column_config={"response": TEXT, "error": TEXT,
                            "latency_s": st.column_config.NumberColumn(format="%.3f")})

st.subheader("One call")
listed = set(shown["id"])
call_detail([c for c in calls if c.id in listed] or calls)

outside_section(data.run_id, prices)
