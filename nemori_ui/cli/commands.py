"""The commands and their one-line help, which `--help` lists without importing any of them."""

COMMANDS = {
    "inspect": "show what a transcript file contains (format, conversations, sessions)",
    "run": "run the Nemori pipeline on a transcript",
    "append": "continue a stored run with the messages of a transcript",
    "resume": "continue an interrupted or failed run",
    "runs": "list stored runs",
    "ask": "ask a question of a run's memory",
    "export": "export a run (.json, .jsonl or .parquet)",
    "sweep": "run a grid of settings on one conversation or across several",
    "compare": "compare two runs",
    "eval": "evaluate on LoCoMo or LongMemEval and store the results",
}
