"""The words on flipgate's screens, each defined once: the help screen (`?`) shows those of the
screen it was opened from, and every screen that says a word means what it says here.

A term is keyed by the word as a screen shows it. The definitions are sentences, so they live here
in the presentation layer; the codes the core computes them from are in `core/vocab.py`.
"""

from __future__ import annotations

GLOSSARY: dict[str, str] = {
    "red case": (
        "a case an arm gets wrong at least once: a wrong decision or a failed check in one of its "
        "gradable repetitions. A case can be red in the baseline, in the candidate, or in both"
    ),
    "case to review": (
        "a case the case list shows: red in either arm, flipped (a fail→pass case is green in "
        "the candidate) or unpaired; `a` there widens the list to every case"
    ),
    "b": "the paired cases that passed in the baseline and fail in the candidate (pass → fail)",
    "c": "the paired cases that failed in the baseline and pass in the candidate (fail → pass)",
    "net b - c": "how many more cases broke than were fixed; the margin is compared with it",
    "margin": "the net number of broken cases (b - c) the gate tolerates on this suite",
    "flip cap": (
        "the most flips (b + c) the gate accepts as a PASS even when they cancel out; beyond it, "
        "too much moved to call the change harmless"
    ),
    "alpha": "the false-alarm rate the test is allowed: how often it may block a harmless change",
    "p": (
        "the exact one-sided McNemar p-value of b against c: how often a harmless change "
        "would break this many more cases than it fixes"
    ),
    "p by template": (
        "p with each template's clones counted once, because cloned cases flip together"
    ),
    "look / boundary": (
        "each gate run on the same change is a look; the looks share alpha, so each look "
        "blocks only at its own, smaller boundary"
    ),
    "effect": "the change in pass rate over the paired cases, in percentage points",
    "Tango": (
        "Tango's score interval: the interval of a paired difference of proportions that "
        "the effect's interval is built with"
    ),
    "design effect": (
        "how much cloned cases (one template) inflate the variance: the interval is widened by it"
    ),
    "rule-out bound": (
        "the largest regression a PASS still leaves possible at the test's confidence: "
        "a PASS rules out only regressions beyond it"
    ),
    "never-event bound": (
        "with every safety case passing, the highest failure rate still consistent with it "
        "(at 95%): how rare the never-event is shown to be"
    ),
    "cache key": (
        "what a run measured (model, prompt, judge, tools, eval set, harness); a component that "
        "moved and was not declared makes the baseline stale"
    ),
    "stale baseline": "the baseline measured something other than the change declares",
    "infra": (
        "a repetition that never got a grade (a timeout, a crash): left out of the verdict, "
        "counted against the infra limit"
    ),
    "unpaired": (
        "a case in one arm only (new or deleted), with no gradable repetition in an arm, or not "
        "measured whole in one (excluded, repetitions missing, run not finished): shown, never "
        "counted in b and c"
    ),
    "state": (
        "where a case stands in the case ledger: paired (counted), or why it is left out (new, "
        "deleted, all infra, excluded, repetitions missing, run not finished)"
    ),
    "arms diverge": (
        "some repetition graded in both arms has another output (compared as the who-flipped "
        "split compares them) or another trajectory, whatever the verdicts say"
    ),
    "flaky list": (
        "cases known to flip on identical runs, left out of b and c up to the flip cap's share"
    ),
    "template": "the case a group of cloned cases was made from; clones flip together",
    "FN": "false negative: a violation approved; the costliest outcome",
    "FP": "false positive: a good item rejected",
    "INC": "inconclusive: the system escalated instead of deciding",
    "mirror": (
        "a decision with the verdict backwards on a case the label says the other way; "
        "priced as FN when it approved, as FP when it rejected"
    ),
    "OK": "agreement: the decision matches the expected label",
    "triage": (
        "the five classes ruled out in order (infra, flaky, grader, stale baseline, regression) "
        "before a reviewer decides"
    ),
    "divergence": (
        "the first turn where what the agents did differs; a tool path changed when the arms "
        "called different tools"
    ),
    "release key": (
        "what ranks candidates: the cases passing the release rule, the mean breaking a tie"
    ),
    "Holm": (
        "Holm's correction: each candidate's p-value adjusted for how many candidates were "
        "compared, so that one lucky candidate does not look like an improvement"
    ),
    "clears": "the winner may replace the incumbent: it is better, complete, safe and its gate passes",
    "signed decision": (
        "the reviewer's decision, reason and cases reviewed, signed with an SSH key and verified "
        "at once; never overwritten"
    ),
    "proposal": "a flaky-list entry or a gate setting computed from identical baseline runs",
}


def defined(terms: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """The definitions of `terms`, in their order; a term not in the glossary is a bug."""
    return tuple((term, GLOSSARY[term]) for term in terms)


# The words of the screens that show them (the help screen defines these under the screen's keys).
OVERVIEW_TERMS = (
    "b",
    "c",
    "net b - c",
    "margin",
    "flip cap",
    "alpha",
    "p",
    "p by template",
    "look / boundary",
    "effect",
    "Tango",
    "design effect",
    "rule-out bound",
    "never-event bound",
    "cache key",
    "stale baseline",
    "red case",
    "infra",
    "unpaired",
    "flaky list",
    "FN",
    "FP",
    "INC",
    "mirror",
    "OK",
)
CASE_LIST_TERMS = (
    "case to review",
    "red case",
    "b",
    "c",
    "unpaired",
    "state",
    "arms diverge",
    "template",
    "flaky list",
)
CASE_TERMS = ("red case", "divergence", "infra", "template", "FN", "FP", "INC", "mirror", "OK")
TRIAGE_TERMS = ("triage", "infra", "flaky list", "stale baseline", "cache key", "b", "c")
DECISION_TERMS = ("signed decision", "triage")
FLAKY_TERMS = ("flaky list", "flip cap", "proposal")
CALIBRATION_TERMS = ("margin", "flip cap", "b", "c", "proposal")
CANDIDATES_TERMS = ("release key", "Holm", "clears", "p")
