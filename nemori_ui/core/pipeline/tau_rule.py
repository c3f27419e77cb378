"""What τ lets through of the memories an episode looked at: one rule for the run and every
view of it (what-if τ, the τ line), so a view never counts differently from the run."""

from __future__ import annotations


def passes_tau(score, continued, tau):
    """A memory is evoked when its similarity is above τ, or when the episode it was learnt
    from is the one this episode continues (it is known, wherever the merge moved the vector).

    Works on single values and, elementwise, on pandas or numpy columns (`|`, not `or`).
    """
    return (score > tau) | continued
