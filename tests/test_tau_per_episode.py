"""τ read per episode (core/tuning/calibrate.py `episode_chance`): an episode is compared with
every memory before it, so what one pair rarely passes, an episode with many memories does."""

from __future__ import annotations

import pytest

from nemori_ui.core.tuning.calibrate import episode_chance


def test_an_episode_counts_once_by_its_closest_unrelated_memory():
    # twenty episodes; the unrelated memories of each peak at 0.40 ... 0.78, related at 0.70
    per_episode = [([0.70] if n % 2 else [], [0.30, 0.35, 0.40 + n * 0.02]) for n in range(20)]
    chance = episode_chance(per_episode, tau=0.57)
    assert chance.episodes == 20 and chance.with_related == 10
    # closest unrelated above 0.57 from n = 9 on: 11 of 20
    assert chance.evoking_unrelated == pytest.approx(11 / 20)
    assert chance.evoking_related == 1.0
    # the 95th percentile of the closest unrelated (0.40 ... 0.78)
    assert chance.tau_for_chance == pytest.approx(0.76)
    assert chance.related_at_chance == 0.0


def test_episodes_without_both_kinds_before_them_cannot_calibrate():
    with pytest.raises(ValueError):
        episode_chance([([], [0.5]), ([], [0.6])], tau=0.57)
    with pytest.raises(ValueError):
        episode_chance([], tau=0.57)
