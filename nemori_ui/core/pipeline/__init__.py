"""The Nemori pipeline: stages, deciders (LLM or offline engine) and the resumable runner."""
