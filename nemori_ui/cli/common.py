"""Pieces every sub-command shares: --home, opening the store, printing JSON."""

from __future__ import annotations

import json
import sys

from pydantic import ValidationError

from ..core.config import PipelineConfig
from ..core.errors import InputError
from ..core.store import open_store


def add_home(parser) -> None:
    parser.add_argument("--home", help="folder of the run store (default: $NEMORI_HOME or ~/.nemori_ui)")


def store_from(args):
    return open_store(getattr(args, "home", None))


_OPTION_OF = {"timeout_s": "--timeout", "retry_budget_s": "--retry-budget"}


def add_semantic_options(p) -> None:
    p.add_argument("--consolidation", choices=["gated", "always", "off"], default="gated",
                   help="gated (default): a call only for an insight with a stored memory above "
                        "the gate; always: a call for every insight; off: every statement "
                        "stored, as the v1 code")
    p.add_argument("--consolidation-gate", type=float, default=None,
                   help="the gate's similarity (default: the embedder's; 0.83 MiniLM)")
    p.add_argument("--consolidation-unit", choices=["episode", "insight"], default="episode",
                   help="under gated: the insights an episode needs a model for asked about in "
                        "one call (default), or in one call each")
    p.add_argument("--semantic-order", choices=["sequential", "window"], default="sequential",
                   help="sequential (default): each episode predicted from the store with the "
                        "window's earlier episodes' insights; window: a window's episodes all "
                        "predicted from the store before it, in parallel, as the v1 code")
    p.add_argument("--cold-start", choices=["prediction", "narrative"], default="prediction",
                   help="with nothing stored: distil the raw episode against an empty "
                        "prediction (default, the paper), or distil its title and narrative "
                        "directly, as the v1 code (LLM backends; offline reads the messages)")


def semantic_settings(args) -> dict:
    return {"consolidation": args.consolidation, "consolidation_gate": args.consolidation_gate,
            "consolidation_unit": args.consolidation_unit,
            "semantic_order": args.semantic_order, "cold_start": args.cold_start}


def add_episode_match(p) -> None:
    p.add_argument("--episode-match", choices=["narrative+messages", "narrative"],
                   default="narrative+messages",
                   help="how answers rank episodes: by narrative and best message (default), or "
                        "by narrative alone as the paper does (§3.4)")


def make_config(**settings) -> PipelineConfig:
    """PipelineConfig from command-line settings; a value out of range names its option."""
    try:
        return PipelineConfig(**settings)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            field = str(err["loc"][0]) if err["loc"] else "settings"
            option = _OPTION_OF.get(field, f"--{field.replace('_', '-')}")
            why = err["msg"].replace("Input should be", "should be")
            problems.append(f"{option} {err.get('input')!r}: {why}")
        raise InputError("; ".join(problems)) from None


def add_llm_options(p) -> None:
    """How a model is asked: the prompt preset, and the limits of each call."""
    g = p.add_argument_group("LLM calls (with --backend openai)")
    g.add_argument("--prompts", choices=["paper", "strict"], default="paper",
                   help="prompt preset: paper (the official implementation's prompts, the "
                        "default) or strict (our stricter texts); stored with the run")
    g.add_argument("--distill-dates", choices=["preset", "keep", "exclude"], default="preset",
                   help="dates in distilled insights: the preset's policy (paper leaves them "
                        "out, strict keeps dated events), or keep / exclude")
    g.add_argument("--timeout", type=float, default=60.0, dest="timeout_s", metavar="SECONDS",
                   help="seconds one request may take, connect to last byte (default 60)")
    g.add_argument("--attempts", type=int, default=3, metavar="N",
                   help="requests per call, the first included (default 3); a server that is "
                        "not ready (HTTP 503, connection refused) is asked until the retry "
                        "budget is spent")
    g.add_argument("--retry-budget", type=float, default=90.0, dest="retry_budget_s",
                   metavar="SECONDS",
                   help="seconds a call may keep retrying, and a run may go without an answer "
                        "before it stops (default 90)")


def llm_settings(args) -> dict:
    """The LLM options as config fields; the base URL without credentials (they are used for
    the connection, never stored)."""
    from ..core.llm.redact import strip_url_credentials
    return {"prompts": args.prompts, "distill_dates": args.distill_dates,
            "timeout_s": args.timeout_s, "attempts": args.attempts,
            "retry_budget_s": args.retry_budget_s,
            "base_url": strip_url_credentials(getattr(args, "base_url", None))}


def notice(text: str) -> None:
    """A retry, or something learnt about the server: on stderr at once, terminal or not."""
    print(f"note: {text}", file=sys.stderr, flush=True)


def print_json(obj, out=None) -> None:
    print(json.dumps(obj, indent=None, ensure_ascii=False, default=str), file=out, flush=True)


class TerminalProgress:
    """A one-line progress bar on stderr; when stderr is not a terminal (a log file, CI), one
    plain line per finished window instead, so a long run is never silent."""

    def __init__(self, stream=None):
        self.stream = stream or sys.stderr      # the stderr of now, not of import time
        self.live = self.stream.isatty()
        self._reported = -1

    def _line(self, p) -> None:
        if p.window == self._reported:
            return
        self._reported = p.window
        llm = p.llm or {}
        calls = (f", {llm.get('calls', 0)} LLM calls ({llm.get('cached', 0)} cached, "
                 f"{llm.get('failed', 0)} failed, {llm.get('retries', 0)} retries)") if llm else ""
        self.stream.write(f"progress: {p.window}/{p.windows_total} windows done{calls}\n")
        self.stream.flush()

    def __call__(self, p) -> None:
        if not self.live:
            self._line(p)
            return
        width = 30
        done = int(width * p.window / max(1, p.windows_total))
        llm = p.llm or {}
        calls = f" · {llm.get('calls', 0)} calls, {llm.get('input_tokens', 0)} tok in" if llm else ""
        self.stream.write(f"\r[{'#' * done}{'.' * (width - done)}] window {min(p.window + 1, p.windows_total)}"
                          f"/{p.windows_total} {p.stage:<12}{calls}")
        self.stream.flush()
        if p.stage == "done":
            self.stream.write("\n")
