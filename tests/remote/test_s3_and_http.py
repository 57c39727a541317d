"""Runs read where they are stored (issue 25 item 4): `gate`, `open`, `import` and `rank` on
`s3://` URLs served by an S3-compatible server (moto) that the test starts on 127.0.0.1, and on
`http://` by a plain file server; every failure exit 2 naming the URL, never a traceback."""

from __future__ import annotations

import json
import logging
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from flipgate.cli import main
from flipgate.core.io import remote
from flipgate.session import GateRequest, read
from tests.conftest import REPO, SAMPLES

BUCKET = "evals"
PAIR = SAMPLES / "listing-reviewer"
CAMPAIGN = SAMPLES / "winner-rule"
INSPECT_LOG = REPO / "tests" / "fixtures" / "inspect" / "baseline.eval"
SAME = ("verdict", "rule", "b", "c", "p", "cells", "flipped")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    """moto's S3 in server mode on 127.0.0.1, holding the samples under s3://evals/."""
    server_module = pytest.importorskip("moto.server")
    import pyarrow.fs as pafs

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # its request log
    port = free_port()
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    store = pafs.S3FileSystem(
        endpoint_override=f"127.0.0.1:{port}",
        scheme="http",
        access_key="testing",
        secret_key="testing",
        region="us-east-1",
        allow_bucket_creation=True,
    )
    store.create_dir(BUCKET)
    for folder in (PAIR, CAMPAIGN):
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                key = f"{BUCKET}/{folder.name}/{path.relative_to(folder).as_posix()}"
                with store.open_output_stream(key) as out:
                    out.write(path.read_bytes())
    with store.open_output_stream(f"{BUCKET}/logs/baseline.eval") as out:
        out.write(INSPECT_LOG.read_bytes())
    with store.open_output_stream(f"{BUCKET}/broken/run.yaml") as out:
        out.write((PAIR / "candidate" / "run.yaml").read_bytes())
    with store.open_output_stream(f"{BUCKET}/broken/results.jsonl") as out:
        out.write(b'{"case_id": "a", "rep": "one"}\n')
    yield endpoint
    server.stop()


