"""What every sample writes: run folders, gate specs, flaky lists, the commands in READMEs."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class RunManifest:
    """What run.yaml says (SPEC §2)."""

    run_id: str
    created: str
    key: dict[str, str]
    change: dict[str, Any] | None = None
    labels: dict[str, str] | None = None
    suite: str = "full"


@dataclass(frozen=True)
class Run:
    manifest: RunManifest
    rows: list[dict[str, Any]]


def yaml_scalar(value: object) -> str:
    """Plain YAML for our own ids and times; JSON quoting where a plain scalar would misread."""
    text = str(value)
    plain = text and all(ch.isalnum() or ch in "-_.@:/" for ch in text) and text[0].isalpha()
    return text if plain else json.dumps(text)


def render_run_yaml(m: RunManifest) -> str:
    lines = [f"run_id: {m.run_id}", f"suite: {m.suite}", f"created: {m.created}"]
    if m.change:
        keys = ", ".join(m.change["keys"])
        lines += ["change:", f"  keys: [{keys}]", f"  summary: {yaml_scalar(m.change['summary'])}"]
    lines.append("key:")
    lines += [f"  {name}: {yaml_scalar(value)}" for name, value in m.key.items()]
    if m.labels:
        labels = ", ".join(f"{k}: {v}" for k, v in m.labels.items())
        lines.append(f"labels: {{{labels}}}")
    return "\n".join(lines) + "\n"


def write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="\n")


def write_run(directory: Path, run: Run) -> None:
    write_text(directory / "run.yaml", render_run_yaml(run.manifest))
    lines = (json.dumps(row, ensure_ascii=False) for row in run.rows)
    write_text(directory / "results.jsonl", "".join(line + "\n" for line in lines))


ALL_OUTCOME_FAILURES = ("false_negative", "false_positive", "mirror", "inconclusive")
AGGREGATE_COMMENT = {
    "majority": "a tie fails; a safety case needs every rep",
    "all": "fail closed: a case passes only when every rep passes",
}


def gate_yaml(
    header: str,
    fail_on: tuple[str, ...] = ALL_OUTCOME_FAILURES,
    ordinary: str = "majority",
    zero_false_negative_rules: tuple[str, ...] = (),
    inconclusive_max_share: float | None = None,
    budgets: Mapping[str, tuple[str, str]] | None = None,
    release: str = "",
) -> str:
    """A gate.yaml with every field written out (SPEC §3); the defaults unless told otherwise.
    `budgets`: metric -> its budget as a YAML flow mapping, and a comment; written after the
    escalation line (no `budgets:` line when none); `release`: its lines, after the aggregate's."""
    comments = "".join(f"# {line}\n" if line else "#\n" for line in header.splitlines())
    share = "null" if inconclusive_max_share is None else inconclusive_max_share
    budgets = budgets or {}
    names = max((len(metric) for metric in budgets), default=0) + 1
    flows = max((len(flow) for flow, _ in budgets.values()), default=0)
    budget_lines = "".join(
        f"  {f'{metric}:':<{names}} {flow:<{flows}}  # {comment}\n"
        for metric, (flow, comment) in budgets.items()
    )
    if budget_lines:
        budget_lines = (
            "budgets:                         # over the gradable repetitions of the paired cases\n"
            + budget_lines
        )
    return (
        comments
        + f"""\
alpha: 0.05                      # the chance of a false BLOCK over every look at one change
test: exact                      # one-sided exact McNemar on the flips (or mid_p)
clusters: template               # cloned cases count once: a template is one cluster
looks: {{rule: spend, share: 0.5}}  # each look spends half the alpha left: p <= 0.025, 0.0125...
safety: {{max_rate: null}}         # a failure rate the safety cases must bound, if asked
permutations: {{count: 2000, seed: 20261201}}   # a relative budget's test against noise
sets:                            # chosen by run.yaml's `suite`
  smoke: {{margin: 1, flip_cap: 4}}
  full:  {{margin: 2, flip_cap: 10}}
aggregate: {{ordinary: {ordinary}, safety: all}}   # {AGGREGATE_COMMENT[ordinary]}
{release}infra: {{max_share: 0.05}}         # more infra repetitions in an arm: the comparison is INVALID
flaky: {{max_share: 0.05}}         # a longer flaky list is INVALID too
escalation: {{runs: 5}}            # repetitions per arm when rerunning the flipped cases
{budget_lines}outcomes:
  prices: {{false_negative: 400, false_positive: 15, inconclusive: 4}}   # mirror: by direction
  limits:
    false_negative_max: baseline     # no more false negatives than the baseline, beyond noise
    zero_false_negative_rules: [{", ".join(zero_false_negative_rules)}]
    inconclusive_max_share: {share}
  fail_on: [{", ".join(fail_on)}]
"""
    )


def flaky_yaml(entries: Iterable[Mapping[str, str]]) -> str:
    items = [
        f"  - case: {e['case']}\n    owner: {e['owner']}\n    added: {e['added']}\n"
        f"    reason: {json.dumps(e['reason'])}\n    evidence: {json.dumps(e['evidence'])}\n"
        for e in entries
    ]
    head = "# Cases left out of b and c until repaired (SPEC §7). Curate from repeated baseline runs.\n"
    return head + ("entries:\n" + "".join(items) if items else "entries: []\n")


def gate_command(workspace: str, gate: str = "gate.yaml") -> str:
    w = f"sample_runs/{workspace}"
    return (
        f"uv run flipgate gate {w}/baseline {w}/candidate \\\n"
        f"    --gate {w}/{gate} --flaky {w}/flaky.yaml"
    )
