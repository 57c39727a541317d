"""`winner-rule`: seed 003's table, three candidates ranked against an incumbent by the release
rule (`flipgate rank`)."""

from __future__ import annotations

from pathlib import Path

from .files import Run, RunManifest, flaky_yaml, gate_yaml, write_run, write_text

# Seed 003's table: six instances, two repetitions each; T resolved, F not, None never ran.
WINNER_RULE_TABLES: dict[str, dict[str, tuple[bool | None, ...]]] = {
    "baseline": {
        "i1": (True, True),
        "i2": (True, False),
        "i3": (False, False),
        "i4": (False, True),
        "i5": (False, False),
        "i6": (False, False),
    },
    "candidates/CLAUDE": {
        "i1": (True, True),
        "i2": (True, True),
        "i3": (True, False),
        "i4": (False, False),
        "i5": (False, False),
        "i6": (False, False),
    },
    "candidates/MERGE": {
        "i1": (True, True),
        "i2": (True, False),
        "i3": (False, True),
        "i4": (True, False),
        "i5": (False, True),
        "i6": (False, False),
    },
    # Cut short: i3's second repetition never ran, and its one pass would pass the case.
    "candidates/HURRIED": {
        "i1": (True, True),
        "i2": (True, True),
        "i3": (True, None),
        "i4": (False, False),
        "i5": (False, False),
        "i6": (False, False),
    },
}
WINNER_RULE_KEY = {
    "model": "coder-2026-10",
    "agent": "single-pass@1.4",
    "eval_set": "winner-rule@v1",
    "harness": "agent-eval@0.9",
}
WINNER_RULE_AGENTS = {
    "candidates/CLAUDE": ("claude-loop@2.0", "plan, edit, run the tests, repeat"),
    "candidates/MERGE": ("merge-vote@1.0", "three drafts merged by vote"),
    "candidates/HURRIED": ("claude-loop@2.0-fast", "the loop with half the time budget"),
}


def cells_by_case(
    tables: list[dict[str, tuple[bool | None, ...]]],
) -> list[dict[str, list[bool]]]:
    return [{case: [r for r in reps if r is not None] for case, reps in t.items()} for t in tables]


def winner_rule_table() -> str:
    """The workspace's table as its README shows it: T resolved, F not, one column a run."""
    names = [
        path.rsplit("/", 1)[-1].replace("baseline", "incumbent") for path in WINNER_RULE_TABLES
    ]
    tables = list(WINNER_RULE_TABLES.values())
    mark = {True: "T", False: "F", None: "(never ran)"}
    rows = [
        f"| {case} | " + " | ".join(" ".join(mark[r] for r in t[case]) for t in tables) + " |"
        for case in tables[0]
    ]
    graded = cells_by_case(tables)
    cells = [[r for reps in t.values() for r in reps] for t in graded]
    # SPEC §3.1 with `all`: every graded repetition passes; one that never ran is not graded.
    resolved = [sum(all(reps) for reps in t.values()) for t in graded]
    return "\n".join(
        [
            "| instance | " + " | ".join(names) + " |",
            "|---" * (len(names) + 1) + "|",
            *rows,
            "| cells passed | " + " | ".join(f"{sum(c)} of {len(c)}" for c in cells) + " |",
            "| resolved on every repetition that ran | " + " | ".join(map(str, resolved)) + " |",
        ]
    )


def winner_rule_run(path: str) -> Run:
    name = path.rsplit("/", 1)[-1]
    rows = [
        {
            "case": case,
            "rep": rep,
            "passed": passed,
            "output": f"{name} on {case}, repetition {rep}: "
            + ("resolved: the tests pass" if passed else "not resolved: a test still fails"),
        }
        for case, reps in WINNER_RULE_TABLES[path].items()
        for rep, passed in enumerate(reps)
        if passed is not None
    ]
    if path == "baseline":
        manifest = RunManifest("wr-incumbent", "2026-11-20T09:00:00Z", WINNER_RULE_KEY)
    else:
        agent, summary = WINNER_RULE_AGENTS[path]
        key = WINNER_RULE_KEY | {"agent": agent}
        change = {"keys": ["agent"], "summary": summary}
        manifest = RunManifest(f"wr-{name.lower()}", "2026-11-21T09:00:00Z", key, change)
    return Run(manifest, rows)


