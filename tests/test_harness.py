"""The suite's own promises (tests/conftest.py, tests/golden.py): it runs the same whatever the
user's environment, and compares golden numbers within a stated tolerance."""

from __future__ import annotations

import ast
import importlib
import io
import os
import subprocess
import tempfile
from pathlib import Path, PurePath

import pytest
from rich.console import Console

from flipgate.cli import main
from flipgate.core.gate.compare import compare
from flipgate.core.gate.spec import default_spec
from flipgate.core.runs.reading import load_run
from flipgate.core.triage.walk import save_walk, start_walk, walk_path
from tests.conftest import (
    BUNDLED,
    FIXTURES,
    REPO,
    SAMPLES,
    KeyMaker,
    copy_sample,
    files_below,
    pristine_samples,
)
from tests.golden import JSON, REL, assert_golden, differences


def test_every_test_runs_in_an_environment_of_its_own(environment: Path) -> None:
    """What a hostile shell sets (`NO_COLOR=1 TERM=dumb COLUMNS=40 FORCE_COLOR=1`, a signing key
    in git's configuration, a keymap in the XDG folder) does not reach a test."""
    for name in ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES", "PAGER", "EDITOR", "LC_ALL"):
        assert name not in os.environ, name
    assert os.environ["TERM"] == "xterm-256color"
    assert Path.home() == environment and not any(environment.joinpath(".config").iterdir())
    assert Path(os.environ["XDG_DATA_HOME"]).is_relative_to(environment)
    assert not Path.cwd().is_relative_to(REPO) and not any(Path.cwd().iterdir())
    config = subprocess.run(
        ["git", "config", "--list", "--show-origin"], capture_output=True, text=True, check=False
    )
    assert config.stdout == ""  # no user.signingkey, no commit.gpgsign, no allowed signers
    console = Console(file=io.StringIO(), force_terminal=True)
    assert (console.width, console.no_color, console.color_system) == (80, False, "256")


@pytest.mark.parametrize(
    ("actual", "expected", "same"),
    [
        (0.05598075764616601, 0.055980757646166016, True),  # the last digit, CPU to CPU
        (0.05598076, 0.055980757646166016, False),  # the eighth
        (1.0 + 2 * REL, 1.0, False),
        (1e-17, 0.0, True),  # a zero that arrived by another path
        (2, 2.0, False),  # a whole number printed as a float is a change of format
        ("0.05", 0.05, False),
        ({"b": 1, "a": 2}, {"a": 2, "b": 1}, False),  # the keys' order is part of the output
        ([0.1 + 0.2, "x"], [0.3, "x"], True),
        ([1, 2], [1, 2, 3], False),
    ],
)
def test_golden_json_compares_floats_within_the_tolerance(
    actual: JSON, expected: JSON, same: bool
) -> None:
    assert (differences(actual, expected) == []) is same


TESTS = REPO / "tests"


def test_no_test_module_reads_outside_the_repository() -> None:
    """A fresh clone holds everything the tests read: no module-level path outside the repository
    (or the temporary folders the suite makes), and no `parents[k]` climbing above it."""
    outside: list[str] = []
    for path in sorted(TESTS.rglob("*.py")):
        if FIXTURES in path.parents:
            continue  # the scripts that made the real tools' logs, not tests
        name = ".".join(path.relative_to(REPO).with_suffix("").parts)
        module = importlib.import_module(name.removesuffix(".__init__"))
        for attribute, value in vars(module).items():
            if isinstance(value, PurePath) and value.is_absolute() and not within_reach(value):
                outside.append(f"{name}.{attribute} = {value}")
        depth = len(path.relative_to(REPO).parts) - 1  # parents[depth] is the repository
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Subscript)
                and isinstance(node.value, ast.Attribute)
                and node.value.attr == "parents"
                and isinstance(node.slice, ast.Constant)
                and isinstance(node.slice.value, int)
                and node.slice.value > depth
            ):
                outside.append(
                    f"{path.relative_to(REPO)}:{node.lineno}: parents[{node.slice.value}]"
                )
    assert not outside, "\n".join(outside)


def within_reach(path: PurePath) -> bool:
    return path.is_relative_to(REPO) or path.is_relative_to(tempfile.gettempdir())


def test_a_tried_sample_never_reaches_a_test(
    tmp_path: Path,
    make_key: KeyMaker,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The README's tour walked in a checkout's own sample folder, as it was before `flipgate
    samples`: a rerun plan, an accepted flaky proposal, a signed decision, a saved triage walk.
    The samples the tests read are checked out from git, so they hold none of it, and a golden
    test run on them still passes."""
    repo = tmp_path / "checkout"
    workspace = copy_sample("agent-suite", repo / BUNDLED / "agent-suite")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "the samples"], check=True)

    plan = workspace / "rerun-plan.yaml"
    assert main(["gate", str(workspace), "--rerun-plan", str(plan)]) == 3
    flaky = ["flaky", "add", "case-033", "--owner", "qa-oncall", "--reason", "ambiguous judge"]
    assert main([*flaky, "-w", str(workspace)]) == 0
    signed = ["decide", str(workspace), "--decision", "reject", "--cause", "regression"]
    signed += ["--reason", "refunds broke", "--case", "case-012", "--key", str(make_key("ana"))]
    assert main([*signed, "--reviewer", "Ana <ana@example.com>"]) == 0
    comparison = compare(
        load_run(workspace / "baseline"), load_run(workspace / "candidate"), default_spec()
    )
    save_walk(walk_path(workspace), start_walk(comparison).record("infra", finding="ruled_out"))
    tried = subprocess.run(
        [*git, "status", "--porcelain", "--untracked-files=all"], capture_output=True, text=True
    ).stdout
    assert sorted(line.split("/")[-2] + " " + line[:2] for line in tried.splitlines()) == [
        ".flipgate ??",
        "agent-suite  M",  # flaky.yaml
        "agent-suite ??",  # rerun-plan.yaml
        "decisions ??",
    ]

    pristine = pristine_samples(repo, tmp_path / "tests")
    assert files_below(pristine / "agent-suite") == files_below(SAMPLES / "agent-suite")
    capsys.readouterr()
    monkeypatch.chdir(pristine.parent)
    assert main(["gate", "sample_runs/agent-suite", "--format", "json"]) == 3
    assert_golden(capsys.readouterr().out, REPO / "tests/present/golden/agent-suite.json")
