"""What τ lets through of the memories an episode looked at: one rule for the run and every
view of it (what-if τ, the τ line), so a view never counts differently from the run."""

from __future__ import annotations


def passes_tau(score, continued, tau, recall_score=None):
    """A memory is evoked when the cue's similarity to it is above τ, or when the episode it
    was learnt from is the one this episode continues (it is known, wherever the merge moved
    the vector), or when a statement of the episode is above τ to it (`recall_score`, the
    offline engine's recall; None or NaN where no statement called it up).

    Works on single values and, elementwise, on pandas or numpy columns (`|`, not `or`).
    """
    if recall_score is None:
        return (score > tau) | continued
    if isinstance(recall_score, (int, float)):
        return (score > tau) | continued | (recall_score > tau)
    return (score > tau) | continued | (recall_score.fillna(-1.0) > tau)
