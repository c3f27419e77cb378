"""Evaluation on LoCoMo and LongMemEval: question items, metrics, baselines and ablations, the
LLM judge, the harness that runs them through the run store, stored results, and the paper's
published figures to compare with."""
