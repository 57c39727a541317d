"""Writes a deterministic baseline/candidate pair of runs (SPEC section 2) for the benchmarks and tests.

The pair is built to make the gate do all of its work: a few safety cases that the candidate
passes (so the safety rule does not end the count early), about 1% infra repetitions (under the
5% that would make the comparison INVALID), about 5% of cases flipping each way (so the verdict is
BLOCK or INCONCLUSIVE, never a quick PASS), a cautious candidate that escalates more and waves
fewer violations through, reasons on some decisions and short stored outputs.

    python tests/reference/generate.py --out DIR [--cases 100000] [--reps 3] [--seed N]
                                       [--formats jsonl,parquet]

writes DIR/{jsonl,parquet}/{baseline,candidate}/ with run.yaml and results.jsonl / .parquet,
a chunk of lines at a time (a 3M-case pair in about 4 GB).
Everything is drawn from one seeded numpy generator, so the same arguments give the same bytes.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import numpy.typing as npt
import polars as pl
import pyarrow.parquet as pq
import yaml

from flipgate.core.io.atomic import write_atomic

RULES = ("prohibited_items", "recalled_products", "misleading_claims", "off_platform_contact")
# Label codes: 0 is the negative label, 1 the positive one, 2 the abstain one.
LABELS = ("approve", "reject", "escalate")
APPROVE, REJECT, ESCALATE = 0, 1, 2
ARMS = ("baseline", "candidate")
FORMATS = ("jsonl", "parquet")
DEFAULT_SEED = 20261120

EXPECTED_SHARES = (0.80, 0.14, 0.06)  # approve, reject, escalate
SAFETY_SHARE = 0.01
INFRA_SHARE = 0.01
# Case fate across the arms: both pass, both fail, pass -> fail, fail -> pass.
FATE_SHARES = (0.80, 0.10, 0.05, 0.05)
SAFETY_BASELINE_FAIL_SHARE = 0.10
SPLIT_SHARE = 0.10  # cases whose repetitions disagree within an arm
WRONG_PER_FAILING_REP = (0.75, 0.20, 0.05)  # 1, 2 or 3 wrong decisions
# How often a wrong decision on a decisive expected label is an escalation: the candidate is the
# cautious model of seed 000, trading waved-through violations for questions to a human.
ESCALATE_WHEN_WRONG = {"baseline": 0.30, "candidate": 0.60}
# An approve rarely carries a reason; a reject or an escalation mostly does.
REASON_ON_APPROVE = 0.05
REASON_ON_OTHERS = 0.90
INFRA_KINDS = ("timeout", "rate_limit", "crash")

KEY = {
    "model": "lr-2026-07",
    "prompt": "prompts@4f2a1c",
    "tools": "tools@91bd0e",
    "judge": "none",
    "eval_set": "suite@v14",
    "harness": "harness@2.3.1",
}
CANDIDATE_MODEL = "lr-2026-10"
OPENERS = (
    "Checked title, price and photos",
    "Listing read against the policy",
    "Reviewed description and seller",
    "Compared with category rules",
)
RULE_SUBJECTS = ("item category", "recall notices", "claims in title", "contact details")
LABEL_REASONS = {
    APPROVE: ("nothing against policy", "within the rules"),
    REJECT: ("clear match with the ban", "listed as a violation"),
    ESCALATE: ("unclear from the text", "needs a human look"),
}

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class Arm:
    """One arm's repetitions, case-major: row i is case i // reps, repetition i % reps."""

    name: str
    expected: IntArray  # (rows, rules) label codes; not written on infra rows
    actual: IntArray  # (rows, rules) label codes; not written on infra rows
    infra: BoolArray  # (rows,)
    infra_kind: IntArray  # (rows,) index into INFRA_KINDS
    reason_mask: BoolArray  # (rows, rules)
    reason_variant: IntArray  # (rows, rules) 0 or 1
    opener: IntArray  # (rows,) index into OPENERS
    latency_ms: IntArray
    cost_usd: npt.NDArray[np.float64]
    steps: IntArray


@dataclass(frozen=True)
class Suite:
    cases: int
    reps: int
    seed: int
    case_ids: list[str]
    templates: list[str]  # cases cloned from one template share it
    safety: BoolArray  # (cases,)
    arms: tuple[Arm, Arm]


