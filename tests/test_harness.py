"""The suite's own promises (tests/conftest.py, tests/golden.py): it runs the same whatever the
user's environment, and compares golden numbers within a stated tolerance."""

from __future__ import annotations

import io
import os
import subprocess
from pathlib import Path

import pytest
from rich.console import Console

from tests.conftest import REPO
from tests.golden import JSON, REL, differences


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
