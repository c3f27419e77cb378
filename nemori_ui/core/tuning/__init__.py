"""Tuning and comparison: what-if τ, sweeps, run diffs, memory over time, the prediction demo."""
