"""The pure core of flipgate: runs, the gate, triage, decisions and the flaky list's curation.

Nothing in this package imports Textual, Rich or the app; the layer contracts in `pyproject.toml`
(import-linter) and `tests/core/test_boundary.py` prove it.
"""
