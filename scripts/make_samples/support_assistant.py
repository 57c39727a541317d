"""`support-assistant`: seed 002's year-old suite for `flipgate suite audit`, with its history of
runs and five signed rejections."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

from .files import Run, RunManifest, gate_yaml, write_run, write_text

# Seed 002's suite in its thirteenth month: the figures below are its tests. Every date, intent and
# verdict is planned; nothing is sampled but the outputs' wording.
SUPPORT = "support-assistant"
SUPPORT_LABELS = {"negative": "resolve", "positive": "refuse", "abstain": "handoff"}
SUPPORT_STARTED = date(2025, 5, 12)
SUPPORT_TODAY = "2026-08-03T06:00:00Z"
# intent -> live cases, traffic share; the first five are the 41.3% covered
SUPPORT_INTENTS = {
    "billing_question": (30, 0.120),
    "password_reset": (22, 0.095),
    "order_status": (20, 0.088),
    "refund_request": (16, 0.064),
    "account_settings": (11, 0.046),
    "multi_turn_ops": (1, 0.221),
    "document_upload": (0, 0.194),
    "es_ES_any_intent": (0, 0.118),
    "upload_v1_flow": (12, None),  # the v1 upload flow, removed in March: no traffic
}
SUPPORT_ENDPOINTS = {
    "billing_question": "GET /v2/invoices",
    "password_reset": "POST /v2/auth/reset",
    "order_status": "GET /v2/orders/<id>",
    "refund_request": "POST /v2/refunds",
    "account_settings": "PATCH /v2/account",
    "multi_turn_ops": "POST /v2/tickets",
    "upload_v1_flow": "POST /v2/tickets",
}
DELETED_ENDPOINT, DELETED_ON = "GET /v1/orders/lookup", "2026-01-20"
REMOVED_FLAG, REMOVED_ON = "upload_v1", "2026-03-09"
# Cases added after the first six weeks, per month (41 in all); the multi-turn one in November.
LATER_ADDITIONS = ((2025, 6, 23, 4), (2025, 7, 1, 12), (2025, 8, 1, 8), (2025, 9, 1, 6),
                   (2025, 10, 1, 5), (2025, 11, 3, 3), (2025, 12, 1, 2), (2026, 1, 14, 1))  # fmt: skip
SUPPORT_ARCHIVE = (  # (position in the first weeks, added, retired, reason)
    ("billing_question", date(2025, 5, 20), "2025-10-06", "duplicate of sa-008: the same invoice question"),
    ("refund_request", date(2025, 5, 28), "2025-10-06", "tested the 30-day refund window, replaced by 60 days in September"),
)  # fmt: skip


@dataclass(frozen=True)
class SupportCase:
    case: str
    intent: str
    added: date
    endpoints: tuple[str, ...]
    flags: tuple[str, ...] = ()
    retired: str | None = None
    reason: str | None = None
    expected: str = "resolve"  # today's expected decision


def support_cases() -> list[SupportCase]:
    """114 cases in the order they were added: 112 live (71 in the first six weeks) and 2 archived."""
    rng = random.Random(2025_05_12)
    # The live median (56th and 57th of 112) falls on 2025-06-03: 14.0 months before today.
    early = [SUPPORT_STARTED + timedelta(days=i * 22 // 55) for i in range(55)]
    early += [date(2025, 6, 3)] * 2 + [
        date(2025, 6, 4) + timedelta(days=i * 18 // 14) for i in range(14)
    ]
    later = [
        date(y, m, d) + timedelta(days=i * 27 // n)
        for y, m, d, n in LATER_ADDITIONS
        for i in range(n)
    ]
    ordinary = [i for i, (n, _) in SUPPORT_INTENTS.items() for _ in range(n)
                if i not in ("multi_turn_ops", "upload_v1_flow")]  # fmt: skip
    rng.shuffle(ordinary)
    upload_at = set(rng.sample(range(len(early)), 12))
    intents = [("upload_v1_flow" if i in upload_at else ordinary.pop()) for i in range(len(early))]
    multi_turn_at = len(later) - 5  # the second November case
    intents += [
        "multi_turn_ops" if i == multi_turn_at else ordinary.pop() for i in range(len(later))
    ]
    dated: list[tuple[date, str, str | None, str | None]] = [
        (d, intent, None, None) for d, intent in zip(early + later, intents, strict=True)
    ]
    dated += [
        (added, intent, retired, reason) for intent, added, retired, reason in SUPPORT_ARCHIVE
    ]
    dated.sort(key=lambda row: row[0])
    lookups = 0
    cases = []
    for n, (added, intent, retired, reason) in enumerate(dated, start=1):
        endpoints = (SUPPORT_ENDPOINTS[intent],)
        if intent == "order_status" and lookups < 4:
            endpoints, lookups = (DELETED_ENDPOINT,), lookups + 1
        expected = "refuse" if n % 7 == 3 else "handoff" if n % 11 == 5 else "resolve"
        cases.append(
            SupportCase(
                f"sa-{n:03d}",
                intent,
                added,
                endpoints,
                (REMOVED_FLAG,) if intent == "upload_v1_flow" else (),
                retired,
                reason,
                expected,
            )
        )
    return cases


@dataclass(frozen=True)
class SupportRun:
    folder: str  # under history/, or baseline / candidate
    run_id: str
    created: str
    model: str
    version: str
    failing: int  # how many of its cases fail (chosen by `support_failures`)
    candidate_slot: int | None = None  # rejected candidates: which fifth of the cases they fail


SUPPORT_HISTORY = (
    SupportRun("2025-07-21-model-2025-06", "sa-2025-07-21-model-2025-06", "2025-07-21T02:00:00Z", "model-2025-06", "suite@v6", 11),
    SupportRun("2025-09-30-q3", "sa-2025-09-30-quarterly", "2025-09-30T02:00:00Z", "model-2025-06", "suite@v8", 12),
    *(
        run
        for day, version, slot in (("2025-11-18", "v10", 0), ("2026-01-22", "v10", 1), ("2026-02-26", "v12", 2),
                                   ("2026-04-16", "v12", 3), ("2026-05-28", "v14", 4))
        for run in (
            SupportRun(f"{day}-main", f"sa-{day}-main", f"{day}T02:00:00Z", "model-2025-11", f"suite@{version}", 13),
            SupportRun(f"{day}-candidate", f"sa-{day}-candidate", f"{day}T02:00:00Z", f"candidate-{day[:7]}", f"suite@{version}", 0, slot),
        )
    ),
    SupportRun("2025-12-31-q4", "sa-2025-12-31-quarterly", "2025-12-31T02:00:00Z", "model-2025-11", "suite@v10", 16),
    SupportRun("2026-03-31-q1", "sa-2026-03-31-quarterly", "2026-03-31T02:00:00Z", "model-2025-11", "suite@v12", 12),
    SupportRun("2026-06-30-q2", "sa-2026-06-30-quarterly", "2026-06-30T02:00:00Z", "model-2025-11", "suite@v14", 15),
)  # fmt: skip
SUPPORT_ARMS = (
    SupportRun("baseline", "sa-2026-08-03-main", SUPPORT_TODAY, "model-2025-11", "suite@v14", 15),
    SupportRun("candidate", "sa-2026-08-03-candidate-2026-07", SUPPORT_TODAY, "candidate-2026-07", "suite@v14", 14),
)  # fmt: skip
EDITED_BY = date(2025, 11, 1)  # suite@v10: 22 expected decisions rewritten for the new policies


def held_by(cases: list[SupportCase], run: SupportRun) -> list[SupportCase]:
    """The cases a run held: added by its day, not yet retired."""
    day = date.fromisoformat(run.created[:10])
    return [c for c in cases if c.added <= day and (c.retired is None or c.retired > run.created)]


def support_plan(cases: list[SupportCase]) -> tuple[set[str], dict[str, set[str]]]:
    """The 22 cases November edited, and each run's failing cases.

    Every live case but the twelve upload-flow ones fails somewhere (a rejected candidate fails
    one fifth of them each), so the free passes are exactly those twelve. The year-old run fails
    11 of its 87 cases and passes all 22 that November then rewrote: 0.874 then, 52/85 = 0.612
    against today's expected decisions.
    """
    rng = random.Random(2026_08_03)
    old = held_by(cases, SUPPORT_HISTORY[0])
    gradable = [c for c in old if c.retired is None and c.intent != "upload_v1_flow"]
    old_failing = set(rng.sample([c.case for c in gradable], 11))
    edited = set(rng.sample([c.case for c in gradable if c.case not in old_failing], 22))
    others = [c.case for c in cases if c.retired is None and c.intent != "upload_v1_flow"]
    failing: dict[str, set[str]] = {}
    for run in (*SUPPORT_HISTORY, *SUPPORT_ARMS):
        held = {c.case for c in held_by(cases, run)}
        if run.candidate_slot is not None:
            failing[run.folder] = {
                c for i, c in enumerate(others) if i % 5 == run.candidate_slot
            } & held
        elif run is SUPPORT_HISTORY[0]:
            failing[run.folder] = old_failing
        elif run.folder == "candidate":  # two broke, three were fixed: the gate passes it
            base = sorted(failing["baseline"])
            fresh = sorted(held & set(others) - failing["baseline"])
            failing[run.folder] = set(base[3:]) | set(rng.sample(fresh, 2))
        else:  # the incumbent's same-day runs miss no refusal: the candidates' misses stand out
            refusals = run.folder.endswith("-main")
            pool = sorted(c.case for c in held_by(cases, run) if c.case in set(others)
                          and not (refusals and c.expected == "refuse"))  # fmt: skip
            failing[run.folder] = set(rng.sample(pool, run.failing))
    return edited, failing


def support_run(
    cases: list[SupportCase], run: SupportRun, edited: set[str], failing: set[str]
) -> Run:
    day = date.fromisoformat(run.created[:10])
    rows = []
    for c in held_by(cases, run):
        expected = c.expected
        if c.case in edited and day < EDITED_BY:  # as suite@v6 and v8 had it
            expected = "handoff" if c.expected != "handoff" else "resolve"
        actual = expected
        if c.case in failing:
            actual = "resolve" if expected != "resolve" else "refuse"
        rows.append({
            "case": c.case, "rep": 0, "expected": expected, "actual": actual,
            "output": f"[{c.intent}] {actual}: reply drafted from {c.endpoints[0]}",
        })  # fmt: skip
    key = {"model": run.model, "prompt": "prompts@3b9e41", "judge": "none",
           "eval_set": run.version, "harness": "harness@2.3.1"}  # fmt: skip
    change = (
        {"keys": ["model"], "summary": f"try {run.model}"} if "candidate" in run.folder else None
    )
    return Run(RunManifest(run.run_id, run.created, key, change, SUPPORT_LABELS), rows)


SUPPORT_README = """\
# support-assistant: a year-old suite that tests last year's product

