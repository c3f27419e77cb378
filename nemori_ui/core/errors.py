"""Errors a user can act on: each says what is wrong and where."""

from __future__ import annotations


class InputError(ValueError):
    """Bad user input. The message names the file and, where known, the line or field."""

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 field: str | None = None):
        self.file, self.line, self.field, self.reason = file, line, field, message
        where = []
        if file:
            where.append(str(file))
        if line is not None:
            where.append(f"line {line}")
        if field:
            where.append(f"field '{field}'")
        super().__init__(f"{': '.join(where)}: {message}" if where else message)


class StoreError(RuntimeError):
    """The run store cannot be used (locked, corrupt, newer schema). Nothing stored is lost."""


class RunTaken(StoreError):
    """Another process is running the same run and saved a window first; this one stopped."""


class LLMFailure(RuntimeError):
    """An LLM call that failed after its retries and repair. The caller decides the fallback."""

    def __init__(self, message: str, *, prompt_name: str = "", call_id: str | None = None):
        self.prompt_name, self.call_id = prompt_name, call_id
        super().__init__(message)
