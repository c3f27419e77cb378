"""Evaluation: benchmark results by category beside the paper's, the baselines and ablations,
any question taken apart down to the evidence in its retrieved context, and the engine's
agreement with readers' marks on the memory it answered from."""

import streamlit as st

from nemori_ui.core.eval import results
from nemori_ui.ui.jobs.evaluation import eval_jobs
from nemori_ui.ui.eval_marks import agreement_section, run_agreement
from nemori_ui.ui.eval_widgets import (category_section, comparison_section, downloads,
                                       empty_state, paper_model_choice, pick_eval,
                                       questions_section)
from nemori_ui.ui.layout import page_setup
from nemori_ui.ui.state import get_store

page_setup("Evaluation", needs_run=False)
runs = results.list_evals(get_store())
eval_jobs(expanded=not runs)
runs = results.list_evals(get_store())     # one may have ended meanwhile
if not runs:
    empty_state()
    st.stop()

run = pick_eval(runs)
model = paper_model_choice(run)
by_category, variants, questions = st.tabs(["By category", "Baselines and ablations",
                                            "Questions"])
with by_category:
    category_section(run, model)
with variants:
    comparison_section(runs, run, model)
with questions:
    questions_section(run)
agreement_section(run, run_agreement(run))
downloads(runs, run)
