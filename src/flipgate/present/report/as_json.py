"""The gate result as JSON (SPEC §8's object and what docs/gate.md adds): every reason both as the
sentence scripts have read since the start (`invalid_reasons`, `warnings`, ...) and, beside it, as
an object with its stable code, that sentence as `message`, and its values (`invalid`,
`notices`, ...; docs/json.md lists every code)."""

from __future__ import annotations

from typing import Any

from flipgate.core.gate.budgets import BudgetCheck
from flipgate.core.gate.compare import Comparison, GateResult
from flipgate.core.gate.ledger import Ledger
from flipgate.core.gate.looks import plain_measured
from flipgate.core.gate.stats import Effect
from flipgate.core.io.remote import where
from flipgate.core.vocab import ARMS, UNPAIRED_STATES
from flipgate.present.judge import judge_json
from flipgate.present.next_step import next_step
from flipgate.present.outcomes import outcome_json
from flipgate.present.reasons import reason_json, sentence, summary
from flipgate.present.reasons.invalid import BASE_FILE_WORDS, base_words
from flipgate.present.reasons.words import when
from flipgate.present.report.shared import failing, registration_line
from flipgate.present.run_notes import note_words
from flipgate.present.sources import sources_json
from flipgate.present.text import json_text

__all__ = ["json_text", "to_json"]


def to_json(comparison: Comparison) -> dict[str, Any]:
    """SPEC §8's object, plus what a reviewer or a dashboard needs beside it."""
    result = comparison.result
    data = _result_json(result, dict(zip(ARMS, failing(comparison), strict=True)))
    data["key"] = {arm: comparison.run(arm).key for arm in ARMS}
    labels = comparison.candidate.labels  # the mirrors' directions are named by these
    data["labels"] = {
        "negative": labels.negative,
        "positive": labels.positive,
        "abstain": labels.abstain,
    }
    looks = comparison.spec.looks
    data["looks"] = {
        "rule": looks.rule,
        "share": looks.share,
        "look": result.look,
        "boundary": result.blocks_at if result.family is None else result.family.level,
        "spent": looks.spent(result.alpha, result.look),
    }
    if (family := result.family) is not None:  # the paths to BLOCK and what each was held to
        data["family"] = {
            "rule": family.rule,
            "level": family.level,
            "paths": [
                {
                    "kind": path.kind,
                    "metric": path.metric,
                    "p": path.p,
                    "boundary": path.boundary,
                    "blocks": path.blocks,
                }
                for path in family.paths
            ],
        }
    if looks.rule == "plain":
        size, rate, error = plain_measured(result.paired, result.p_by == "template")
        data["looks"]["measured_false_block"] = {"cases": size, "rate": rate, "error": error}
    if result.retired:  # given a suite manifest (suite.yaml) with an archive
        data["retired"] = [
            {"case": r.case, "retired": r.retired.isoformat(), "reason": r.reason}
            for r in result.retired
        ]
        data["retired_flipped"] = list(result.retired_flipped)
    data["runs"] = {
        arm: {
            "run_id": comparison.run(arm).run_id,
            "path": where(comparison.run(arm).path),
            "key": comparison.run(arm).key,
            "format": comparison.run(arm).source_format,
            "notes": [note_words(note) for note in comparison.run(arm).notes],
        }
        for arm in ARMS
    }
    if result.previous is not None:
        data["previous"] = _result_json(result.previous, {})
    data["judge_repeats"] = [judge_json(repeats) for repeats in comparison.judge_repeats]
    if comparison.rerun_price is not None and data["escalation"] is not None:
        data["escalation"]["price"] = comparison.rerun_price.to_data()
    data["registration"] = _registration_json(comparison)
    data["attempt"] = _attempt_json(result)
    return data


