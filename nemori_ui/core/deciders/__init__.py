"""The deciders: what answers each judgement of the method, behind one protocol
(`pipeline.decisions.Decider`).

`llm` asks a model through the gateway, with the prompts of `core.prompts`; `offline` decides
from embeddings and rules with the engine of `core.offline`. Import the one wanted from its
module: the LLM side is not loaded for an offline run.
"""
