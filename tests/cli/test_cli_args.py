"""The arguments several commands share (cli/arguments.py): declared once, read alike everywhere."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from flipgate.cli import COMMANDS, build_parser, main
from flipgate.cli.arguments import THEMES, gate_request, share
from flipgate.session import Shape
from flipgate.tui.themes import THEMES as APP_THEMES
from tests.conftest import SAMPLES


def test_the_parser_s_themes_are_the_app_s() -> None:
    assert THEMES == APP_THEMES


def test_each_command_is_added_by_its_group_in_the_order_help_lists() -> None:
    """`main` imports only the chosen command's group, found in `COMMANDS`: each command there
    must be the one its group adds, and `--help` lists them in the table's order."""
    every = build_parser()._subparsers
    assert every is not None
    (commands,) = (a for a in every._group_actions if isinstance(a, argparse._SubParsersAction))
    assert list(commands.choices) == list(COMMANDS)
    for command, group in COMMANDS.items():
        alone = build_parser(command)._subparsers
        assert alone is not None
        added = [a for a in alone._group_actions if isinstance(a, argparse._SubParsersAction)]
        assert command in added[0].choices, (command, group)
        assert set(added[0].choices) == {c for c, g in COMMANDS.items() if g == group}


DECIDE = ["decide", "--decision", "reject", "--cause", "regression", "--reason", "r"]


@pytest.mark.parametrize("command", [["gate"], ["open"], DECIDE, ["rank"]])
def test_a_declared_change_reads_alike_in_every_command(command: list[str]) -> None:
    runs = [str(SAMPLES / "winner-rule" / run) for run in ("baseline", "candidates/CLAUDE")]
    args = build_parser().parse_args(
        [*command, *runs, "--change", "model, prompt", "--change", "judge"]
    )
    shape: Shape = "ranking" if command == ["rank"] else "pair"
    assert gate_request(args, shape).declared_change == ("model", "prompt", "judge")


def test_rank_says_what_its_gate_spec_is_read_for(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["rank", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert "gate spec: its `aggregate` is the release rule (default: the workspace's" in said
    assert "may move (repeatable; adds to each candidate's change.keys)" in said


@pytest.mark.parametrize(
    ("text", "value"), [("0.06", 0.06), ("6%", 0.06), ("0", 0.0), ("100%", 1.0)]
)
def test_a_share_is_a_fraction_or_a_percentage(text: str, value: float) -> None:
    assert share(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["1.5", "-1%", "40%%", "six", "nan"])
def test_anything_else_is_refused(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        share(text)


def test_a_flaky_command_s_bad_input_is_said_safely(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`flipgate flaky`'s errors are `main`'s, as every command's: exit 2, escapes shown."""
    (tmp_path / "flaky.yaml").write_text("entries: []\n")
    case = "case-\x1b]0;pwned\x07"
    assert main(["flaky", "remove", case, "--note", "fixed", "-w", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("flipgate: error:") and "is not on the flaky list" in err
    assert "\x1b" not in err and "\x07" not in err