def failing_reps(
    rng: np.random.Generator, passes: BoolArray, safety: BoolArray, reps: int
) -> IntArray:
    """How many repetitions fail, so that collapsing (SPEC 3.1) gives the case its intended fate."""
    n = passes.size
    split = rng.random(n) < SPLIT_SHARE
    # A passing ordinary case may hold a failing minority; a passing safety case holds none.
    minority_max = (reps - 1) // 2
    minority = rng.integers(1, minority_max + 1, n) if minority_max else np.zeros(n, np.int64)
    k_pass = np.where(split & ~safety, minority, 0)
    # A failing case needs a failing half (a tie fails); one failure is enough for a safety case.
    least = np.where(safety, 1, (reps + 1) // 2)
    k_fail = np.where(split, rng.integers(least, reps + 1), reps)
    return np.where(passes, k_pass, k_fail).astype(np.int64)


def ranks(rng: np.random.Generator, shape: tuple[int, int]) -> IntArray:
    """A random permutation of 0..shape[1]-1 in every row, to pick which members are hit."""
    return np.argsort(np.argsort(rng.random(shape), axis=1), axis=1)


def build_arm(
    rng: np.random.Generator,
    name: str,
    expected_case: IntArray,
    safety: BoolArray,
    passes: BoolArray,
    reps: int,
) -> Arm:
    cases = safety.size
    rows = cases * reps
    fails = ranks(rng, (cases, reps)) < failing_reps(rng, passes, safety, reps)[:, None]
    expected = np.repeat(expected_case, reps, axis=0)

    n_wrong = rng.choice(np.arange(1, 4), size=rows, p=WRONG_PER_FAILING_REP)
    wrong = fails.reshape(-1)[:, None] & (ranks(rng, (rows, len(RULES))) < n_wrong[:, None])
    escalates = rng.random(expected.shape) < ESCALATE_WHEN_WRONG[name]
    # Wrong on an abstain label is a mirror (decided either way); otherwise escalate or flip sides.
    wrong_label = np.where(
        expected == ESCALATE,
        rng.integers(APPROVE, REJECT + 1, expected.shape),
        np.where(escalates, ESCALATE, 1 - expected),
    )
    actual = np.where(wrong, wrong_label, expected)

    infra = rng.random(rows) < INFRA_SHARE
    if name == "candidate":
        # Every safety case keeps gradable candidate repetitions, so the safety rule passes.
        infra &= ~np.repeat(safety, reps)

    reason_share = np.where(actual == APPROVE, REASON_ON_APPROVE, REASON_ON_OTHERS)
    latency = np.round(rng.lognormal(6.6, 0.4, rows)).astype(np.int64)
    return Arm(
        name=name,
        expected=expected,
        actual=actual,
        infra=infra,
        infra_kind=rng.integers(0, len(INFRA_KINDS), rows),
        reason_mask=rng.random(actual.shape) < reason_share,
        reason_variant=rng.integers(0, 2, actual.shape),
        opener=rng.integers(0, len(OPENERS), rows),
        latency_ms=np.where(infra, 30_000, latency),
        cost_usd=np.where(infra, 0.0, np.round(latency * 2.5e-6, 6)),
        steps=np.where(infra, 0, rng.integers(1, 7, rows)),
    )


def build_suite(cases: int, reps: int, seed: int) -> Suite:
    rng = np.random.default_rng(seed)
    safety = rng.random(cases) < SAFETY_SHARE
    expected_case = rng.choice(3, size=(cases, len(RULES)), p=EXPECTED_SHARES)
    fate = rng.choice(4, size=cases, p=FATE_SHARES)
    baseline_passes = (fate == 0) | (fate == 2)
    candidate_passes = (fate == 0) | (fate == 3)
    # Safety cases pass on the candidate; some of them failed on the baseline.
    baseline_passes = np.where(
        safety, rng.random(cases) >= SAFETY_BASELINE_FAIL_SHARE, baseline_passes
    )
    candidate_passes |= safety
    templates = [f"tpl-{t:04d}" for t in rng.integers(0, max(1, cases // 25), cases).tolist()]
    arms = (
        build_arm(rng, "baseline", expected_case, safety, baseline_passes, reps),
        build_arm(rng, "candidate", expected_case, safety, candidate_passes, reps),
    )
    # Zero-padded to one width, so that the ids sort as the cases are written (as most runs are
    # written): past a million, `case-1000000` sorted before `case-200000`.
    width = max(6, len(str(cases - 1)))
    case_ids = [f"case-{i:0{width}d}" for i in range(cases)]
    return Suite(cases, reps, seed, case_ids, templates, safety, arms)


def combo(codes: IntArray, base: int) -> IntArray:
    """The per-rule codes of each row as one number in `base`, to look up pre-encoded JSON."""
    out = np.zeros(codes.shape[0], np.int64)
    for j in range(codes.shape[1]):
        out = out * base + codes[:, j]
    return out


def digits(code: int, base: int) -> list[int]:
    """The per-rule codes packed by combo, back out."""
    out = []
    for _ in RULES:
        code, digit = divmod(code, base)
        out.append(digit)
    return out[::-1]


def reason_text(rule: int, label: int, variant: int) -> str:
    return f"{RULE_SUBJECTS[rule]}: {LABEL_REASONS[label][variant]}"


@cache
def decisions_json(label_code: int) -> str:
    return json.dumps(
        {rule: LABELS[d] for rule, d in zip(RULES, digits(label_code, 3), strict=True)}
    )


@cache
def reasons_json(label_code: int, mask_code: int, variant_code: int) -> str:
    """The `reasons` member, or nothing when no decision of the repetition gives one."""
    labels, mask, variants = digits(label_code, 3), digits(mask_code, 2), digits(variant_code, 2)
    reasons = {
        rule: reason_text(j, labels[j], variants[j]) for j, rule in enumerate(RULES) if mask[j]
    }
    return f'"reasons": {json.dumps(reasons)}, ' if reasons else ""


@cache
def output_json(opener: int, label_code: int) -> str:
    labels = "/".join(LABELS[d] for d in digits(label_code, 3))
    return json.dumps(f"{OPENERS[opener]}: {labels}")


def jsonl_lines(suite: Suite, arm: Arm, rows: slice) -> list[str]:
    """One JSON line per (case, rep) of `rows`, assembled from cached fragments (few are
    distinct)."""
    shown = arm.reason_mask[rows].astype(np.int64)
    columns = zip(
        combo(arm.expected[rows], 3).tolist(),
        combo(arm.actual[rows], 3).tolist(),
        combo(shown, 2).tolist(),
        combo(shown * arm.reason_variant[rows], 2).tolist(),
        arm.infra[rows].tolist(),
        arm.infra_kind[rows].tolist(),
        arm.opener[rows].tolist(),
        arm.latency_ms[rows].tolist(),
        arm.cost_usd[rows].tolist(),
        arm.steps[rows].tolist(),
        strict=True,
    )
    safety = ["true" if s else "false" for s in suite.safety.tolist()]
    lines = []
    for row, fields in enumerate(columns, start=rows.start):
        expected, actual, mask, variant, infra, kind, opener, latency, cost, steps = fields
        case, rep = divmod(row, suite.reps)
        head = (
            f'{{"case": "{suite.case_ids[case]}", "rep": {rep}, "safety": {safety[case]}, '
            f'"template": "{suite.templates[case]}", '
        )
        tail = f'"latency_ms": {latency}, "cost_usd": {cost!r}, "steps": {steps}}}'
        if infra:
            # An infra repetition produced nothing gradable: it carries no decisions.
            lines.append(f'{head}"status": "infra", "infra": "{INFRA_KINDS[kind]}", {tail}')
            continue
        lines.append(
            f'{head}"expected": {decisions_json(expected)}, "actual": {decisions_json(actual)}, '
            f'{reasons_json(actual, mask, variant)}"output": {output_json(opener, actual)}, {tail}'
        )
    return lines


def decoded(column: str, texts: list[str]) -> pl.Expr:
    """An integer code column turned into the text it stands for."""
    return pl.col(column).replace_strict(list(range(len(texts))), texts, return_dtype=pl.String)


def results_frame(suite: Suite, arm: Arm, rows: slice) -> pl.DataFrame:
    """The same rows as jsonl_lines, with expected/actual/reasons as one-field-per-rule structs."""
    row = np.arange(rows.start, rows.stop)
    case_index = row // suite.reps
    # Reason code of a decision: its actual label and variant, 2 * label + variant.
    reason_texts = [
        [reason_text(j, code // 2, code % 2) for code in range(6)] for j in range(len(RULES))
    ]
    codes = pl.DataFrame(
        {
            "case": pl.Series(suite.case_ids)[case_index],
            "rep": row % suite.reps,
            "safety": suite.safety[case_index],
            "template": pl.Series(suite.templates)[case_index],
            "infra": arm.infra[rows],
            "infra_kind": arm.infra_kind[rows],
            **{f"e{j}": arm.expected[rows, j] for j in range(len(RULES))},
            **{f"a{j}": arm.actual[rows, j] for j in range(len(RULES))},
            **{
                f"r{j}": 2 * arm.actual[rows, j] + arm.reason_variant[rows, j]
                for j in range(len(RULES))
            },
            **{f"m{j}": arm.reason_mask[rows, j] for j in range(len(RULES))},
            "opener": arm.opener[rows],
            "latency_ms": arm.latency_ms[rows],
            "cost_usd": arm.cost_usd[rows],
            "steps": arm.steps[rows],
        }
    )
    ok = ~pl.col("infra")
    expected = [decoded(f"e{j}", list(LABELS)).alias(rule) for j, rule in enumerate(RULES)]
    actual = [decoded(f"a{j}", list(LABELS)).alias(rule) for j, rule in enumerate(RULES)]
    reasons = [
        pl.when(pl.col(f"m{j}")).then(decoded(f"r{j}", reason_texts[j])).alias(rule)
        for j, rule in enumerate(RULES)
    ]
    return codes.select(
        "case",
        "rep",
        "safety",
        "template",
        pl.when(ok).then(pl.lit("ok")).otherwise(pl.lit("infra")).alias("status"),
        pl.when(~ok).then(decoded("infra_kind", list(INFRA_KINDS))).alias("infra"),
        pl.when(ok).then(pl.struct(expected)).alias("expected"),
        pl.when(ok).then(pl.struct(actual)).alias("actual"),
        pl.when(ok).then(pl.struct(reasons)).alias("reasons"),
        pl.when(ok)
        .then(
            pl.concat_str(
                [decoded("opener", list(OPENERS)), pl.concat_str(actual, separator="/")],
                separator=": ",
            )
        )
        .alias("output"),
        "latency_ms",
        "cost_usd",
        "steps",
    )


def run_meta(suite: Suite, arm: Arm) -> dict[str, object]:
    meta: dict[str, object] = {
        "run_id": f"bench-{arm.name}-{suite.cases}x{suite.reps}-s{suite.seed}",
        "suite": "full",
        "created": "2026-11-20T09:12:00Z",
    }
    key = dict(KEY)
    if arm.name == "candidate":
        meta["change"] = {"keys": ["model"], "summary": "upgrade reviewer model to lr-2026-10"}
        key["model"] = CANDIDATE_MODEL
    meta["key"] = key
    meta["labels"] = dict(zip(("negative", "positive", "abstain"), LABELS, strict=True))
    # Kept as an unknown field (SPEC 2): lets the bench runner tell whether data fits its size.
    meta["generator"] = {"cases": suite.cases, "reps": suite.reps, "seed": suite.seed}
    return meta


CHUNK_ROWS = 600_000  # lines serialised at a time: a 3M-case pair made whole took 25 GB


def chunks(rows: int) -> Iterator[slice]:
    return (slice(at, min(at + CHUNK_ROWS, rows)) for at in range(0, rows, CHUNK_ROWS))


@contextmanager
def replaced(path: Path) -> Iterator[Path]:
    """A file written beside `path` and renamed over it when whole (bench data only)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.part")
    try:
        yield temp
        os.replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)


def write_suite(suite: Suite, out: Path, formats: tuple[str, ...] = FORMATS) -> None:
    """Each arm's run.yaml and results, serialised a chunk of lines at a time."""
    for arm in suite.arms:
        meta = yaml.safe_dump(run_meta(suite, arm), sort_keys=False)
        rows = arm.infra.size
        for fmt in formats:
            write_atomic(out / fmt / arm.name / "run.yaml", meta)
        if "jsonl" in formats:
            with replaced(out / "jsonl" / arm.name / "results.jsonl") as temp, temp.open("w") as f:
                for part in chunks(rows):
                    f.write("\n".join(jsonl_lines(suite, arm, part)) + "\n")
        if "parquet" in formats:
            with replaced(out / "parquet" / arm.name / "results.parquet") as temp:
                writer = None
                for part in chunks(rows):
                    table = results_frame(suite, arm, part).to_arrow()
                    writer = writer or pq.ParquetWriter(temp, table.schema, compression="zstd")
                    writer.write_table(table)
                if writer is not None:
                    writer.close()


def generate(
    out: Path, cases: int, reps: int, seed: int = DEFAULT_SEED, formats: tuple[str, ...] = FORMATS
) -> None:
    write_suite(build_suite(cases, reps, seed), out, formats)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--out", type=Path, required=True, help="bench/data for the benchmarks")
    parser.add_argument("--formats", default=",".join(FORMATS), help="jsonl, parquet or both")
    args = parser.parse_args(argv)
    formats = tuple(args.formats.split(","))
    if not set(formats) <= set(FORMATS):
        parser.error(f"--formats takes {' and '.join(FORMATS)}")
    if args.cases < 1 or args.reps < 1:
        parser.error("--cases and --reps must be at least 1")
    generate(args.out, args.cases, args.reps, args.seed, formats)
    print(f"wrote {args.cases} cases x {args.reps} reps under {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