Seed 002's suite in its thirteenth month. A support assistant decides each conversation
(`resolve`, `refuse`, `handoff`) on 112 live cases; the quarterly pass rate sat between 0.86 and
0.89 while the product added document upload, a Slack integration and Spanish, and CSAT fell
from 4.4 to 3.8. The gate on `baseline/` and `candidate/` passes (2 broke, 3 fixed). The suite
audit says why that number no longer means much:

```sh
uv run flipgate suite audit sample_runs/support-assistant
uv run flipgate suite open sample_runs/support-assistant      # the suite-health screen
```

What each diagnostic finds (as of 2026-08-03, the day of the newest run):

- **coverage** (`traffic.yaml`): `multi_turn_ops` is 22.1% of traffic with 1 case,
  `document_upload` 19.4% with 0, `es_ES_any_intent` 11.8% with 0: three GAP lines, and 41.3% of
  traffic covered (5.4% has no intent). `upload_v1_flow` holds 12 cases and no traffic at all.
- **case age** (`suite.yaml`): 71 of the 112 live cases were written in the first six weeks, the
  median case is 14.0 months old, and nothing was added after 2026-01-14 against a quota of 14 a
  month (8 sampled, 6 from escalations).
- **free passes** (`history/`, 15 runs of 7 systems): the twelve `upload_v1_flow` cases passed
  on every run of every system; without them each run's pass rate is 1.3 to 2.3 points lower
  (the newest quarterly run: 0.866 with them, 0.850 without).
