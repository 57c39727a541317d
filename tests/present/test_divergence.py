"""Which cases diverge: outputs compared as the who-flipped split compares them, trajectories by
their first divergence, whatever the verdicts; checked case by case on runs made to differ in one
way each, and against a plain reading of the real Inspect agent logs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import yaml

from flipgate.present.divergence import diverged
from flipgate.session import GateRequest, gate, read
from tests.conftest import write_run

INSPECT = Path(__file__).parents[1] / "fixtures" / "inspect"


def turns(*, amount: int, call_id: str) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "refund my order"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": call_id, "name": "refund", "arguments": {"amount": amount}}
        ]},
        {"role": "tool", "tool_call_id": call_id, "content": "done"},
        {"role": "assistant", "content": "Refunded."},
    ]  # fmt: skip


def row(
    case: str, rep: int, output: str, *, amount: int = 10, call_id: str = "a", **more: Any
) -> dict[str, Any]:
    return {
        "case": case,
        "rep": rep,
        "passed": True,
        "output": output,
        "messages": turns(amount=amount, call_id=call_id),
        **more,
    }


def test_each_way_of_differing(tmp_path: Path) -> None:
    baseline = [
        row("same", 0, "ok"),
        row("json-order", 0, '{"a": 1, "b": 2}'),
        row("volatile-id", 0, "ticket T-1001 opened"),
        row("call-id", 0, "ok", call_id="x1"),
        row("tool-path", 0, "ok", amount=10),  # pass/pass: only the tool call changed
        row("output", 0, "refund approved"),
        row("infra", 0, "ok"),
        row("later-rep", 0, "ok"),
        row("later-rep", 1, "ok"),
    ]
    candidate = [
        row("same", 0, "ok"),
        row("json-order", 0, '{"b": 2,  "a": 1}'),
        row("volatile-id", 0, "ticket T-2002 opened"),
        row("call-id", 0, "ok", call_id="y9"),
        row("tool-path", 0, "ok", amount=180),
        row("output", 0, "refund declined"),
        {"case": "infra", "rep": 0, "status": "infra", "infra": "timeout", "output": "boom"},
        row("later-rep", 0, "ok"),
        row("later-rep", 1, "ok", amount=99),
    ]
    runs = [
        write_run(tmp_path / arm, rows, key={"prompt": arm})
        for arm, rows in (("baseline", baseline), ("candidate", candidate))
    ]
    spec = tmp_path / "gate.yaml"
    spec.write_text(yaml.safe_dump({"outputs": {"volatile": [r"T-\d+"]}}))
    comparison = gate(read(GateRequest.of(runs, gate=spec, change=("prompt",))))
    found = {r["case"]: (r["output"], r["trajectory"]) for r in diverged(comparison).to_dicts()}
    assert found == {
        "tool-path": (False, True),
        "output": (True, False),
        "later-rep": (False, True),
    }
    # among some cases: what the whole search finds of them, and only they are looked at
    among = pl.Series(["tool-path", "same", "later-rep"])
    aligned: list[int] = []
    some = diverged(comparison, lambda done, total: aligned.append(total), among)
    assert dict(zip(some["case"], some["trajectory"], strict=True)) == {
        "tool-path": True,
        "later-rep": True,
    }
    assert aligned == [2]  # the two pairs of those cases whose trajectories differ in text


def agent_acts(messages: str | None) -> list[tuple[str, str, str]]:
    """A plain reading of a trajectory: what the agent said and called, in order, call ids
    aside; none when the repetition stored no trajectory."""
    acts = []
    for turn in json.loads(messages or "[]"):
        if turn["role"] in ("assistant", "tool"):
            calls = [
                (c["name"], json.dumps(c.get("arguments"), sort_keys=True))
                for c in turn.get("tool_calls") or []
            ]
            acts.append((turn["role"], turn.get("content") or "", json.dumps(calls)))
    return acts


def test_the_real_agent_logs_against_a_plain_reading() -> None:
    """On Inspect's own agent logs: a case diverges where some repetition graded in both arms
    has another output (whitespace aside) or another sequence of agent acts."""
    comparison = gate(read(GateRequest.of((INSPECT / "baseline.eval", INSPECT / "candidate.eval"))))
    pairs = []
    for arm in ("baseline", "candidate"):
        graded = comparison.reps[arm].filter(pl.col("passed").is_not_null()).select("case", "rep")
        run = comparison.run(arm)
        stored = run.texts.beside(run.reps.join(graded, on=["case", "rep"], how="semi"))
        pairs.append({(r["case"], r["rep"]): r for r in stored.to_dicts()})
    plain = {
        case
        for (case, rep), base in pairs[0].items()
        if (cand := pairs[1].get((case, rep))) is not None
        and (
            " ".join((base["output"] or "").split()) != " ".join((cand["output"] or "").split())
            or agent_acts(base["messages"]) != agent_acts(cand["messages"])
        )
    }
    found = diverged(comparison)
    assert set(found["case"]) == plain
    both_pass = set(comparison.cases.filter(pl.col("cell") == "both_pass")["case"])
    assert plain & both_pass  # the real logs hold pass/pass cases whose path changed
