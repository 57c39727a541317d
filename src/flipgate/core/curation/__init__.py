"""Curating the flaky list (SPEC §7): proposals from identical baseline runs, edits, checks."""
