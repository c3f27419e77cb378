"""bench_llm_calls' breakdown per step and per message of conversation."""

from __future__ import annotations

import pytest

from benchmarks.bench_llm_calls import per_step


def test_each_step_is_counted_per_message_and_the_semantic_stage_is_its_three_steps():
    usage = {"partition": {"calls": 1}, "narrate": {"calls": 3}, "select": {"calls": 1},
             "anticipate": {"calls": 2}, "distill": {"calls": 3}, "consolidate": {"calls": 4}}
    est = {p: {"chars4": 100 * u["calls"]} for p, u in usage.items()}
    steps = per_step(usage, est, n_messages=20)
    assert steps["narration"]["calls"] == pytest.approx(3 / 20)
    assert steps["distillation"]["tokens"] == pytest.approx(300 / 20)
    assert steps["semantic"]["calls"] == pytest.approx(9 / 20)
    assert steps["semantic"]["tokens"] == pytest.approx(900 / 20)
    assert steps["total"]["calls"] == pytest.approx(14 / 20)
    assert steps["total"]["tokens"] == pytest.approx(1400 / 20)
    # the paper's tokens a message: Table 3's 277k over 588 messages, shared out by Table 9
    assert steps["narration"]["paper"] == pytest.approx(277_000 / 588 * 0.38)
    assert steps["semantic"]["paper"] == pytest.approx(277_000 / 588 * 0.30)
    assert steps["anticipation"]["paper"] is None
