"""`export`: a whole run to JSON, JSON Lines or Parquet."""

from __future__ import annotations

from ..core.export import run_document, safe_output_path, write_export
from .commands import COMMANDS
from .common import add_home, store_from


def add_parser(sub) -> None:
    p = sub.add_parser("export", help=COMMANDS["export"])
    p.add_argument("run_id")
    p.add_argument("--out", required=True)
    add_home(p)


def run(args) -> int:
    store = store_from(args)
    doc = run_document(store, args.run_id)
    out = write_export(doc, safe_output_path(args.out))
    print(f"wrote {out}")
    return 0
