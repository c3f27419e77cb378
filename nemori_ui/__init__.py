"""Nemori Inspector: run the Nemori memory pipeline on a transcript and inspect every stage."""

__version__ = "0.1.0"


def __getattr__(name: str):
    # imported on first use, so `python -m nemori_ui inspect` does not load the pipeline
    if name == "Memory":
        from .core.memory_api import Memory
        return Memory
    if name == "AsyncMemory":
        from .core.memory_async import AsyncMemory
        return AsyncMemory
    if name in ("Filters", "InputError"):
        from .core import errors, memory_models
        return getattr(memory_models if name == "Filters" else errors, name)
    raise AttributeError(f"module 'nemori_ui' has no attribute {name!r}")
