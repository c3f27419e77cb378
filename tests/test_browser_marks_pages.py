"""Marks on all three pages that take them, in a real browser, as Phoenix annotations are used:
from an evaluation, a reader opens its memory on Prediction error and marks a distillation
wrong with the right one, marks a partition on Partitions and a consolidation on Knowledge;
the three are listed and exported as a labelled set, and the evaluation reports the engine's
agreement with them per stage."""

from __future__ import annotations

import csv
import io
import json
import re

from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.eval.harness import EvalOptions, evaluate
from nemori_ui.core.store import marks, open_store
from nemori_ui.core.transcripts import load_transcript
from tests.browser_app import (ROOT, SHOTS, app_server, need_chromium, open_browser, open_home,
                               open_nav, settle)

SMALL = ROOT / "tests" / "fixtures" / "transcripts" / "locomo_small.json"
EVALUATION = re.compile("Evaluation")


def mark(page, what: str, verdict: str, correction: str = "") -> None:
    """Open the popover of the page's first "Mark this <what>", mark it and save."""
    page.get_by_role("button", name=re.compile(rf"^Mark this {what}")).first.click()
    dialog = page.locator('[data-testid="stPopoverBody"]')
    dialog.get_by_text(verdict, exact=True).click()
    if correction:
        dialog.get_by_label("What it should have been (for a wrong one)").fill(correction)
    dialog.get_by_role("button", name="Save mark").click()
    page.get_by_role("button", name=re.compile(rf"^Mark this {what}.* \(marked {verdict}\)")) \
        .first.wait_for()
    settle(page)
    page.keyboard.press("Escape")


def test_marks_on_every_page_reach_the_evaluation(tmp_path):
    need_chromium()
    home = tmp_path / "home"
    store = open_store(home)
    run = evaluate(store, load_transcript(SMALL), PipelineConfig(), EvalOptions(variant="nemori"),
                   source=str(SMALL))
    [memory] = run.memory_runs.values()
    store.close()
    with app_server(home, tmp_path / "streamlit.log") as (url, _), \
            open_browser(viewport=(1280, 800), failure_shot="marks-pages-failure.png") as page:
        open_home(page, url)
        open_nav(page, "evaluation", EVALUATION)
        page.get_by_text("No decision of this evaluation's memory is marked yet").wait_for()
        page.get_by_role("combobox", name="Mark its decisions on").click()
        page.keyboard.type("prediction")
        page.keyboard.press("Enter")
        settle(page)
        assert page.get_by_role("combobox", name="Mark its decisions on").input_value() == \
            "prediction error"
        page.locator(f".st-key-eval_mark_open_{run.id} button").filter(visible=True).click()
        page.locator("h1", has_text="Prediction error").wait_for()
        settle(page)
        mark(page, "distillation", "wrong", "keep only the adoption")

        open_nav(page, "partitions", re.compile("Partitions"))
        page.get_by_role("button", name=re.compile(r"^Mark this partition")).first \
            .scroll_into_view_if_needed()
        mark(page, "partition", "right")

        open_nav(page, "knowledge", re.compile("Knowledge"))
        page.get_by_role("tab", name=re.compile("decision", re.I)).first.click()
        settle(page)
        mark(page, "decision", "right")
        listed = page.get_by_text(re.compile(r"the engine agrees with you on"))
        listed.wait_for()
        said = listed.inner_text()
        for stage, right in (("distill", 0), ("partition", 1), ("consolidate", 1)):
            assert f"{stage}: the engine agrees with you on {right} of 1" in said, said
        export = page.get_by_role("button", name=re.compile(r"Export the 3 marked decisions"))
        export.scroll_into_view_if_needed()
        page.screenshot(path=SHOTS / "marks-listed-1280.png")
        with page.expect_download() as download:
            export.click()
        rows = [json.loads(line) for line in open(download.value.path()).read().splitlines()]
        assert sorted((r["stage"], r["verdict"], r["correction"]) for r in rows) == [
            ("consolidate", "right", ""), ("distill", "wrong", "keep only the adoption"),
            ("partition", "right", "")]

        open_nav(page, "evaluation", EVALUATION)
        page.get_by_text(re.compile(r"^3 decisions of this evaluation's memory marked")).wait_for()
        page.get_by_role("heading", name="Agreement with readers' marks").scroll_into_view_if_needed()
        page.screenshot(path=SHOTS / "marks-eval-agreement-1280.png")
        with page.expect_download() as download:
            page.get_by_role("button", name="Agreement (CSV)").click()
        table = list(csv.DictReader(io.StringIO(open(download.value.path()).read())))
    by_page = {r["page"]: r for r in table}
    assert {p: (r["marked"], r["right"]) for p, r in by_page.items()} == {
        "knowledge": ("1", "1"), "prediction error": ("1", "0"), "partitions": ("1", "1")}, table
    stored = marks.load_marks(open_store(home), memory)
    assert sorted(m.verdict for m in stored) == ["right", "right", "wrong"]