def _registration_json(comparison: Comparison) -> dict[str, Any]:
    """`{code: registered | not_registered, message, ...}`: the rule the gate was held to."""
    registration = comparison.result.registration
    message = registration_line(comparison)
    if registration is None:
        return {"code": "not_registered", "message": message}
    return {
        "code": "registered",
        "message": message,
        "registered": when(registration.registered),
        "signer": registration.signer,
        "file": str(registration.path),
        "digest": registration.digest,
        "before_run": comparison.candidate.run_id,
    }


def _attempt_json(result: GateResult) -> dict[str, Any] | None:
    """Which attempt at its change this gate is (null: no ledger)."""
    earlier = result.earlier
    if earlier is None:
        return None
    return {
        "change_id": earlier.change_id,
        "attempt": earlier.attempt,
        "look": earlier.look,
        "earlier": list(earlier.verdicts),
        "refusing": list(earlier.refusing),
    }


def _budget_json(check: BudgetCheck) -> dict[str, Any]:
    budget = check.budget
    return {
        "metric": budget.metric,
        "stat": budget.stat,
        "max": budget.max,
        "max_increase": budget.max_increase,
        "baseline": check.baseline,
        "candidate": check.candidate,
        "limit": check.limit,
        "exceeded": check.exceeded,
        "summary": sentence(check),
        "code": check.code,
        "message": sentence(check),
        "noise": None
        if (noise := check.noise) is None
        else {
            "ratio": noise.ratio,
            "reaches": noise.noise,
            "p": noise.p(budget.max_increase or 0.0),
            "alpha": noise.alpha,
            "swaps": len(noise.ratios),
            "exact": noise.exact,
            "seed": noise.seed,
        },
    }


def _result_json(result: GateResult, failing: dict[str, int]) -> dict[str, Any]:
    """The result's fields; `failing`: each arm's cases failing by the gate's rule, where known."""
    escalation = result.escalation
    return {
        "verdict": result.verdict,
        "rule": result.rule,
        "summary": summary(result),
        "cells": dict(result.cells),
        "b": result.b,
        "c": result.c,
        "p": result.p,
        "alpha": result.alpha,
        "suite": result.suite,
        "margin": result.margin,
        "flip_cap": result.flip_cap,
        "flipped": _flipped_json(result),
        "flip_sources": sources_json(result.sources),
        "unpaired": [u.case for u in result.unpaired],
        "unpaired_reasons": {u.case: sentence(u) for u in result.unpaired},
        "unpaired_states": [reason_json(u) for u in result.unpaired],
        "ledger": _ledger_json(result.ledger),
        "allow_partial": result.allow_partial,
        "infra": {
            arm: {"count": s.count, "share": s.share, "reps": s.reps, "by_kind": s.by_kind}
            for arm, s in result.infra.items()
        },
        "outcomes": {arm: outcome_json(o, failing.get(arm)) for arm, o in result.outcomes.items()},
        "key_drift": list(result.key_drift),
        "key_moved": list(result.key_moved),
        "declared_change": list(result.declared_change),
        "safety_failures": list(result.safety_failures),
        "invalid_reasons": [sentence(r) for r in result.invalid_reasons],
        "invalid": [reason_json(r) for r in result.invalid_reasons],
        "limit_breaches": [sentence(r) for r in result.limit_breaches],
        "limits_exceeded": [reason_json(r) for r in result.limit_breaches],
        "false_negatives": None
        if result.false_negatives is None
        else {**reason_json(result.false_negatives), "excess": result.false_negatives.excess},
        "safety_bound": None if result.safety_bound is None else reason_json(result.safety_bound),
        "budgets": [_budget_json(check) for check in result.budgets],
        "changes": {
            "edited": {
                case: [sentence(edit) for edit in edits]
                for case, edits in result.changes.edited.items()
            },
            "edits": {
                case: [reason_json(edit) for edit in edits]
                for case, edits in result.changes.edited.items()
            },
            "deleted": list(result.changes.deleted),
            "new": list(result.changes.new),
            "cached": {
                arm: {case: {"cached": n, "reps": of} for case, (n, of) in found.items()}
                for arm, found in result.changes.cached.items()
            },
            "entries": [reason_json(entry) for entry in result.changes.entries()],
        },
        "base": {
            "where": base_words(result.base.where),
            "unchecked": [BASE_FILE_WORDS[u][0] for u in result.base.unchecked],
            "unchecked_files": list(result.base.unchecked),
            "not_found_files": [file for file, _ in result.base.not_found],
            "loosened": [sentence(setting) for setting in result.base.loosened],
            "loosenings": [reason_json(setting) for setting in result.base.loosened],
            "flaky_added": list(result.base.flaky_added),
        },
        "flaky": {
            "size": len(result.flaky_listed),
            "flipped": list(result.flaky_flipped),
            "unknown": list(result.flaky_unknown),
            "digest": result.flaky_digest,
        },
        "spec_digest": result.spec_digest,
        "effect": None if result.effect is None else _effect_json(result.effect),
        "power": result.power.to_json(),
        "clusters": _clusters_json(result),
        "escalation": None
        if escalation is None
        else {
            "action": escalation.action,
            "message": next_step(escalation),
            "cases": list(escalation.cases),
            "runs": escalation.runs,
            "boundary": escalation.boundary,
            "level": escalation.level,
            "paths": escalation.paths,
        },
        "warnings": [sentence(w) for w in result.warnings],
        "notices": [reason_json(w) for w in result.warnings],
    }


