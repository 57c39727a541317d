"""A signed decision's parts in words, where `flipgate verify` and the app show them."""

from __future__ import annotations

from flipgate.core.decision.record import RuleRegistered
from flipgate.present.reasons import when


def rule_words(registration: RuleRegistered | None) -> str:
    """`rule registered at T by S, before run R`, or that it was not registered."""
    if registration is None:
        return "rule: not registered before the run"
    return (
        f"rule registered at {when(registration.registered)} by {registration.signer}, "
        f"before run {registration.candidate}"
    )
