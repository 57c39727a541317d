"""One step of the triage walk (SPEC §5): the evidence for one class, as payloads with a code."""

from __future__ import annotations

from dataclasses import dataclass

from flipgate.core.vocab import Coded, TriageClass


@dataclass(frozen=True)
class TriageStep:
    """The evidence for one class: what the tool found (its summary, whose code is the class, and
    its facts, each a `vocab.TriageFactCode`), and the cases it names."""

    klass: TriageClass
    summary: Coded  # the step's findings in figures, one line in `present/triage.py`
    facts: tuple[Coded, ...]  # each a line: a label and a value
    cases: tuple[str, ...]  # the cases this step names, most telling first
    suggests_cause: bool
    # The flipped cases among `cases` this class accounts for on its own (an infra repetition
    # decided it, the same output got another grade...). A case that is merely noisy in one arm
    # is named but not explained; the regression step holds the flips no step explains.
    explains: tuple[str, ...] = ()