def _flipped_json(result: GateResult) -> list[dict[str, Any]]:
    """Each counted flip, with who flipped it (`model`, `grader`, `unknown`) when it was read."""
    sources = result.sources
    if sources is None:
        return [{"case": case, "direction": d} for case, d in result.flipped]
    by_case = dict(zip(sources.cases["case"], sources.cases["source"], strict=True))
    return [{"case": case, "direction": d, "source": by_case[case]} for case, d in result.flipped]


def _ledger_json(ledger: Ledger) -> dict[str, Any]:
    """The case ledger: per arm its cases by state (adding up to `cases`), those left out by
    state, and what its run holds and lacks; then how the paired cases reach the cells."""
    return {
        "balanced": ledger.balanced,
        **{
            arm: {
                "cases": arm_ledger.cases,
                "states": dict(arm_ledger.states),
                "left_out": {s: list(arm_ledger.left_out.get(s, ())) for s in UNPAIRED_STATES},
                "run": {
                    "finished": arm_ledger.finished,
                    "status": arm_ledger.status,
                    "detail": arm_ledger.detail,
                    "planned": arm_ledger.planned,
                    "present": arm_ledger.reps,
                    "errored": arm_ledger.errored,
                    "excluded": arm_ledger.excluded,
                    "missing": arm_ledger.missing,
                },
            }
            for arm, arm_ledger in ledger.arms.items()
        },
        "paired": {"counted": ledger.counted, "flaky": ledger.flaky, "retired": ledger.retired},
    }


def _effect_json(effect: Effect) -> dict[str, Any]:
    return {
        "points": effect.points,
        "low": effect.low,
        "high": effect.high,
        "method": effect.method,
        "level": effect.level,
        "one_sided": effect.one_sided,
        "design_effect": effect.design_effect,
        "matched": effect.matched,
        "rules_out": effect.rules_out,
    }


def _clusters_json(result: GateResult) -> dict[str, Any]:
    clusters = result.clusters
    top = clusters.concentrated
    return {
        "by": result.p_by,
        "p_by_case": clusters.p_by_case,
        "p_by_template": clusters.p_by_template,
        "clusters_flipped": clusters.clusters,
        "templates": [
            {"template": t.template, "pass_to_fail": t.broke, "fail_to_pass": t.fixed}
            for t in clusters.templates
        ],
        "without_template": {"pass_to_fail": clusters.loose[0], "fail_to_pass": clusters.loose[1]},
        "concentrated": None if top is None else top.template,
    }
