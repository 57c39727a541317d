import json
from typing import Literal

from flipgate.present.casefile import CaseDetail, RepDetail, RuleLine, Verdict
from flipgate.present.cause import cause, fold, fold_note, judged_input, wrong_first

OK = Verdict("approve", "agreement", None)
FN = Verdict("approve", "false_negative", "looks like goodwill")
FAILED = Verdict("fail", "fail", "the refund is coded as goodwill")


def rep(
    n: int, *, extra: dict[str, object] | None = None, messages: str | None = None
) -> RepDetail:
    return RepDetail(n, "ok", None, True, "out", messages, {}, extra or {})


def detail(
    lines: tuple[RuleLine, ...], reps: dict[str, tuple[RepDetail | None, ...]]
) -> CaseDetail:
    return CaseDetail(
        case="case-061",
        safety=False,
        template=None,
        listed=False,
        kind="pass_to_fail",
        direction="pass→fail",
        unpaired=None,
        reps=(1, 2),
        arms=reps,
        collapsed={"baseline": True, "candidate": False},
        lines=lines,
        metrics={},
    )


Verdicts = tuple[Verdict | None, ...]


def line(rule: str, kind: Literal["decision", "check"], base: Verdicts, cand: Verdicts) -> RuleLine:
    return RuleLine(rule, kind, "approve", {"baseline": base, "candidate": cand})


AGREE = line("a-agrees", "decision", (OK, OK), (OK, OK))
CHECK = line("b-refund-code", "check", (None, None), (FAILED, None))
DECISION = line("c-policy", "decision", (OK, FN), (FN, OK))
PLAIN = (rep(1), rep(2))


def test_the_cause_is_the_candidates_first_wrong_verdict_with_the_baselines_beside_it() -> None:
    case = detail((AGREE, CHECK, DECISION), {"baseline": PLAIN, "candidate": PLAIN})
    first = cause(case, 0)
    assert first is not None
    assert (first.line.rule, first.arm, first.rep, first.verdict) == (
        "b-refund-code",
        "candidate",
        1,
        FAILED,
    )
    assert first.other is None and first.other_arm == "baseline"
    second = cause(case, 1)  # the candidate is right in rep 2: the baseline's wrong verdict
    assert second is not None and (second.line.rule, second.arm, second.other) == (
        "c-policy",
        "baseline",
        OK,
    )
    assert cause(detail((AGREE,), {"baseline": PLAIN, "candidate": PLAIN}), 0) is None


def test_wrong_rules_lead_the_candidates_first() -> None:
    base_only = line("d-base-wrong", "decision", (FN, OK), (OK, OK))
    ordered = wrong_first((AGREE, base_only, CHECK))
    assert [entry.rule for entry in ordered] == ["b-refund-code", "d-base-wrong", "a-agrees"]


def test_the_judged_input_is_a_field_of_the_run_else_the_first_user_turn() -> None:
    listing = {"title": "Drill", "price": 40}
    with_field = (rep(1, extra={"listing": listing}), rep(2))
    case = detail((CHECK,), {"baseline": PLAIN, "candidate": with_field})
    assert judged_input(case, 0) == ("listing", "title: Drill\nprice: 40")
    messages = json.dumps(
        [{"role": "system", "content": "be fair"}, {"role": "user", "content": "refund me"}]
    )
    with_turns = (rep(1, messages=messages), rep(2))
    case = detail((CHECK,), {"baseline": PLAIN, "candidate": with_turns})
    assert judged_input(case, 0) == ("the first user turn", "refund me")
    assert judged_input(case, 1) is None


def test_the_first_user_turn_is_found_without_decoding_the_turns_after_it() -> None:
    """The drill-down finds it on the event loop: a 50,000-turn trajectory must cost what its
    first turns cost, so nothing past the first user turn is decoded (here it is not JSON)."""
    head = json.dumps([{"role": "system", "content": "be fair"}, {"role": "user", "content": "go"}])
    messages = head[:-1] + ", {not json at all" * 50_000 + "]"
    case = detail((CHECK,), {"baseline": PLAIN, "candidate": (rep(1, messages=messages), rep(2))})
    assert judged_input(case, 0) == ("the first user turn", "go")


def test_fold_keeps_whole_lines_up_to_either_limit_and_counts_the_rest() -> None:
    assert fold("short", lines=3, chars=100).whole
    text = "\n".join(f"line {i}" for i in range(10))
    folded = fold(text, lines=3, chars=1_000)
    assert folded.kept == "line 0\nline 1\nline 2"
    assert folded.hidden == len(text) - len(folded.kept)
    long = "x" * 240_000
    cut = fold(long, lines=3, chars=320)
    assert (cut.kept, cut.hidden) == ("x" * 320, 239_680)
    note = fold_note(cut.hidden, "enter", "o")
    assert note == "… 239,680 more characters: enter to expand, o to open in the pager"
    assert fold_note(1, "enter", "o").startswith("… 1 more character:")