WINNER_RULE_README = f"""\
# winner-rule: which candidate, by the release rule (seed 003)

Three candidate coding agents against the incumbent on seed 003's six instances, two repetitions
each, pass/fail (`passed`: the instance's tests pass). `gate.yaml` fails closed:
`aggregate: {{ordinary: all}}`, so an instance counts as resolved only when every repetition
resolves it. `flipgate rank` ranks by that same collapse, the gate's own.

{winner_rule_table()}

```sh
uv run flipgate rank sample_runs/winner-rule          # exit 0: CLAUDE clears the incumbent
uv run flipgate open sample_runs/winner-rule          # the candidates screen; enter opens one
```

The report gives three labels, never one merged verdict:

1. **Highest mean: MERGE**, 0.500 (6 of 12 cells) against CLAUDE's 0.417 (5 of 12). The mean
   counts cells, and MERGE's passes are scattered one repetition at a time. It is shown as a
   description, and it picks nothing.
2. **Winner by the release key: CLAUDE.** The key is the number of instances that pass under the
   gate's collapse: CLAUDE resolves i1 and i2 on both repetitions (2), MERGE only i1 (1). The
   mean breaks a tie on the key, and only then. The report says in words that the mean and the
   key disagree. HURRIED would have the highest key (3), but only because its i3 has one
   repetition, which passed: it was judged on an easier set of cells, so it is incomplete
   (`✗ incomplete`, `1 repetition missing`), shown and never the winner, and a line says it was
   passed over and why. Every candidate must hold each case as often as the incumbent or any
   candidate ran it, and as often as `release.repetitions` in `gate.yaml` asks (2).
3. **Clears the incumbent: yes.** Winning the ranking is not permission to ship. CLAUDE clears
   because its key is strictly above the incumbent's (2 against 1) *and* the gate against the
   incumbent says PASS (0 broke, 1 fixed). Had the incumbent also resolved two, the tie would
   keep the incumbent; a failed safety case or an INVALID comparison would reject CLAUDE
   whatever its key. Run `flipgate rank` on the incumbent and MERGE alone to see a tie: exit 1.

Is the lead real? CLAUDE and MERGE differ on one instance (i2), so the paired exact test, two-sided
since the data picked the leader, gives p = 1.0: the lead is within noise, and the report says so.
Is there evidence CLAUDE beats the incumbent? It fixes one instance and breaks none: one-sided
p = 0.5, Holm-adjusted 1.0 across the two candidates that could win (HURRIED, incomplete, is left
out of the family): none, said beside "clears". Each no-regression gate is applied at alpha as it
stands, uncorrected. CLAUDE and MERGE cannot be told apart: one tie group, `CLAUDE = MERGE`.

`gates/` holds three variants of the release rule, each a worked example of `docs/rank.md`:
`at-least-4.yaml` (a winner must resolve 4 of 6: CLAUDE's 2 does not clear, exit 1),
`by-mean.yaml` (the mean is the key: MERGE wins and clears, exit 0) and `three-repetitions.yaml`
(three asked, two run: none complete, exit 1):

```sh
uv run flipgate rank sample_runs/winner-rule --gate sample_runs/winner-rule/gates/by-mean.yaml
```
"""

# `release` in gate.yaml: what `flipgate rank` asks of a winner beyond the gate (docs/rank.md).
WINNER_RULE_RELEASE = """release:                         # what `flipgate rank` asks of a winner (docs/rank.md)
  key: resolved                  # the cases passing the release rule (or `mean`: the cells' mean)
  repetitions: 2                 # every case at least twice in every candidate, else incomplete
  min_key: null                  # the least key that may replace the incumbent (gates/ shows 4)
"""
# gates/: the release rule's variants, each a worked example of docs/rank.md.
WINNER_RULE_GATES = {
    "at-least-4": (
        "Seed 003's fail-closed release rule with a least key: a winner must resolve at least 4 of "
        "the\n6 instances to replace the incumbent. CLAUDE wins with 2: it does not clear (exit "
        "1).",
        "{min_key: 4}",
    ),
    "by-mean": (
        "Where the campaign's outcome is an average, the key is the mean of the cells (the cases\n"
        "resolved break a tie): MERGE (0.500) wins and clears the incumbent (0.333).",
        "{key: mean}",
    ),
    "three-repetitions": (
        "The release rule asks for three repetitions of every case; every candidate ran two "
        "(HURRIED\nfewer): none is complete, none can win, the incumbent stays (exit 1).",
        "{repetitions: 3}",
    ),
}


def write(out: Path) -> None:
    workspace = out / "winner-rule"
    for path in WINNER_RULE_TABLES:
        write_run(workspace / path, winner_rule_run(path))
    write_text(
        workspace / "gate.yaml",
        gate_yaml(
            "The release rule of seed 003 fails closed: an instance counts as resolved only when\n"
            "every repetition resolves it. `flipgate rank` ranks by the same collapse.",
            ordinary="all",
            release=WINNER_RULE_RELEASE,
        ),
    )
    for name, (header, release) in WINNER_RULE_GATES.items():
        comments = "".join(f"# {line}\n" for line in header.splitlines())
        aggregate = "aggregate: {ordinary: all, safety: all}\n"
        write_text(
            workspace / "gates" / f"{name}.yaml", f"{comments}{aggregate}release: {release}\n"
        )
    write_text(workspace / "flaky.yaml", flaky_yaml(()))
    write_text(workspace / "README.md", WINNER_RULE_README)
