"""Sweeps across conversations: mean ± sd per point, parameter importance, the named sweep run
on a real store over two bundled conversations, and saved runs grouped by sweep."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from pydantic import ValidationError

from nemori_ui.core.clients import build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.store import open_store, sweeps
from nemori_ui.core.store.runs import delete_run, list_runs
from nemori_ui.core.transcripts import load_transcript
from nemori_ui.core.tuning.across import (SweepInput, SweepSpec, conversation_label, plan,
                                          short_point, sweep_across)
from nemori_ui.core.tuning.spread import ParameterShare, importance, mean_sd, spread
from nemori_ui.core.views.sweep_groups import grouped, sweep_groups
from tests.conftest import ROOT

DATA = ROOT / "nemori_ui" / "data"


def test_spread_is_the_mean_and_sample_sd_across_conversations():
    rows = pd.DataFrame([
        {"tau": 0.6, "conversation": "a", "episodes": 4, "evidence_recall": 0.5},
        {"tau": 0.6, "conversation": "b", "episodes": 8, "evidence_recall": None},
        {"tau": 0.7, "conversation": "a", "episodes": 3, "evidence_recall": 0.2},
        {"tau": 0.7, "conversation": "b", "episodes": 5, "evidence_recall": 0.4}])
    out = spread(rows, ["tau"], ["episodes", "evidence_recall"]).set_index("tau")
    assert out.loc[0.6, "conversations"] == 2
    assert out.loc[0.6, "episodes_mean"] == 6
    assert out.loc[0.6, "episodes_sd"] == pytest.approx(math.sqrt(8))     # n - 1
    assert out.loc[0.7, "episodes_sd"] == pytest.approx(math.sqrt(2))
    # a missing figure is left out of the mean, not read as zero; one value has no sd
    assert out.loc[0.6, "evidence_recall_mean"] == 0.5
    assert math.isnan(out.loc[0.6, "evidence_recall_sd"])
    assert out.loc[0.7, "evidence_recall_mean"] == pytest.approx(0.3)


def test_spread_groups_by_every_parameter():
    rows = pd.DataFrame([{"tau": t, "window": w, "episodes": e}
                         for t, w, e in [(0.6, 8, 1), (0.6, 8, 3), (0.6, 12, 5), (0.7, 8, 7)]])
    out = spread(rows, ["tau", "window"], ["episodes"])
    assert out[["tau", "window", "conversations", "episodes_mean"]].values.tolist() == [
        [0.6, 8, 2, 2], [0.6, 12, 1, 5], [0.7, 8, 1, 7]]


def test_mean_sd_text():
    assert mean_sd(0.41234, 0.0312) == "0.412 ± 0.031"
    assert mean_sd(12.5, 3.536) == "12.5 ± 3.5"
    assert mean_sd(325.4, 283.2) == "325 ± 283", "no exponent"
    assert mean_sd(5.0, float("nan")) == "5"
    assert mean_sd(float("nan"), float("nan")) == "—"


def test_importance_is_the_share_between_a_parameters_levels():
    # insights follow τ only; the window's levels have equal means
    points = pd.DataFrame([{"tau": t, "window": w, "insights": 10 * t}
                           for t in (0.5, 0.6, 0.7) for w in (8, 12)])
    found = importance(points, ["tau", "window", "variant"], "insights")
    assert [r.parameter for r in found] == ["tau", "window"], "variant was not swept"
    assert found[0].share == pytest.approx(1.0)
    assert found[1].share == pytest.approx(0.0)
    assert found[0].levels == 3


def test_importance_sees_an_effect_a_correlation_misses():
    # a U-shape in τ: no linear correlation, all of the spread between τ's levels
    points = pd.DataFrame([{"tau": t, "variant": v, "insights": (t - 0.6) ** 2 * 100 + d}
                           for t in (0.5, 0.6, 0.7) for v, d in (("nemori", 0.1),
                                                                ("nemori-s", -0.1))])
    assert points["tau"].corr(points["insights"]) == pytest.approx(0.0, abs=1e-9)
    shares = {r.parameter: r.share for r in importance(points, ["tau", "variant"], "insights")}
    assert shares["tau"] > 0.9 and shares["variant"] < 0.1


def test_importance_of_a_constant_figure_is_zero():
    points = pd.DataFrame([{"tau": t, "merges": 2} for t in (0.5, 0.6)])
    assert importance(points, ["tau"], "merges") == [ParameterShare(parameter="tau", levels=2,
                                                                    share=0.0)]


def bundled_inputs() -> list[SweepInput]:
    found = []
    for name in ("sample_conversation.txt", "live_demo.txt"):
        transcript = load_transcript(DATA / name)
        found.append(SweepInput(conversation=transcript.conversations[0], source=name,
                                fmt=transcript.format))
    return found


def test_a_spec_needs_a_name_and_distinct_conversations():
    one = bundled_inputs()[0]
    with pytest.raises(ValidationError, match="needs a name"):
        SweepSpec(name="  ", grid={}, inputs=[one])
    with pytest.raises(ValidationError, match="at least one conversation"):
        SweepSpec(name="s", grid={}, inputs=[])
    with pytest.raises(ValidationError, match="chosen twice"):
        SweepSpec(name="s", grid={}, inputs=[one, one])


def test_a_named_sweep_runs_every_point_on_every_conversation(tmp_path):
    store = open_store(tmp_path)
    spec = SweepSpec(name="two convs", grid={"tau": [0.57, 0.65]}, inputs=bundled_inputs())
    base = PipelineConfig()
    heard = []
    info = sweep_across(store, spec, base, lambda c: build_clients(c, store),
                        on_point=lambda done, total: heard.append((done, total)))
    assert heard[-1] == (4, 4)
    points = sweeps.members(store, info.id)
    assert sorted((m.conversation.split(" · ")[0], m.point) for m in points) == [
        ("live_demo.txt", "tau=0.57"), ("live_demo.txt", "tau=0.65"),
        ("sample_conversation.txt", "tau=0.57"), ("sample_conversation.txt", "tau=0.65")]
    assert len(list_runs(store)) == 4
    # run again under its name: nothing is built twice and the sweep is not listed twice
    assert plan(store, spec, base).todo == []
    again = sweep_across(store, spec.model_copy(update={"grid": {"tau": [0.65, 0.7]}}), base,
                         lambda c: build_clients(c, store))
    assert again.id == info.id and again.grid == {"tau": [0.57, 0.65, 0.7]}
    assert len(list_runs(store)) == 6, "only τ = 0.7 was new"
    assert len(sweeps.list_sweeps(store)) == 1
    assert len(sweeps.members(store, info.id)) == 6
    # a deleted run leaves its sweep
    delete_run(store, points[0].run_id)
    assert len(sweeps.members(store, info.id)) == 5


def test_saved_runs_group_the_points_of_a_sweep(tmp_path):
    members = [sweeps.SweepMember(sweep_id="s1", run_id=r, point="p", conversation="c")
               for r in ("r2", "r4")]
    members.append(sweeps.SweepMember(sweep_id="s2", run_id="r4", point="p", conversation="c"))
    members.append(sweeps.SweepMember(sweep_id="s3", run_id="gone", point="p",
                                      conversation="c"))
    loose, groups = grouped(["r5", "r4", "r3", "r2", "r1"], members)
    assert loose == ["r5", "r3", "r1"]
    assert groups == {"s1": ["r4", "r2"], "s2": ["r4"]}, "no group for a sweep of no run"

    store = open_store(tmp_path)
    info = sweep_across(store, SweepSpec(name="g", grid={"tau": [0.57, 0.65]},
                                         inputs=bundled_inputs()[1:]), PipelineConfig(),
                        lambda c: build_clients(c, store))
    ids = [r.id for r in list_runs(store)]
    loose, found = sweep_groups(store, ids)
    assert loose == [] and [(s.name, len(r)) for s, r in found] == [(info.name, 2)]


def test_a_point_is_named_by_what_its_sweep_varies():
    grid = {"tau": [0.6, 0.7], "window": [20], "variant": ["nemori", "nemori-s"]}
    assert short_point("tau=0.6 window=20 variant=nemori", grid) == "tau=0.6 variant=nemori"
    assert short_point("window=20", {"window": [20]}) == "window=20", "nothing varies"


def test_a_conversation_alone_in_its_file_is_named_by_the_file():
    assert conversation_label("live_demo.txt · live_demo") == "live_demo.txt"
    assert conversation_label("locomo.json · conv-26") == "locomo.json · conv-26"


def test_the_sweep_command_runs_across_several_files_and_prints_mean_and_sd(tmp_path):
    import json

    from tests.cli_runner import run_cli
    files = [DATA / "sample_conversation.txt", DATA / "live_demo.txt"]
    done = run_cli("sweep", *files, "--tau", "0.57,0.65", "--name", "cli across",
                   "--home", tmp_path)
    assert done.returncode == 0, done.stderr
    header, *rows = [line.split() for line in done.stdout.splitlines()[:3]]
    assert header[:2] == ["tau", "conversations"] and "insights" in header
    assert [r[:2] for r in rows] == [["0.57", "2"], ["0.65", "2"]]
    assert all("±" in r for r in rows), done.stdout       # a mean and its sd across the two
    assert "2 points over 2 conversations (sweep «cli across»" in done.stdout
    store = open_store(tmp_path)
    [info] = sweeps.list_sweeps(store)
    assert info.name == "cli across" and len(sweeps.members(store, info.id)) == 4
    store.close()
    # again as JSON: nothing is built twice, and the figures are the same
    again = run_cli("sweep", *files, "--tau", "0.57,0.65", "--name", "cli across", "--json",
                    "--home", tmp_path)
    out = json.loads(again.stdout)
    assert [p["conversations"] for p in out["points"]] == [2, 2]
    assert {"insights_mean", "insights_sd"} <= set(out["points"][0])
    store = open_store(tmp_path)
    assert len(list_runs(store)) == 4
    store.close()
    # one file, one conversation: the sweep of one conversation, a line per point as before
    one = run_cli("sweep", files[1], "--tau", "0.57", "--home", tmp_path)
    assert one.returncode == 0 and one.stdout.startswith("tau=0.57: "), one.stdout
    # a conversation asked for that no file holds is named
    missing = run_cli("sweep", *files, "--conversation", "nope", "--home", tmp_path)
    assert missing.returncode == 2 and "no conversation 'nope'" in missing.stderr
