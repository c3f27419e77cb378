"""`eval`: the benchmark harness. `eval locomo FILE` or `eval longmemeval FILE`.

One evaluation per variant; each is stored in the run store (see the Evaluation page) and the
memory it built is an ordinary run. `--json` prints one object per variant, one per line.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..core.errors import InputError
from ..core.transcripts import load_transcript
from .commands import COMMANDS
from .common import (add_semantic_options, add_episode_match, add_home, add_llm_options,
                     semantic_settings, llm_settings, make_config, notice, print_json,
                     store_from)
from .workers import add_worker_options, check_workers, on_ray, results_stdout, show_tasks

LOCOMO_CATEGORIES = "1,2,3,4"


def add_parser(sub) -> None:
    p = sub.add_parser("eval", help=COMMANDS["eval"])
    modes = p.add_subparsers(dest="benchmark", metavar="BENCHMARK", required=True)
    lo = modes.add_parser("locomo", help="LoCoMo: F1, BLEU-1, LLM judge, evidence recall")
    lo.add_argument("--conversations", help="sample ids, comma-separated (default: all)")
    lo.add_argument("--categories", default=LOCOMO_CATEGORIES,
                    help="1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop (default 1,2,3,4)")
    lme = modes.add_parser("longmemeval", help="LongMemEval: judge by question type")
    lme.add_argument("--instances", help="question ids, comma-separated (default: all)")
    lme.add_argument("--types", help="question types, comma-separated (default: all)")
    for m in (lo, lme):
        _common(m)


def _common(p) -> None:
    from ..core.eval.ablations import VARIANTS
    p.add_argument("file")
    p.add_argument("--variant", default="nemori",
                   help=f"comma-separated, from: {', '.join(VARIANTS)} (default nemori)")
    p.add_argument("--backend", choices=["offline", "openai"], default="offline")
    p.add_argument("--model", default="gpt-4o-mini", help="answering (and memory) model")
    p.add_argument("--base-url", help="OpenAI-compatible server (default: $OPENAI_BASE_URL)")
    p.add_argument("--embedder", choices=["minilm", "openai"], default="minilm")
    p.add_argument("--judge-model", default="gpt-4o-mini", help="LLM judge (default gpt-4o-mini)")
    p.add_argument("--judge-prompts", choices=["paper", "strict"], default="paper",
                   help="judge rubric: paper (the published protocol, the default) or strict "
                        "(ours; not comparable with the paper's tables)")
    p.add_argument("--k", type=int, default=10, help="retrieved narratives k (default 10)")
    add_episode_match(p)
    add_semantic_options(p)
    p.add_argument("--window", type=int, default=20, help="window length w (default 20)")
    p.add_argument("--tau", type=float, default=None,
                   help="similarity threshold τ (default: the embedder's; 0.57 MiniLM, "
                        "0.70 text-embedding-3-small)")
    p.add_argument("--limit", type=int, help="only the first N questions of each conversation")
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--csv", help="also write the per-question results to this CSV file")
    p.add_argument("--json", action="store_true", help="print one JSON object per variant")
    add_llm_options(p)
    add_worker_options(p)
    add_home(p)


def _list(text: str | None) -> list[str] | None:
    items = [t.strip() for t in (text or "").split(",") if t.strip()]
    return items or None


def options_from(args, variant: str):
    from ..core.eval.harness import EvalOptions
    if args.benchmark == "locomo":
        try:
            categories = [int(c) for c in _list(args.categories) or []]
        except ValueError:
            raise InputError(f"--categories takes numbers 1-5, got {args.categories!r}") from None
        if not categories or any(c not in range(1, 6) for c in categories):
            raise InputError(f"--categories takes numbers 1-5, got {args.categories!r}")
        scope = {"conversations": _list(args.conversations), "categories": categories}
    else:
        scope = {"conversations": _list(args.instances), "types": _list(args.types)}
    if args.k < 1 or (args.limit is not None and args.limit < 1):
        raise InputError("--k and --limit must be at least 1")
    return EvalOptions(benchmark=args.benchmark, variant=variant, k=args.k,
                       judge_model=args.judge_model, judge_prompts=args.judge_prompts,
                       limit=args.limit, **scope)


def run(args) -> int:
    from ..core.clients import RunEnvironment
    from ..core.eval import results
    from ..core.eval.ablations import VARIANTS
    from ..core.eval.agreement import agreement_json, eval_marks, stage_agreement
    from ..core.eval.harness import evaluate
    from ..core.scale import executor_for
    variants = _list(args.variant) or ["nemori"]
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        raise InputError(f"unknown variant {', '.join(unknown)}; choose from {', '.join(VARIANTS)}")
    planned = [options_from(args, name) for name in variants]   # bad options fail first
    check_workers(args)
    if args.csv:
        writable_csv(args.csv)
    config = make_config(backend=args.backend, model=args.model, embedder=args.embedder,
                         window=args.window, tau=args.tau, concurrency=args.concurrency,
                         episode_match=args.episode_match, **semantic_settings(args),
                         **llm_settings(args))
    transcript = load_transcript(args.file, format=args.benchmark)
    store = store_from(args)
    env = RunEnvironment(base_url=args.base_url, notice=notice,
                         executor=executor_for(args.workers, args.ray_address))
    done = []
    with results_stdout(on_ray(args)) as out:
        for options in planned:
            run_ = evaluate(store, transcript, config, options, source=str(args.file), env=env,
                            progress=_progress())
            done.append(run_)
            agreement = stage_agreement(eval_marks(store, run_.memory_runs))
            if args.json:
                print_json({**results.summary_json(run_),
                            "agreement": agreement_json(agreement)}, out)
            else:
                print(format_table(run_, agreement) + "\n", file=out, flush=True)
    if args.csv:
        with open(args.csv, "w", encoding="utf-8", newline="") as fh:
            for i, run_ in enumerate(done):
                text = results.questions_csv(run_, results.load_questions(store, run_.id))
                fh.write(text if i == 0 else text.split("\n", 1)[1])
        print(f"per-question results written to {args.csv}", file=sys.stderr)
    return 0


def writable_csv(path: str) -> None:
    """Refuse a --csv path that cannot be written before an evaluation spends its time."""
    target = Path(path)
    if target.is_dir():
        raise InputError("--csv: is a directory: name a file (e.g. results.csv)", file=path)
    if not target.parent.is_dir():
        raise InputError(f"--csv: the folder {target.parent} does not exist", file=path)


def _progress():
    tty = sys.stderr.isatty()

    def show(p) -> None:
        if p.stage == "tasks":
            show_tasks(p)
            return
        if not tty:
            return
        verb = "building memory" if p.stage == "build" else "answering"
        sys.stderr.write(f"\r{p.conversation}: {verb} {p.done}/{p.total}   ")
        if p.done >= p.total and p.stage == "answer":
            sys.stderr.write("\n")
        sys.stderr.flush()
    return show


def _cell(value, digits: int = 1) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def format_table(run, agreement=None) -> str:
    """The summary as a fixed-width table, with the paper's figures when the model matches,
    and the engine's agreement with readers' marks on its memory when given."""
    from ..core.eval import paper, tables
    from ..core.eval.agreement import agreement_text
    from ..core.eval.ablations import VARIANTS
    s = run.summary
    model = paper.paper_model(run.config.model) if run.config.backend != "offline" else None
    row = VARIANTS[run.variant].paper
    published = paper.locomo_row(model, row) if model and run.benchmark == "locomo" else None
    judge = s["judge"].get("model") or s["judge"].get("note")
    recall = f"recall@{s.get('k', 10)}"
    rubric = f" ({run.options.get('judge_prompts', 'strict')} rubric)" if s["judge"].get("model") else ""
    prompts = f" · prompts {s.get('prompts')}" if s.get("prompts") else ""
    lines = [f"{run.benchmark} · {run.variant} · {run.decider}{prompts} · judge: {judge}{rubric}",
             f"{'category':<26}{'n':>5}{'judge':>7}{'F1':>7}{'BLEU-1':>8}"
             f"{recall:>11}{'episodes':>9}{'tokens':>8}{'retr ms':>9}{'total ms':>10}"
             + (f"   paper {row} ({model}) J/F1/B" if published else "")]
    groups = [(k, g) for k, g in s["by_category"].items()] + [("overall", s["overall"])]
    for key, g in groups:
        name = g.get("name", key)
        line = (f"{name[:26]:<26}{g['questions']:>5}{_cell(g['judge']):>7}{_cell(g['f1']):>7}"
                f"{_cell(g['bleu1']):>8}{_cell(g['recall']):>11}"
                f"{_cell(g.get('recall_episodes')):>9}{_cell(g['context_tokens'], 0):>8}"
                f"{_cell(g['retrieval_ms']):>9}{_cell(g['total_ms']):>10}")
        if published and key in published:
            p = published[key]
            line += f"   {p['judge']:.1f}/{p['f1']:.1f}/{p['bleu1']:.1f}"
        lines.append(line)
    lines.append(tables.scoring_note(run) + ".")
    lines.append(f"{recall}: every evidence turn in the context (retrieved episodes, and the turns "
                 "a retrieved memory was distilled from and states); episodes: in episodes only")
    if s.get("skipped"):
        lines.append("skipped: " + "; ".join(f"{k}: {v}" for k, v in s["skipped"].items()))
    if agreement is not None:
        lines.append(agreement_text(agreement))
    lines.append(f"{s['questions']} questions in {run.seconds:.1f} s "
                 f"(memory or index {s.get('build_seconds', 0):.1f} s) · stored as {run.id}")
    return "\n".join(lines)
