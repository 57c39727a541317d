"""Plain readings of each tool's output, written for the tests and sharing nothing with the
importers: what each repetition of each case is (pass, fail or infra), read the obvious way from
the tool's own verdict fields, and the gate's count and verdict done by hand (SPEC §3, the
default gate.yaml), so that `flipgate import` and `gate` are checked against an independent
reckoning.
"""

from __future__ import annotations

import gzip
import json
import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PASS, FAIL, INFRA = "pass", "fail", "infra"


@dataclass
class Plain:
    """One arm, read plainly: (case, rep) -> pass/fail/infra, the safety cases, the cached reps;
    what the tool says it planned (case -> repetitions; empty: it does not say), the repetitions
    someone excluded, and whether the run finished (None: the tool does not say)."""

    reps: dict[tuple[str, int], str] = field(default_factory=dict)
    safety: set[str] = field(default_factory=set)
    cached: set[tuple[str, int]] = field(default_factory=set)
    planned: dict[str, int] = field(default_factory=dict)
    excluded: set[tuple[str, int]] = field(default_factory=set)
    finished: bool | None = None

    def cases(self) -> set[str]:
        """Every case the arm knows: run, planned or excluded."""
        return {case for case, _ in self.reps} | set(self.planned) | {c for c, _ in self.excluded}

    def lacking(self) -> set[str]:
        """The cases with fewer repetitions (run or excluded) than planned."""
        held = Counter(case for case, _ in (*self.reps, *self.excluded))
        return {case for case, n in self.planned.items() if held[case] < n}


def inspect_json(path: Path) -> dict[str, Any]:
    """An Inspect JSON log, gzipped in the fixtures or not."""
    data = path.read_bytes()
    doc: dict[str, Any] = json.loads(gzip.decompress(data) if path.suffix == ".gz" else data)
    return doc


def inspect(doc: dict[str, Any]) -> Plain:
    """Inspect: a sample errored or stopped by the clock is infra; one a grader could not score
    (NaN) is infra; one stopped by another limit fails; else every scorer must say C or 1. The
    run finished when its status is `success`; it planned each sample id `epochs` times; an
    invalidated sample is excluded."""
    epochs = doc["eval"]["config"].get("epochs") or 1
    plain = Plain(
        planned={str(i): epochs for i in doc["eval"]["dataset"]["sample_ids"]},
        finished=doc["status"] == "success",
    )
    for sample in doc.get("samples") or []:
        key = (str(sample["id"]), sample["epoch"] - 1)
        if sample.get("invalidation"):
            plain.excluded.add(key)
            continue
        if sample["metadata"].get("safety"):
            plain.safety.add(key[0])
        if any(e.get("event") == "model" and e.get("cache") == "read" for e in sample["events"]):
            plain.cached.add(key)
        limit = (sample.get("limit") or {}).get("type")
        values = [s["value"] for s in (sample.get("scores") or {}).values()]
        unscored = any(isinstance(v, float) and math.isnan(v) for v in values)
        if sample.get("error") or limit in ("time", "working") or unscored:
            plain.reps[key] = INFRA
        elif limit is not None:
            plain.reps[key] = FAIL
        else:
            plain.reps[key] = PASS if all(v in ("C", 1, 1.0, True) for v in values) else FAIL
    return plain


def promptfoo(doc: dict[str, Any], prompt: str) -> Plain:
    """promptfoo: the rows of one prompt (its short label); a row's `success`; a provider error
    is infra. A test is its index: testIdx // repeat. It planned every test of the config
    `repeat` times for every prompt, and finished when no row is missing."""
    repeat = doc["runtimeOptions"]["repeat"]
    tests, prompts = len(doc["config"]["tests"]), len(doc["results"]["prompts"])
    plain = Plain(
        planned={f"t{i}": repeat for i in range(tests)},
        finished=len(doc["results"]["results"]) == tests * prompts * repeat,
    )
    for row in doc["results"]["results"]:
        if row["prompt"]["label"].split(":")[0] != prompt:
            continue
        key = (f"t{row['testIdx'] // repeat}", row["testIdx"] % repeat)
        if row["testCase"].get("metadata", {}).get("safety"):
            plain.safety.add(key[0])
        plain.reps[key] = INFRA if row["failureReason"] == 2 else (PASS if row["success"] else FAIL)
    return plain


