"""Every command on hostile inputs, each in a process of its own as CI runs it (issue 28): exit 1
only where the command means it (the gate's BLOCK, rank's "none may replace", a suite below
`--fail-under`, a decision not verified, a flaky list with a problem), and never a traceback.

The inputs are the ones the issue's adversarial pass found, kept here so that none comes back:
surrogates and NUL in names, folders a notebook or another locale left, edge dates, a blank
template, roles the gate let through, links at a git revision, hostile markup in every field.
One interpreter imports flipgate once and forks a process per input (a cold start each would
take a second apiece on a shared machine).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SAMPLES, copy_sample, passfail_rows, write_run

NOT_UTF8 = os.fsdecode(b"q\xff")
ESC = "\x1b]0;PWNED\x07"

# Runs each argv list in a forked child, as the console script runs (`launch.run`): the child's
# exit status, standard output and standard error, as JSON on standard output.
DRIVER = """
import json, os, sys, tempfile
from flipgate import launch
import flipgate.cli  # imported once, before the forks
results = []
for argv in json.loads(sys.stdin.read()):
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        pid = os.fork()
        if pid == 0:
            os.dup2(out.fileno(), 1)
            os.dup2(err.fileno(), 2)
            os.close(0)
            sys.argv = ["flipgate", *argv]
            try:
                launch.run()
            except SystemExit as done:
                os._exit(done.code if isinstance(done.code, int) else 2)
            os._exit(99)
        _, status = os.waitpid(pid, 0)
        out.seek(0); err.seek(0)
        results.append([os.waitstatus_to_exitcode(status),
                        out.read().decode(errors="replace"), err.read().decode(errors="replace")])
