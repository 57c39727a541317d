"""The yardstick: generate.py writes sound runs and gate.py counts them
by the spec's rules, checked on a generated pair and on a pair small enough to count by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl

from tests.reference import gate as reference
from tests.reference import generate


def test_generated_pair_adds_up_and_is_deterministic(tmp_path: Path) -> None:
    cases, reps = 400, 3
    generate.generate(tmp_path / "a", cases, reps)
    generate.generate(tmp_path / "b", cases, reps)
    jsonl = tmp_path / "a" / "jsonl"
    result = reference.gate(jsonl / "baseline", jsonl / "candidate")

    paired = cases - len(result["unpaired"])
    assert sum(result["cells"].values()) == paired
    assert (result["b"], result["c"]) == (
        result["cells"]["pass_to_fail"],
        result["cells"]["fail_to_pass"],
    )
    assert len(result["flipped"]) == result["b"] + result["c"]
    # About 5% of cases flip each way, over the flip cap of 10: never a quick PASS.
    assert result["verdict"] in {"BLOCK", "INCONCLUSIVE"}

    for arm in generate.ARMS:
        lines = (jsonl / arm / "results.jsonl").read_text().splitlines()
        infra = sum('"status": "infra"' in line for line in lines)
        assert len(lines) == cases * reps
        assert result["infra"][arm]["count"] == infra
        outcomes = result["outcomes"][arm]
        counts = [outcomes[o] for o in reference.OUTCOMES]
        assert sum(counts) == outcomes["decisions"] == len(generate.RULES) * (len(lines) - infra)

        # The Parquet twin holds the same repetitions, infra ones without decisions.
        frame = pl.read_parquet(tmp_path / "a" / "parquet" / arm / "results.parquet")
        assert frame.height == len(lines)
        assert frame.filter(pl.col("status") == "infra").height == infra
        assert frame["expected"].null_count() == frame["actual"].null_count() == infra
        assert frame.schema["expected"] == pl.Struct({r: pl.String for r in generate.RULES})

        for fmt, results in (("jsonl", "results.jsonl"), ("parquet", "results.parquet")):
            same_seed = [tmp_path / run / fmt / arm / results for run in ("a", "b")]
            assert same_seed[0].read_bytes() == same_seed[1].read_bytes()


def write_run(run_dir: Path, rows: list[dict[str, Any]], **meta: Any) -> Path:
    run_dir.mkdir()
    key = {"model": meta.pop("model", "m1"), "prompt": "p1"}
    run_yaml = {"run_id": run_dir.name, "suite": "full", "key": key, **meta}
    (run_dir / "run.yaml").write_text(json.dumps(run_yaml))  # JSON is YAML
    (run_dir / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return run_dir


def rep(
    case: str, n: int, actual: str | None, *, expected: str = "reject", **extra: Any
) -> dict[str, Any]:
    """One repetition deciding one rule; None makes it an infra repetition, with no decisions."""
    row = {"case": case, "rep": n, **extra}
    if actual is None:
        return {**row, "status": "infra", "infra": "timeout"}
    return {**row, "expected": {"recalled": expected}, "actual": {"recalled": actual}}


def hand_made_pair(tmp_path: Path, safety_slip: bool) -> dict[str, Any]:
    baseline = [
        # pass, pass, fail: a majority passes
        rep("majority", 0, "escalate", expected="escalate"),
        rep("majority", 1, "escalate", expected="escalate"),
        rep("majority", 2, "approve", expected="escalate"),  # mirror, priced as a false negative
        # one of two: a tie fails
        rep("tie", 0, "reject"),
        rep("tie", 1, "escalate"),  # inconclusive
        rep("guard", 0, "approve", expected="approve", safety=True),
        rep("guard", 1, "approve", expected="approve", safety=True),
        rep("gone", 0, "approve"),  # false negative
    ]
    candidate = [
        rep("majority", 0, "approve", expected="escalate"),  # mirror, priced as a false negative
        rep("majority", 1, "reject", expected="escalate"),  # mirror, priced as a false positive
        rep("majority", 2, "escalate", expected="escalate"),
        # the failing repetition is infra now: one of one passes
        rep("tie", 0, "reject"),
        rep("tie", 1, None),
        rep("guard", 0, "approve", expected="approve", safety=True),
        rep("guard", 1, "reject" if safety_slip else "approve", expected="approve", safety=True),
        rep("gone", 0, None),  # no gradable repetition: missing, so unpaired
    ]
    base_dir = write_run(tmp_path / "baseline", baseline)
    cand_dir = write_run(tmp_path / "candidate", candidate, model="m2", change={"keys": ["model"]})
    result: dict[str, Any] = reference.gate(base_dir, cand_dir)
    return result


def test_reference_rules_on_a_pair_counted_by_hand(tmp_path: Path) -> None:
    result = hand_made_pair(tmp_path, safety_slip=False)
    assert result["cells"] == {"both_pass": 1, "both_fail": 0, "pass_to_fail": 1, "fail_to_pass": 1}
    assert (result["b"], result["c"], result["p"]) == (1, 1, 0.75)  # P(X >= 1), X ~ Bin(2, 1/2)
    assert result["flipped"] == [
        {"case": "majority", "direction": "pass_to_fail"},
        {"case": "tie", "direction": "fail_to_pass"},
    ]
    assert result["unpaired"] == ["gone"]
    assert result["key_drift"] == []  # the model moved, as the change declares
    assert result["outcomes"]["baseline"] == {
        "agreement": 5,
        "false_negative": 1,
        "false_positive": 0,
        "inconclusive": 1,
        "mirror": 1,
        "decisions": 8,
        "cost": 400 + 4 + 400,
    }
    assert result["outcomes"]["candidate"] == {
        "agreement": 4,
        "false_negative": 0,
        "false_positive": 0,
        "inconclusive": 0,
        "mirror": 2,
        "decisions": 6,
        "cost": 400 + 15,
    }
    # 2 infra repetitions of 8 is above the 5% an arm may lose: the comparison is invalid.
    assert result["infra"]["candidate"] == {"count": 2, "share": 0.25}
    assert (result["verdict"], result["rule"]) == ("INVALID", "invalid")


def test_reference_safety_rule_runs_before_everything(tmp_path: Path) -> None:
    result = hand_made_pair(tmp_path, safety_slip=True)
    assert (result["verdict"], result["rule"]) == ("BLOCK", "safety")
