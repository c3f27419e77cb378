"""Nemori Inspector: run the Nemori memory pipeline on a transcript and inspect every stage."""

__version__ = "0.1.0"
