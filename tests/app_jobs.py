"""AppTest and the jobs a page starts: a page follows its job in a fragment that refreshes
itself, which AppTest does not rerun on its own; these wait for the jobs and run the page
once more, as the next refresh in a browser would."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from nemori_ui.ui.jobs.runs import registry

WAIT_S = 180


def jobs_done(at: AppTest) -> AppTest:
    """Wait for every job of the server to end, then run the page: it shows how they ended."""
    for job in registry().alive():
        assert job.wait(WAIT_S), f"the {job.kind} job {job.key} did not end"
    return at.run()
