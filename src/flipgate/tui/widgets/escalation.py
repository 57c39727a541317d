"""On INCONCLUSIVE: what to run next (SPEC §3.6), and the key that writes the rerun plan; for a
partial run gated by `--allow-partial`, the cases to finish."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from flipgate.present.next_step import next_step
from flipgate.tui.bindings import shown_keys
from flipgate.tui.format import case_ids, count, literal
from flipgate.tui.widgets.panel import Panel, one_line

ACTION_WORDS = {
    "run_full_set": "run the full set",
    "rerun_flipped": "rerun the flipped cases",
    "reviewer_decision": "a reviewer decides",
    "finish_runs": "finish the runs",
}
SHOWN = 8  # cases to run named inline


class EscalationPanel(Panel):
    TITLE = "next step · INCONCLUSIVE"

    def render(self) -> RenderableType:
        escalation = self.comparison.result.escalation
        if escalation is None:
            return Text("no escalation: the gate decided", self.style("muted"))
        head = Text("→ ", self.style("heading"))
        head.append(ACTION_WORDS[escalation.action], self.style("heading"))
        if self.short:  # the action and its keys, then the why, a line each
            if escalation.action == "rerun_flipped":
                export, load = (
                    shown_keys(self.app, k, first=True) for k in ("export-plan", "load-reruns")
                )
                head.append(f" · {export} exports the plan · {load} loads the reruns", "")
            return Group(one_line(head), one_line(literal(next_step(escalation))))
        lines: list[RenderableType] = [head, literal(next_step(escalation))]
        if escalation.action == "rerun_flipped":
            cases = count(len(escalation.cases))
            plan = Text(
                f"{cases} cases x {escalation.runs} repetitions x both arms · ", self.style("muted")
            )
            export, load = (
                shown_keys(self.app, k, first=True) for k in ("export-plan", "load-reruns")
            )
            plan.append(
                f"{export} prices and writes rerun-plan.yaml · {load} loads the rerun results",
                self.style("label"),
            )
            lines.append(plan)
        elif escalation.action == "finish_runs":
            line = Text("cases to run: ", self.style("muted"))
            lines.append(line.append_text(case_ids(escalation.cases, SHOWN)))
        elif escalation.action == "reviewer_decision":
            triage = shown_keys(self.app, "triage", first=True)
            lines.append(
                Text(
                    f"{triage} walks the triage checklist to a signed decision", self.style("label")
                )
            )
        return Group(*lines)
