"""The overview's panels: each formats one part of a `Comparison`, none computes the gate."""

from flipgate.tui.widgets.escalation import EscalationPanel
from flipgate.tui.widgets.flip_matrix import FlipMatrix
from flipgate.tui.widgets.key_diff import KeyDiff
from flipgate.tui.widgets.left_out import InfraPanel, LeftOutPanel
from flipgate.tui.widgets.outcomes import OutcomesPanel, ReconciliationPanel
from flipgate.tui.widgets.panel import Panel
from flipgate.tui.widgets.power import PowerPanel
from flipgate.tui.widgets.title import TitleBar
from flipgate.tui.widgets.verdict import VerdictBanner

__all__ = [
    "EscalationPanel",
    "FlipMatrix",
    "InfraPanel",
    "KeyDiff",
    "LeftOutPanel",
    "OutcomesPanel",
    "Panel",
    "PowerPanel",
    "ReconciliationPanel",
    "TitleBar",
    "VerdictBanner",
]
