"""One folder listing (`core/io/listing.py`) for every command that lists folders: hidden entries
skipped, a name that is not UTF-8 refused naming it (exit 2), never a traceback or a `rank` exit 1
("none may replace the incumbent") that was a crash."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from flipgate.cli import main
from flipgate.core.errors import InputError
from flipgate.core.io.listing import files_in, folders_in, text_name
from tests.conftest import SAMPLES

NOT_UTF8 = os.fsdecode(b"M\xff")  # as Python names it: a lone surrogate for the byte


def test_hidden_entries_are_skipped_and_the_rest_listed_in_order(tmp_path: Path) -> None:
    for name in ("b", "a", ".ipynb_checkpoints", ".git"):
        (tmp_path / name).mkdir()
    for name in ("d.yaml", ".c.yaml", "e.txt"):
        (tmp_path / name).write_text("")
    assert folders_in(tmp_path) == (tmp_path / "a", tmp_path / "b")
    assert files_in(tmp_path, ".yaml") == (tmp_path / "d.yaml",)
    assert folders_in(tmp_path / "none") == files_in(tmp_path / "none", ".yaml") == ()


def test_a_name_that_is_not_utf8_is_named_as_bytes(tmp_path: Path) -> None:
    (tmp_path / NOT_UTF8).mkdir()
    assert text_name(NOT_UTF8) == "M\\xff" and text_name("Mé") is None
    with pytest.raises(InputError) as refused:
        folders_in(tmp_path)
    assert str(refused.value) == (
        f"{tmp_path}/M\\xff: a name that is not UTF-8 text: rename it (only UTF-8 names are read)"
    )


@pytest.fixture
def campaign(tmp_path: Path) -> Path:
    return Path(shutil.copytree(SAMPLES / "winner-rule", tmp_path / "campaign"))


def test_rank_skips_a_notebook_checkpoint_folder(
    campaign: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (campaign / "candidates" / ".ipynb_checkpoints").mkdir()
    assert main(["rank", str(campaign)]) == 0
    assert "clears the incumbent: yes" in capsys.readouterr().out


def test_rank_names_a_candidate_folder_that_is_not_utf8(
    campaign: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(campaign / "candidates" / "MERGE", campaign / "candidates" / NOT_UTF8)
    assert main(["rank", str(campaign)]) == 2  # not 1: that says "none may replace"
    assert "candidates/M\\xff: a name that is not UTF-8 text" in capsys.readouterr().err


def test_suite_audit_names_a_history_folder_that_is_not_utf8(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace = Path(shutil.copytree(SAMPLES / "support-assistant", tmp_path / "support"))
    (workspace / "history" / ".ipynb_checkpoints").mkdir()
    (workspace / "decisions" / ".draft.yaml").write_text("not: a decision\n")
    assert main(["suite", "audit", str(workspace)]) == 0  # hidden entries are no run, no decision
    capsys.readouterr()
    shutil.copytree(workspace / "history" / "2025-09-30-q3", workspace / "history" / "q\udcff")
    assert main(["suite", "audit", str(workspace)]) == 2
    assert "history/q\\xff: a name that is not UTF-8 text" in capsys.readouterr().err


def test_an_argument_that_is_not_utf8_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gate", f"/tmp/{NOT_UTF8}"]) == 2
    assert capsys.readouterr().err == (
        "flipgate: error: an argument that is not UTF-8 text: /tmp/M\\xff\n"
    )
