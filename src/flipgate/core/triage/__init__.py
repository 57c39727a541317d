"""Triage (SPEC §5): the evidence for each of the five classes and the reviewer's walk."""