print(json.dumps(results))
"""


@dataclass(frozen=True)
class Ran:
    argv: list[str]
    code: int
    out: str
    err: str


def run_all(argvs: list[list[str]], cwd: Path) -> list[Ran]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("NO_COLOR", "FORCE_COLOR", "TERM", "COLUMNS", "LINES")
    }
    env |= {"HOME": str(cwd), "XDG_CONFIG_HOME": str(cwd / "config"), "GIT_CONFIG_NOSYSTEM": "1"}
    env["GIT_CONFIG_GLOBAL"] = str(cwd / "gitconfig")
    done = subprocess.run(
        [sys.executable, "-c", DRIVER],
        input=json.dumps(argvs, ensure_ascii=True),
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return [Ran(argv, *result) for argv, result in zip(argvs, json.loads(done.stdout), strict=True)]


def _meant_exit_1(ran: Ran) -> bool:
    """Exit 1 said the one thing it means for its command."""
    command = ran.argv[0] if ran.argv[0] != "suite" else f"suite {ran.argv[1]}"
    if command == "gate":
        fmt = ran.argv[ran.argv.index("--format") + 1] if "--format" in ran.argv else "text"
        return json.loads(ran.out)["verdict"] == "BLOCK" if fmt == "json" else "BLOCK" in ran.out
    return {
        "rank": "clears the incumbent: no" in ran.out,
        "suite audit": "below --fail-under" in ran.err,
        "verify": "NOT verified" in ran.out,
        "flaky check": "problem:" in ran.out,
    }.get(command, False)


# --------------------------------------------------------------------------- the inputs


def _workspace(root: Path) -> dict[str, Path]:
    """Copies of the samples and runs made hostile, under `root`."""
    made = {
        name: copy_sample(name, root / name)
        for name in ("agent-suite", "support-assistant", "winner-rule")
    }
    runs = root / "runs"
    rows = passfail_rows({f"case-{i}": [True] for i in range(4)})

    def hostile(name: str, change: dict[str, object], **manifest: Any) -> Path:
        return write_run(runs / name, [row | change for row in rows], **manifest)

    made["base"] = hostile("base", {})
    made["surrogate"] = runs / "surrogate"
    write_run(made["surrogate"], rows)
    (made["surrogate"] / "results.jsonl").write_text('{"case": "a\\udcff", "passed": true}\n')
    made["nul rules"] = hostile(
        "nul rules",
        {
            "expected": {"x\x00": "approve", "x": "approve"},
            "actual": {"x\x00": "approve", "x": "approve"},
        },
    )
    made["role"] = hostile("role", {"messages": [{"role": "hacker", "content": ESC}]})
    made["blank template"] = hostile("blank template", {"template": " "})
    made["markup"] = hostile(
        "markup",
        {"template": f"@here {ESC}", "output": "<img src=x> https://evil.example"},
        run_id=f"run {ESC} @org/team",
    )
    made["big rep"] = runs / "big rep"
    write_run(made["big rep"], rows)
    (made["big rep"] / "results.jsonl").write_text('{"case": "a", "rep": 1e400, "passed": true}\n')
    made["not json"] = runs / "not json"
    write_run(made["not json"], rows)
    (made["not json"] / "results.jsonl").write_text("{nope\n")
    candidates = made["winner-rule"] / "candidates"
    (candidates / ".ipynb_checkpoints").mkdir()
    made["non-utf8 candidate"] = Path(shutil.copytree(made["winner-rule"], root / "campaign-q"))
    shutil.copytree(candidates / "MERGE", made["non-utf8 candidate"] / "candidates" / NOT_UTF8)
    suite = made["support-assistant"]
    made["edge dates"] = Path(shutil.copytree(suite, root / "edge-dates"))
    text = (made["edge dates"] / "suite.yaml").read_text()
    (made["edge dates"] / "suite.yaml").write_text(
        text.replace("started: 2025-05-12", "started: 9999-12-31")
    )
    made["no traffic"] = Path(shutil.copytree(suite, root / "no-traffic"))
    (made["no traffic"] / "traffic.yaml").unlink()
    made["alias bomb"] = root / "alias.yaml"
    made["alias bomb"].write_text("a: &a [x, x]\nb: [*a, *a]\n")
    made["garbage"] = root / "garbage.yaml"
    made["garbage"].write_text("- not\n- a decision\n")
    made["bad keymap"] = root / "keys.yaml"
    made["bad keymap"].write_text("keymap:\n  quit: ctrl+ctrl+q\n")
    return made


def _argvs(made: dict[str, Path]) -> list[list[str]]:
    agent, support = str(made["agent-suite"]), str(made["support-assistant"])
    base = str(made["base"])
    argvs: list[list[str]] = []
    for name in (
        "surrogate",
        "nul rules",
        "role",
        "blank template",
        "markup",
        "big rep",
        "not json",
    ):
        for fmt in ("json", "text", "markdown", "junit"):
            argvs.append(["gate", base, str(made[name]), "--format", fmt])
    argvs += [
        ["gate", agent, "--gate", str(made["alias bomb"])],
        ["gate", agent, "--flaky", str(made["garbage"])],
        ["gate", agent, "--base-ref=--output=/tmp/x"],
        ["gate", f"/nowhere/{NOT_UTF8}"],
        ["gate", agent, "--format", "json"],
        ["rank", str(made["winner-rule"]), "--format", "markdown"],
        ["rank", str(made["non-utf8 candidate"])],
        ["rank", base, str(made["markup"]), str(made["role"])],
        ["suite", "audit", str(made["edge dates"]), "--format", "json"],
        ["suite", "audit", support, "--as-of", "0001-01-01", "--format", "markdown"],
        ["suite", "audit", str(made["no traffic"]), "--fail-under", "50%"],
        ["suite", "audit", support, "--fail-under", "0.9"],
        ["suite", "retire", f"no-such-{ESC}", "--reason", "gone", "-w", support],
        ["suite", "retire", "sa-011", "--reason", " ", "-w", support],
        ["flaky", "propose", base, str(made["markup"]), "--format", "json"],
        ["flaky", "propose", base, str(made["surrogate"])],
        ["flaky", "check", "-w", agent],
        ["flaky", "add", f"case-{ESC}", "--owner", "", "--reason", "x", "-w", agent],
        ["calibrate", base],
        ["calibrate", base, str(made["markup"]), "--out", str(made["alias bomb"])],
        ["power", "--cases", "-3"],
        ["power", "--flip-share", "nan"],
        ["verify", str(made["garbage"])],
        ["verify", str(made["alias bomb"].parent / "none.yaml")],
        ["decide", agent, "--decision", "accept", "--cause", "flaky", "--reason", "x",
         "--reviewer", f"{ESC} <not an email>"],
        ["import", str(made["garbage"]), str(made["garbage"].parent / "imported")],
        ["open", agent, "--config", str(made["bad keymap"])],
    ]  # fmt: skip
    return argvs


def test_every_command_on_hostile_input_exits_as_documented_and_never_with_a_traceback(
    tmp_path: Path,
) -> None:
    made = _workspace(tmp_path)
    ran = run_all(_argvs(made), tmp_path)
    wrong = [
        (r.argv, r.code, r.err[-300:])
        for r in ran
        if "Traceback" in r.err
        or "panicked" in r.err
        or r.code not in (0, 1, 2, 3, 4)
        or (r.code == 1 and not _meant_exit_1(r))
    ]
    assert wrong == []
    assert not [r.argv for r in ran if "\x1b" in r.err]  # what the files said is shown, not obeyed
    codes = {" ".join(r.argv[:2]): r.code for r in ran}
    assert codes[f"rank {made['non-utf8 candidate']}"] == 2
    assert sorted({r.code for r in ran}) == [0, 1, 2, 3, 4]  # every outcome is reached


def test_a_bug_is_exit_70_never_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What no input should cause (a bug) is said as a bug, exit 70: exit 1 would read as BLOCK."""
    driver = DRIVER.replace(
        "import flipgate.cli  # imported once, before the forks",
        "import flipgate.cli.gate\nflipgate.cli.gate.cmd_gate = lambda args: 1 / 0",
    )
    monkeypatch.setattr(sys.modules[__name__], "DRIVER", driver)
    (ran,) = run_all([["gate", str(SAMPLES / "agent-suite")]], tmp_path)
    assert ran.code == 70
    assert ran.err.rstrip().endswith(
        "flipgate: internal error (a bug in flipgate, not in the input: please report it with the "
        "lines above); nothing unfinished was written"
    )
