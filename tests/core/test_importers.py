"""The importers behind one interface: a registry picks one, the CLI's flags are their options."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from flipgate.cli import build_parser
from flipgate.core.errors import InputError
from flipgate.core.importers import (
    IMPORTERS,
    ImportOptions,
    import_options,
    importer_for,
    options,
)
from tests.conftest import INSPECT_LOGS, PROMPTFOO_LOGS


def test_every_option_sets_a_field_and_is_a_flag_of_each_command_that_reads_runs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    fields = {f.name for f in dataclasses.fields(ImportOptions)}
    assert {o.field for o in options()} <= fields
    for command in ("gate", "open", "decide", "rank", "import"):
        with pytest.raises(SystemExit):
            build_parser().parse_args([command, "--help"])
        shown = " ".join(capsys.readouterr().out.split())
        for option in options():
            assert f"{option.flag}" in shown
            tools = ", ".join(
                importer.title for importer in IMPORTERS if option in importer.options
            )
            assert f"{tools}: {option.help}" in shown


def test_what_a_user_gives_becomes_the_options() -> None:
    args = build_parser().parse_args(
        [
            *("gate", "a", "b", "--partial-passes", "--pass-threshold", "0.5"),
            *("--select", "prompt=v2", "--select", "provider=gpt"),
        ]
    )
    assert import_options(vars(args)) == ImportOptions(
        partial_passes=True, pass_threshold=0.5, select={"prompt": "v2", "provider": "gpt"}
    )
    assert import_options(vars(build_parser().parse_args(["gate", "a", "b"]))) == ImportOptions()


@pytest.mark.parametrize(
    ("given", "flag", "message"),
    [
        ({"select": ["model=x"]}, "--select", "expected provider=LABEL or prompt=LABEL"),
        ({"select": ["prompt="]}, "--select", "not 'prompt='"),
        ({"pass_threshold": "high"}, "--pass-threshold", "could not convert"),
    ],
)
def test_a_badly_written_option_names_its_flag(
    given: dict[str, object], flag: str, message: str
) -> None:
    with pytest.raises(InputError, match=message) as error:
        import_options(given)
    assert error.value.path == Path(flag)


def test_the_registry_picks_by_content_not_by_name(tmp_path: Path) -> None:
    picked = {
        name: importer_for(path)
        for name, path in {
            "eval": INSPECT_LOGS / "baseline.eval",
            "json": INSPECT_LOGS / "baseline.json",
            "promptfoo": PROMPTFOO_LOGS / "baseline" / "results.json",
        }.items()
    }
    assert {name: i.name if i else None for name, i in picked.items()} == {
        "eval": "inspect",
        "json": "inspect",
        "promptfoo": "promptfoo",
    }
    renamed = tmp_path / "log.txt"
    renamed.write_bytes((PROMPTFOO_LOGS / "baseline" / "results.json").read_bytes())
    assert importer_for(renamed) is picked["promptfoo"]
    (tmp_path / "run.yaml").write_text("run_id: x\n")
    assert importer_for(tmp_path / "run.yaml") is None
    assert importer_for(tmp_path) is None