- **stale references** (`registry.yaml`): the same twelve reference the flag `upload_v1`, removed
  on 2026-03-09, and four `order_status` cases the endpoint `GET /v1/orders/lookup`, deleted on
  2026-01-20: sixteen retirement proposals.
- **counterfactual**: `model-2025-06`, run on suite@v6 on 2025-07-21, scored 0.874 on its 87
  cases; its stored decisions against today's expected ones score 0.612 on the 85 cases both
  hold. The bar moved with the product for those cases (November rewrote 22 of them); every
  system first run on suite@v10 or later re-scores as it scored: it has not moved since.
- **rejection reasons** (`decisions/`): five signed rejections across three quarters, every one
  after the gate rule `undecided` (false negatives above the baseline's, within the noise: a
  reviewer rejected the refunds waved through): one rule does all the work.
- **production signal** (`production.yaml`): the suite's pass rate stayed within 0.86-0.89 while
  CSAT went 4.4 -> 3.8 (-13.6%) and the escalation rate 0.08 -> 0.15.

`decisions/` is signed with a key made for the sample; `flipgate verify` finds the runs unchanged
and the signer unknown, as it should.
"""


def suite_yaml(cases: list[SupportCase]) -> str:
    def entry(c: SupportCase) -> str:
        refs = "".join(
            f", {name}: [{', '.join(values)}]"
            for name, values in (("flags", c.flags), ("endpoints", c.endpoints))
            if values
        )
        head = f"  - {{case: {c.case}, intent: {c.intent}, added: {c.added}{refs}"
        if c.retired is None:
            return head + "}\n"
        return head + f", retired: {c.retired}, reason: {json.dumps(c.reason)}}}\n"

    return (
        "# The suite's own record (README: the suite manifest): every case's intent, when it was\n"
        "# added and what it references; retired cases stay in the archive with date and reason.\n"
        "suite: support-assistant\nversion: suite@v14\n"
        f"started: {SUPPORT_STARTED}\n"
        "coverage: {min_cases: 3}          # an intent with fewer live cases is a gap\n"
        "intake: {sampled_per_month: 8, escalations_per_month: 6, retirements_per_month: 2}\n"
        "cases:\n"
        + "".join(entry(c) for c in cases if c.retired is None)
        + "archive:\n"
        + "".join(entry(c) for c in cases if c.retired is not None)
    )


def traffic_yaml() -> str:
    shares = sorted(
        ((i, s) for i, (_, s) in SUPPORT_INTENTS.items() if s is not None), key=lambda x: -x[1]
    )
    return (
        "# What production asked for over the last 90 days, by intent (5.4% has no intent).\n"
        "window: {from: 2026-05-05, to: 2026-08-02}\n"
        "source: support conversations, tagged by the intent classifier\n"
        "intents:\n" + "".join(f"  {intent}: {share}\n" for intent, share in shares)
    )


def registry_yaml() -> str:
    endpoints = sorted({*SUPPORT_ENDPOINTS.values(), "POST /v2/uploads", "POST /v2/slack/events"})
    return (
        "# What is live in the product today, and what went when.\n"
        "flags: [upload_v2, slack_bridge, es_locale, threaded_context]\n"
        f"endpoints: [{', '.join(endpoints)}]\n"
        "removed:\n"
        f"  - {{flag: {REMOVED_FLAG}, date: {REMOVED_ON}}}\n"
        f"  - {{endpoint: {DELETED_ENDPOINT}, date: {DELETED_ON}}}\n"
    )


SUPPORT_PRODUCTION = """\
# The quarterly report: the suite's pass rate beside what it is meant to predict.
signals:
  csat: {better: higher, about: "mean satisfaction rating users leave, 1-5"}
  escalation_rate: {better: lower, about: share of conversations handed to a person}
