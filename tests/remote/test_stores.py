"""Runs read where they are stored (issue 25 item 4): `gate`, `open`, `rank` and `import` on
`s3://`, `gs://` and `az://` URLs, each store a local server (conftest.py) that the environment
names as a user's would; every failure exit 2 naming the URL, never a traceback or a secret."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flipgate.cli import main
from flipgate.core.io import remote
from flipgate.core.io.stores import AZURITE_KEY
from flipgate.session import GateRequest, read
from tests.remote.conftest import (
    AZURE_ACCOUNT,
    BUCKET,
    CAMPAIGN,
    INSPECT_LOG,
    PAIR,
    Store,
    answering,
    connection_string,
    silent_server,
)

SAME = ("verdict", "rule", "b", "c", "p", "cells", "flipped")


def gate_json(capsys: pytest.CaptureFixture[str], *runs: str) -> dict[str, object]:
    capsys.readouterr()
    assert main(["gate", *runs, "--format", "json"]) in (0, 1, 3, 4)
    got: dict[str, object] = json.loads(capsys.readouterr().out)
    return {field: got[field] for field in SAME}


def test_gate_answers_as_on_the_disk(store: Store, capsys: pytest.CaptureFixture[str]) -> None:
    at = f"{store.prefix}/{PAIR.name}"
    local = gate_json(capsys, str(PAIR / "baseline"), str(PAIR / "candidate"))
    assert gate_json(capsys, f"{at}/baseline", f"{at}/candidate") == local
    assert gate_json(capsys, f"{at}/baseline/run.yaml", str(PAIR / "candidate")) == local
    # A workspace by its URL brings its gate.yaml and flaky.yaml along.
    assert gate_json(capsys, at) == gate_json(capsys, str(PAIR))


def test_open_reads_the_runs_from_the_store(store: Store) -> None:
    """The app is built from this request (`tui.factory.make_app`) and reads it so."""
    at = f"{store.prefix}/{PAIR.name}"
    inputs = read(GateRequest.of([f"{at}/baseline", f"{at}/candidate"]))
    here = read(GateRequest.of([PAIR / "baseline", PAIR / "candidate"]))
    assert inputs.candidate.run_id == here.candidate.run_id
    assert inputs.candidate.decisions.equals(here.candidate.decisions)


def test_rank_answers_as_on_the_disk(store: Store, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rank", str(CAMPAIGN), "--format", "json"]) == 0
    local = json.loads(capsys.readouterr().out)
    assert main(["rank", f"{store.prefix}/{CAMPAIGN.name}", "--format", "json"]) == 0
    ranked = json.loads(capsys.readouterr().out)
    for standing in ranked["candidates"]:  # each named where it is stored
        assert (
            standing.pop("path") == f"{store.prefix}/{CAMPAIGN.name}/candidates/{standing['name']}"
        )
    assert ranked["candidates"] == [
        {k: v for k, v in standing.items() if k != "path"} for standing in local["candidates"]
    ]


def test_import_reads_a_log_from_the_store(store: Store, tmp_path: Path) -> None:
    assert main(["import", f"{store.prefix}/logs/baseline.eval", str(tmp_path / "remote")]) == 0
    assert main(["import", str(INSPECT_LOG), str(tmp_path / "local")]) == 0
    for name in ("run.yaml", "results.jsonl"):
        assert (tmp_path / "remote" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()


@pytest.mark.parametrize("path", ["no-such-run/candidate", f"{PAIR.name}/no-such-arm"])
def test_a_missing_object_is_exit_2_naming_the_url(
    store: Store, path: str, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"{store.prefix}/{path}"
    assert main(["gate", f"{store.prefix}/{PAIR.name}/baseline", url]) == 2
    err = capsys.readouterr().err
    assert f"flipgate: error: {url}: no such object or folder" in err
    assert "Traceback" not in err


def test_a_bad_line_is_named_under_its_url(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["gate", f"{store.prefix}/{PAIR.name}/baseline", f"{store.prefix}/broken"]) == 2
    err = capsys.readouterr().err
    assert f"flipgate: error: {store.prefix}/broken/results.jsonl:1:" in err
    assert "/tmp" not in err and "flipgate-remote-" not in err


def test_a_denied_read_is_exit_2_naming_the_url(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Azurite checks the key's signature, so Azure is denied by its own emulator with a wrong
    key; moto and the GCS emulator check nothing, so a server that answers 403 stands in."""
    runs = [f"{store.prefix}/{PAIR.name}/baseline", f"{store.prefix}/{PAIR.name}/candidate"]
    wrong_key = "V3JvbmdLZXlXcm9uZ0tleVdyb25nS2V5V3JvbmdLZXk="
    if store.prefix.startswith("az://"):
        monkeypatch.setenv(
            "AZURE_STORAGE_CONNECTION_STRING", connection_string(store.address, wrong_key)
        )
        assert main(["gate", *runs]) == 2
    else:
        with answering(403) as address:
            store.at(monkeypatch, address)
            assert main(["gate", *runs]) == 2
    err = capsys.readouterr().err
    assert f"flipgate: error: {runs[0]}: access denied" in err
    assert wrong_key not in err and "testing-secret" not in err  # no key is printed
    assert "Traceback" not in err


def test_a_store_that_does_not_answer_is_exit_2_naming_the_url(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(remote, "TIMEOUT_S", 0.5)
    url = f"{store.prefix}/{PAIR.name}/baseline"
    with silent_server() as address:
        store.at(monkeypatch, address)
        assert main(["gate", url, str(PAIR / "candidate")]) == 2
    err = capsys.readouterr().err
    assert f"flipgate: error: {url}: no answer within 0.5 s" in err
    assert "Traceback" not in err


def test_azure_reads_the_account_and_key_variables(
    azure_server: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without a key in the connection string, the Azure CLI's AZURE_STORAGE_KEY; the emulator's
    endpoint still comes from the connection string (as `az storage` accepts it)."""
    for name in (
        "AZURE_STORAGE_ACCOUNT_NAME",
        "AZURE_STORAGE_ACCOUNT_KEY",
        "AZURE_STORAGE_SAS_TOKEN",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(
        "AZURE_STORAGE_CONNECTION_STRING",
        f"AccountName={AZURE_ACCOUNT};BlobEndpoint={azure_server}/{AZURE_ACCOUNT}",
    )
    url = f"az://{BUCKET}/{PAIR.name}/baseline"
    monkeypatch.setenv("AZURE_STORAGE_KEY", AZURITE_KEY)
    assert gate_json(capsys, url, str(PAIR / "candidate")) == gate_json(
        capsys, str(PAIR / "baseline"), str(PAIR / "candidate")
    )
    monkeypatch.setenv("AZURE_STORAGE_KEY", "V3JvbmdLZXlXcm9uZ0tleVdyb25nS2V5V3JvbmdLZXk=")
    assert main(["gate", url, str(PAIR / "candidate")]) == 2
    assert f"{url}: access denied" in capsys.readouterr().err  # the key was used, and is wrong
    monkeypatch.delenv("AZURE_STORAGE_CONNECTION_STRING")
    monkeypatch.delenv("AZURE_STORAGE_KEY")
    assert main(["gate", url, str(PAIR / "candidate")]) == 2
    assert "set AZURE_STORAGE_CONNECTION_STRING" in capsys.readouterr().err
