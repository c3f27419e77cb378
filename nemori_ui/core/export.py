"""A whole run as one document: JSON, JSON Lines or Parquet."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

from .errors import InputError
from .store import Store
from .store import records, runs

FORMATS = (".json", ".jsonl", ".parquet")


def run_document(store: Store, run_id: str) -> dict:
    """Everything a run holds, without vectors, as plain JSON-ready data."""
    info = runs.get_run(store, run_id)
    run = info.model_dump(mode="json")
    return {
        "run": run,
        "messages": [m.model_dump(mode="json") for m in records.load_messages(store, run_id)],
        "episodes": [e.model_dump(mode="json", exclude={"embedding"})
                     for e in records.load_episodes(store, run_id, with_vectors=False)],
        "semantic": [m.model_dump(mode="json", exclude={"embedding"})
                     for m in records.load_memories(store, run_id, with_vectors=False)],
        "events": [e.model_dump(mode="json") for e in records.load_events(store, run_id)],
        "llm_calls": [c.model_dump(mode="json") for c in records.load_calls(store, run_id)],
    }


def safe_output_path(out: str | Path, base: Path | None = None) -> Path:
    """Resolve `out`; with `base`, refuse anything that would land outside it."""
    path = Path(out)
    if path.suffix.lower() not in FORMATS:
        raise InputError(f"export format must be one of {', '.join(FORMATS)}", file=str(out))
    try:
        if base is not None:
            resolved = (base / path).resolve()
            if not resolved.is_relative_to(base.resolve()):
                raise InputError("export path leaves the export folder", file=str(out))
            return resolved
        return path.resolve()
    except (OSError, ValueError) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(_unusable(path, exc), file=str(out)) from None


def write_export(doc: dict, out: Path) -> Path:
    """Write `doc` to `out`, creating its folder; a path that cannot be written is an InputError
    naming it (a directory, a folder under a file, a name too long, no permission, a full
    disk)."""
    try:
        if out.is_dir():
            raise InputError("is a directory: name a file to export to (e.g. run.json)",
                             file=str(out))
    except (OSError, ValueError) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(_unusable(out, exc), file=str(out)) from None
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(_unusable(out, exc, f"cannot create the folder {out.parent}"),
                         file=str(out)) from None
    try:
        return _write(doc, out)
    except OSError as exc:
        raise InputError(_unusable(out, exc, "cannot write the export"), file=str(out)) from None


def _unusable(out: Path, exc: Exception, doing: str = "cannot use this path") -> str:
    if isinstance(exc, OSError) and exc.errno == errno.ENAMETOOLONG:
        longest = max(out.parts, key=len)
        return (f"{doing}: a name in it is too long ({len(longest)} characters; the file "
                f"system allows at most {_name_max(out)}): choose a shorter file name")
    if isinstance(exc, ValueError):
        return f"{doing}: it holds a NUL character" if "null" in str(exc) else f"{doing} ({exc})"
    return f"{doing} ({exc.strerror or type(exc).__name__})"


def _name_max(out: Path) -> int:
    """The longest file name the file system holding `out` allows (255 where it won't say)."""
    for folder in out.parents:
        try:
            return os.pathconf(folder, "PC_NAME_MAX")
        except (OSError, ValueError):
            continue        # not there (yet), or itself too long a name
    return 255


def _write(doc: dict, out: Path) -> Path:
    suffix = out.suffix.lower()
    if suffix == ".json":
        out.write_text(json.dumps(doc, indent=2, ensure_ascii=False))
    elif suffix == ".jsonl":
        with out.open("w", encoding="utf-8") as fh:
            for table, rows in doc.items():
                for row in rows if isinstance(rows, list) else [rows]:
                    fh.write(json.dumps({"table": table, **row}, ensure_ascii=False) + "\n")
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq
        # one row per record, tagged by table; nested fields kept as JSON text
        rows = [{"table": table, "record": json.dumps(row, ensure_ascii=False)}
                for table, items in doc.items()
                for row in (items if isinstance(items, list) else [items])]
        pq.write_table(pa.Table.from_pylist(rows), out)
    return out