periods:
  - {period: 2025-Q3, suite_pass_rate: 0.88, csat: 4.4, escalation_rate: 0.08}
  - {period: 2025-Q4, suite_pass_rate: 0.86, csat: 4.2, escalation_rate: 0.10}
  - {period: 2026-Q1, suite_pass_rate: 0.89, csat: 4.0, escalation_rate: 0.12}
  - {period: 2026-Q2, suite_pass_rate: 0.87, csat: 3.8, escalation_rate: 0.15}
"""
SUPPORT_REVIEWER = ("Dana Whitfield", "dana@example.com")


def support_decisions(workspace: Path, kept: Path) -> None:
    """The five rejections, each the gate applied to the candidate and the incumbent's run of
    the time, written to `workspace/decisions`.

    A signature changes with the key, so a decision already in `kept` (the folder being
    rebuilt) whose message is unchanged is copied as it stands; only the others are signed, with
    a key made for the purpose (a sample's key, trusted by none).
    """
    from flipgate.core.decision.document import render_decision
    from flipgate.core.decision.file import decision_path, split_signed, write_decision
    from flipgate.core.decision.record import InvalidDecision, Reviewer
    from flipgate.core.decision.review import build_record
    from flipgate.core.decision.signing import find_signing_key
    from flipgate.core.gate.compare import compare
    from flipgate.core.gate.spec import load_spec
    from flipgate.core.runs.reading import load_run
    from flipgate.present.reasons import sentence, summary

    spec = load_spec(workspace / "gate.yaml")
    folder = workspace / "decisions"
    unsigned = []
    for run in SUPPORT_HISTORY:
        if run.candidate_slot is None:
            continue
        day = run.folder.removesuffix("-candidate")
        comparison = compare(
            load_run(workspace / "history" / f"{day}-main"),
            load_run(workspace / "history" / run.folder),
            spec,
        )
        # More false negatives than the baseline, within the noise: the gate cannot call it
        # (INCONCLUSIVE), and the reviewer rejects the refunds it waved through.
        assert comparison.result.rule == "undecided", summary(comparison.result)
        assert comparison.result.false_negatives is not None
        record = build_record(
            comparison,
            workspace=workspace,
            decision="reject",
            cause="regression",
            reason=f"{sentence(comparison.result.false_negatives)}; the misses are refunds it "
            "waved through",
            reviewer=Reviewer(*SUPPORT_REVIEWER),
            created=datetime.fromisoformat(run.created) + timedelta(hours=30),
        )
        previous = kept / decision_path(record, folder).name
        try:
            same = split_signed(previous.read_bytes())[0] == render_decision(record).encode()
        except (OSError, InvalidDecision):
            same = False
        if same:
            folder.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(previous, folder / previous.name)
        else:
            unsigned.append(record)
    if not unsigned:
        return
    with tempfile.TemporaryDirectory() as keys:
        key = Path(keys) / "sample_key"
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", SUPPORT_REVIEWER[1], "-f", key],
            check=True,
        )
        for record in unsigned:
            write_decision(record, find_signing_key(key), folder)


def write(out: Path, kept: Path) -> None:
    workspace = out / SUPPORT
    cases = support_cases()
    edited, failing = support_plan(cases)
    for run in (*SUPPORT_HISTORY, *SUPPORT_ARMS):
        folder = (
            workspace / run.folder if run in SUPPORT_ARMS else workspace / "history" / run.folder
        )
        write_run(folder, support_run(cases, run, edited, failing[run.folder]))
    write_text(workspace / "suite.yaml", suite_yaml(cases))
    write_text(workspace / "traffic.yaml", traffic_yaml())
    write_text(workspace / "registry.yaml", registry_yaml())
    write_text(workspace / "production.yaml", SUPPORT_PRODUCTION)
    write_text(workspace / "gate.yaml", gate_yaml("The spec's defaults (SPEC §3), written out."))
    write_text(workspace / "README.md", SUPPORT_README)
    support_decisions(workspace, kept)