@pytest.fixture
def s3(s3_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The environment a user of an S3-compatible store sets; no other AWS settings leak in."""
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3_endpoint)
    monkeypatch.delenv("AWS_ENDPOINT_URL_S3", raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/dev/null")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
    return f"s3://{BUCKET}"


def gate_json(capsys: pytest.CaptureFixture[str], *runs: str) -> dict[str, object]:
    capsys.readouterr()
    assert main(["gate", *runs, "--format", "json"]) in (0, 1, 3, 4)
    got: dict[str, object] = json.loads(capsys.readouterr().out)
    return {field: got[field] for field in SAME}


def test_gate_on_s3_answers_as_on_the_disk(s3: str, capsys: pytest.CaptureFixture[str]) -> None:
    local = gate_json(capsys, str(PAIR / "baseline"), str(PAIR / "candidate"))
    assert gate_json(capsys, f"{s3}/{PAIR.name}/baseline", f"{s3}/{PAIR.name}/candidate") == local
    assert gate_json(capsys, f"{s3}/{PAIR.name}/candidate/run.yaml", str(PAIR / "candidate"))
    # A workspace by its URL brings its gate.yaml and flaky.yaml along.
    assert gate_json(capsys, f"{s3}/{PAIR.name}") == gate_json(capsys, str(PAIR))


def test_open_reads_the_runs_from_s3(s3: str) -> None:
    """The app is built from this request (`tui.factory.make_app`) and reads it so."""
    inputs = read(GateRequest.of([f"{s3}/{PAIR.name}/baseline", f"{s3}/{PAIR.name}/candidate"]))
    here = read(GateRequest.of([PAIR / "baseline", PAIR / "candidate"]))
    assert inputs.candidate.run_id == here.candidate.run_id
    assert inputs.candidate.decisions.equals(here.candidate.decisions)


def test_rank_on_s3_answers_as_on_the_disk(s3: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rank", str(CAMPAIGN), "--format", "json"]) == 0
    local = json.loads(capsys.readouterr().out)
    assert main(["rank", f"{s3}/{CAMPAIGN.name}", "--format", "json"]) == 0
    remote_ranking = json.loads(capsys.readouterr().out)
    for standing in remote_ranking["candidates"]:  # each named where it is stored
        assert standing.pop("path") == f"{s3}/{CAMPAIGN.name}/candidates/{standing['name']}"
    assert remote_ranking["candidates"] == [
        {k: v for k, v in standing.items() if k != "path"} for standing in local["candidates"]
    ]


def test_import_reads_a_log_from_s3(
    s3: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["import", f"{s3}/logs/baseline.eval", str(tmp_path / "from-s3")]) == 0
    assert main(["import", str(INSPECT_LOG), str(tmp_path / "from-disk")]) == 0
    for name in ("run.yaml", "results.jsonl"):
        assert (tmp_path / "from-s3" / name).read_bytes() == (
            tmp_path / "from-disk" / name
        ).read_bytes()


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("no-such-run/candidate", "no such object or folder"),
        ("listing-reviewer/no-such-arm", "no such object or folder"),
    ],
)
def test_a_missing_object_is_exit_2_naming_the_url(
    s3: str, path: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"{s3}/{path}"
    assert main(["gate", f"{s3}/{PAIR.name}/baseline", url]) == 2
    err = capsys.readouterr().err
    assert f"flipgate: error: {url}: {says}" in err
    assert "Traceback" not in err


def test_a_bad_line_is_named_under_its_url(s3: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gate", f"{s3}/{PAIR.name}/baseline", f"{s3}/broken"]) == 2
    err = capsys.readouterr().err
    assert f"flipgate: error: {s3}/broken/results.jsonl:1:" in err
    assert "/tmp" not in err and "flipgate-remote-" not in err


def test_a_denied_read_is_exit_2_naming_the_url(
    s3: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """moto checks no credentials; a denial is the store's answer, so a server that gives it."""
    with answering(403) as address:
        monkeypatch.setenv("AWS_ENDPOINT_URL", address)
        assert main(["gate", f"{s3}/{PAIR.name}/baseline", f"{s3}/{PAIR.name}/candidate"]) == 2
    err = capsys.readouterr().err
    assert f"{s3}/{PAIR.name}/baseline: access denied" in err
    assert "testing" not in err  # the keys are never printed


def test_a_store_that_does_not_answer_is_exit_2_naming_the_url(
    s3: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(remote, "TIMEOUT_S", 0.5)
    with silent_server() as address:
        monkeypatch.setenv("AWS_ENDPOINT_URL", address)
        assert main(["gate", f"{s3}/{PAIR.name}/baseline", str(PAIR / "candidate")]) == 2
        url = f"{address}/{PAIR.name}/baseline?token=secret"
        assert main(["gate", url, str(PAIR / "candidate")]) == 2
    err = capsys.readouterr().err
    assert f"{s3}/{PAIR.name}/baseline: no answer within 0.5 s" in err
    assert f"{url.split('?')[0]}: no answer within 0.5 s" in err
    assert "secret" not in err  # a signed URL's query is never printed


# --------------------------------------------------------------------------- over HTTP


@pytest.fixture(scope="module")
def http_samples() -> Iterator[str]:
    handler = partial(QuietHandler, directory=str(SAMPLES))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_gate_over_http_answers_as_on_the_disk(
    http_samples: str, capsys: pytest.CaptureFixture[str]
) -> None:
    local = gate_json(capsys, str(PAIR / "baseline"), str(PAIR / "candidate"))
    runs = (f"{http_samples}/{PAIR.name}/{arm}/" for arm in ("baseline", "candidate"))
    assert gate_json(capsys, *runs) == local


def test_no_run_over_http_is_exit_2_naming_the_url(
    http_samples: str, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"{http_samples}/{PAIR.name}/nothing-here"
    assert main(["gate", url, str(PAIR / "candidate")]) == 2
    assert f"{url}: no such run" in capsys.readouterr().err


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """The test's output stays the test's."""


@contextmanager
def answering(code: int) -> Iterator[str]:
    """A server that answers every request with `code` and nothing else."""

    class Answering(QuietHandler):
        def do_GET(self) -> None:
            self.send_response(code)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_HEAD = do_GET

    server = ThreadingHTTPServer(("127.0.0.1", 0), Answering)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def silent_server() -> Iterator[str]:
    """A port that accepts connections and never answers."""
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen(16)
        yield f"http://127.0.0.1:{listening.getsockname()[1]}"


def test_a_url_is_shown_without_its_secrets() -> None:
    shown = remote.shown("https://user:pa55@runs.example:8443/a/b/?X-Sig=abc#frag")
    assert shown == "https://runs.example:8443/a/b/"
    assert remote.is_url("s3://bucket/run") and remote.is_url("az://container/run")
    assert not remote.is_url(Path("s3://bucket/run")) and not remote.is_url("ftp://host/run")
    assert remote.fetched("sample_runs/x") == Path("sample_runs/x")  # a path stays itself
