"""`flipgate import` and `gate` on every real tool's fixture: b, c and the verdict equal the
plain reading's count (plain.py), and the run written by `import` gates like the log itself."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from flipgate.cli import main
from flipgate.core.gate.compare import compare
from flipgate.core.gate.spec import default_spec
from flipgate.core.importers import ImportOptions
from flipgate.core.runs.reading import load_run
from tests.importers import plain
from tests.importers.conftest import (
    INSPECT,
    PROMPTFOO,
    deepeval_run,
    lm_eval_results,
)

EXIT = {"PASS": 0, "BLOCK": 1, "INCONCLUSIVE": 3, "INVALID": 4}


def gate_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, object]]:
    code = main(["gate", *args, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def check(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    logs: tuple[Path, Path],
    expected: plain.Count,
    *flags: str,
) -> None:
    """The gate on the logs, and on the runs `import` writes of them, agrees with `expected`."""
    code, report = gate_json(capsys, *map(str, logs), *flags)
    assert (report["b"], report["c"], report["verdict"]) == (
        expected.b,
        expected.c,
        expected.verdict,
    )
    assert code == EXIT[expected.verdict]
    imported = []
    for arm, log in zip(("baseline", "candidate"), logs, strict=True):
        select = [f for f in flags if f.startswith("prompt=")]
        flags_for_arm = ["--select", select[0 if arm == "baseline" else 1]] if select else []
        out = tmp_path / arm
        assert main(["import", str(log), str(out), *flags_for_arm]) == 0
        imported.append(str(out))
    capsys.readouterr()
    other = [f for f in flags if not f.startswith("prompt=") and f != "--select"]
    _, from_runs = gate_json(capsys, *imported, *other)
    for field in ("verdict", "rule", "cells", "b", "c", "p", "flipped"):
        assert from_runs[field] == report[field]


@pytest.mark.parametrize(
    "candidate", ["candidate", "limits", "error", "killed", "cancelled", "cache-read", "excluded"]
)
@pytest.mark.parametrize("form", ["eval", "json"])
def test_inspect(
    candidate: str,
    form: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    inspect_json: Callable[[str], Path],
) -> None:
    base, cand = (
        INSPECT / f"{name}.eval" if form == "eval" else inspect_json(name)
        for name in ("baseline", candidate)
    )
    expected = plain.gate(
        plain.inspect(plain.inspect_json(INSPECT / "baseline.json.gz")),
        plain.inspect(plain.inspect_json(INSPECT / f"{candidate}.json.gz")),
    )
    check(capsys, tmp_path, (base, cand), expected)


@pytest.mark.parametrize("candidate", ["error", "killed", "cancelled", "excluded", "candidate"])
def test_inspect_allowed_partial(candidate: str) -> None:
    """With `--allow-partial` (core: `allow_partial`), b, c and the verdict still equal the plain
    count, and a run that did not finish is INCONCLUSIVE at best."""
    expected = plain.gate(
        plain.inspect(plain.inspect_json(INSPECT / "baseline.json.gz")),
        plain.inspect(plain.inspect_json(INSPECT / f"{candidate}.json.gz")),
        allow_partial=True,
    )
    runs = (load_run(INSPECT / "baseline.eval"), load_run(INSPECT / f"{candidate}.eval"))
    result = compare(*runs, default_spec(), allow_partial=True).result
    assert (result.b, result.c, result.verdict) == (expected.b, expected.c, expected.verdict)
    if candidate in ("killed", "cancelled"):
        assert result.verdict == "INCONCLUSIVE"


def test_inspect_plain_counts_are_what_the_fixture_was_scripted_to_give() -> None:
    """The plain reader itself, against the plans in triage_agent.py: 2 and 4 break (10 fails
    one epoch of three, which the majority outvotes)."""
    count = plain.gate(
        plain.inspect(plain.inspect_json(INSPECT / "baseline.json.gz")),
        plain.inspect(plain.inspect_json(INSPECT / "candidate.json.gz")),
    )
    assert count == plain.Count(b=2, c=0, verdict="PASS")


@pytest.mark.parametrize("output", ["results.json", "results.jsonl"])
def test_promptfoo_two_prompts_of_one_file(
    output: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    doc = json.loads((PROMPTFOO / "file-prompts/results.json").read_text())
    expected = plain.gate(plain.promptfoo(doc, "v1"), plain.promptfoo(doc, "v2"))
    log = PROMPTFOO / "file-prompts" / output
    code, report = gate_json(
        capsys, str(log), str(log), "--select", "prompt=v1", "--change", "prompt"
    )
    # one file, one --select for both arms: the same prompt, nothing flips
    assert (report["b"], report["c"]) == (0, 0) and code == 0
    runs = []
    for arm, prompt in (("baseline", "v1"), ("candidate", "v2")):
        out = tmp_path / arm
        assert main(["import", str(log), str(out), "--select", f"prompt={prompt}"]) == 0
        runs.append(str(out))
    capsys.readouterr()
    code, report = gate_json(capsys, *runs, "--change", "prompt")
    assert (report["b"], report["c"], report["verdict"]) == (
        expected.b,
        expected.c,
        expected.verdict,
    )
    assert code == EXIT[expected.verdict]


def test_promptfoo_shared_vars_stay_three_cases_and_the_broken_one_counts() -> None:
    """Three tests on one review, no description: merged they were one case of 9 'repeats' in
    which two broken repeats of one test were outvoted (b = 0); the truth is b = 1."""
    doc = json.loads((PROMPTFOO / "file-prompts/results.json").read_text())
    assert plain.gate(plain.promptfoo(doc, "v1"), plain.promptfoo(doc, "v2")).b == 2


@pytest.mark.parametrize("prompt", ["v1", "v2"])
@pytest.mark.parametrize("allow_partial", [False, True])
def test_promptfoo_interrupted(
    prompt: str, allow_partial: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C after 8 of 48 rows, exported: the same config and prompts as the finished run,
    rows missing. The plain count says what the gate says, and neither says PASS."""
    whole, cut = PROMPTFOO / "file-prompts/results.json", PROMPTFOO / "interrupted/results.json"
    docs = [json.loads(log.read_text()) for log in (whole, cut)]
    expected = plain.gate(
        *(plain.promptfoo(doc, prompt) for doc in docs), allow_partial=allow_partial
    )
    chosen = ImportOptions(select={"prompt": prompt})
    result = compare(
        load_run(whole, import_options=chosen),
        load_run(cut, import_options=chosen),
        default_spec(),
        allow_partial=allow_partial,
    ).result
    assert (result.b, result.c, result.verdict) == (expected.b, expected.c, expected.verdict)
    assert expected.verdict != "PASS"


def test_lm_eval(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    logs = (lm_eval_results("baseline"), lm_eval_results("candidate"))
    expected = plain.gate(*(plain.lm_eval(log.parent) for log in logs))
    check(capsys, tmp_path, logs, expected, "--change", "model")


def test_deepeval(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    logs = (deepeval_run("baseline"), deepeval_run("candidate"))
    expected = plain.gate(*(plain.deepeval(json.loads(log.read_text())) for log in logs))
    check(capsys, tmp_path, logs, expected)


def test_import_writes_the_completeness_into_run_yaml(tmp_path: Path) -> None:
    assert main(["import", str(INSPECT / "error.eval"), str(tmp_path / "run")]) == 0
    manifest = yaml.safe_load((tmp_path / "run/run.yaml").read_text())
    stated = manifest["completeness"]
    assert stated["finished"] is False and stated["status"] == "error"
    assert stated["totals"] == {
        "expected": 24,
        "present": 4,
        "errored": 2,
        "excluded": 0,
        "missing": 20,
    }
    assert stated["cases"]["9"] == {
        "expected": 3,
        "present": 0,
        "errored": 0,
        "excluded": 0,
        "missing": 3,
    }
