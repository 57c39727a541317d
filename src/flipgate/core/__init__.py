"""The pure core of flipgate: runs, the gate, decision outcomes, triage, flaky list, decisions.

Nothing in this package imports Textual or the app; `tests/core/test_boundary.py` proves it.
"""