def lm_eval(folder: Path) -> Plain:
    """lm-eval: a document passes when every metric on every line of it is 1."""
    values: defaultdict[tuple[str, int], list[float]] = defaultdict(list)
    for samples in folder.glob("samples_*.jsonl"):
        task = samples.name.removeprefix("samples_").rsplit("_", 1)[0]
        for line in samples.read_text().splitlines():
            row = json.loads(line)
            values[(f"{task}/{row['doc_id']}", 0)].extend(row[m] for m in row["metrics"])
    return Plain({key: PASS if all(v == 1 for v in vs) else FAIL for key, vs in values.items()})


def deepeval(doc: dict[str, Any]) -> Plain:
    """DeepEval: a test case whose metric errored is infra; else its own `success`."""
    plain = Plain()
    for case in doc["testCases"]:
        errored = any(m.get("error") for m in case["metricsData"])
        plain.reps[(case["name"], 0)] = INFRA if errored else (PASS if case["success"] else FAIL)
    return plain


# --- the gate, by hand ---------------------------------------------------------------------------

ALPHA, MARGIN, FLIP_CAP, INFRA_SHARE = 0.05, 2, 10, 0.05  # the defaults of a full suite
FIRST_LOOK = ALPHA / 2  # `looks: spend`: a change's first look blocks at half of alpha


@dataclass(frozen=True)
class Count:
    b: int
    c: int
    verdict: str


def collapse(plain: Plain) -> dict[str, bool]:
    """Case -> pass over its gradable repetitions: a strict majority, or all for a safety case."""
    graded: defaultdict[str, list[bool]] = defaultdict(list)
    for (case, _), state in plain.reps.items():
        if state != INFRA:
            graded[case].append(state == PASS)
    return {
        case: all(reps) if case in plain.safety else 2 * sum(reps) > len(reps)
        for case, reps in graded.items()
    }


def gate(baseline: Plain, candidate: Plain, *, allow_partial: bool = False) -> Count:
    """b, c and the verdict of the default gate on two plain arms (labels and budgets aside).

    A case lacking planned repetitions, or with some excluded, is counted in neither b nor c; a
    run that did not finish, or lacks repetitions, makes the comparison invalid, or with
    `allow_partial` at best inconclusive."""
    arms = (baseline, candidate)
    left_out = set().union(*(arm.lacking() | {case for case, _ in arm.excluded} for arm in arms))
    base, cand = collapse(baseline), collapse(candidate)
    paired = sorted(set(base) & set(cand) - left_out)
    b = sum(base[case] and not cand[case] for case in paired)
    c = sum(cand[case] and not base[case] for case in paired)
    safety = baseline.safety | candidate.safety
    safety_failed = any(
        state == FAIL for (case, _), state in candidate.reps.items() if case in safety
    ) or any(case not in cand for case in safety)
    infra = [Counter(arm.reps.values()) for arm in (baseline, candidate)]
    partial = any(arm.finished is False or arm.lacking() for arm in arms)
    invalid = (
        any(count[INFRA] > INFRA_SHARE * sum(count.values()) for count in infra)
        or bool(candidate.cached)
        or any(case not in candidate.cases() for case in baseline.cases())
        or (partial and not allow_partial)
    )
    n = b + c
    p = sum(math.comb(n, k) for k in range(b, n + 1)) / 2**n if n else 1.0
    if safety_failed:
        verdict = "BLOCK"
    elif invalid:
        verdict = "INVALID"
    elif p <= FIRST_LOOK:
        verdict = "BLOCK"
    elif partial:
        verdict = "INCONCLUSIVE"
    elif b - c <= MARGIN and b <= FLIP_CAP:
        verdict = "PASS"
    else:
        verdict = "INCONCLUSIVE"
    return Count(b, c, verdict)
