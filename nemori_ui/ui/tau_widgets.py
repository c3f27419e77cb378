"""What a τ admits, shown on the stored similarities of the current run."""

from __future__ import annotations

import streamlit as st

from ..core.config import DEFAULT_TAU
from ..core.views.prediction import admitted, looked_similarities
from .episodic_charts import similarity_histogram
from .safe import md_escape
from .state import current_run, run_data
from ..core.views.wording import plural

TAU_HELP = ("Memories more similar than τ to an episode are evoked to predict it. Cosine "
            "similarities differ by embedder, so τ does too: " +
            ", ".join(f"{name} {value:.2f}" for name, value in DEFAULT_TAU.items()) +
            " (MiniLM's calibrated on LoCoMo questions, text-embedding-3-small's the paper's).")


def tau_admits(tau: float, embedder: str) -> None:
    """The current run's looked-at similarities against the τ chosen in the form."""
    info = current_run()
    if info is None or info.config.management != "native":
        return
    if info.config.embedder != embedder:
        st.caption(md_escape(f"The current run ({info.name}) used another embedder: its "
                             "similarities do not show what this τ would admit."))
        return
    looked = looked_similarities(run_data(info))
    if looked.empty:
        return
    seen = admitted(looked, tau)
    with st.expander(f"What τ = {tau:.2f} admits in the current run: {seen.evoking} of "
                     f"{plural(seen.episodes, 'episode')} would evoke a memory"):
        st.plotly_chart(similarity_histogram(looked, tau), key="run_tau_hist",
                        config={"displayModeBar": False})
        st.caption(md_escape(f"{info.name}: {seen.passing} of {seen.pairs} looked-at "
                             f"similarities pass τ = {tau:.2f} (the run used "
                             f"{info.config.tau:.2f}). Later episodes would see another "
                             "memory, so this is a guide; a run at this τ gives the answer."))
