"""The object stores the remote tests read from, each a local server the test starts on
127.0.0.1 with its bucket (or container) and objects made here: S3 (moto in server mode), GCS
(gcp-storage-emulator) and Azure Blob Storage (Azurite, from npm). Each test points flipgate at
one through the variables its cloud's SDKs read, as a user would.

A store whose server is not installed skips its tests with the reason; under CI (`CI` set) it
fails them instead, so that CI never passes by running none (.ci/run installs them all).
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from http.server import BaseHTTPRequestHandler, SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, NoReturn

import pytest

from flipgate.core.io.stores import AZURITE_KEY
from tests.conftest import REPO, SAMPLES

BUCKET = "evals"
PAIR = SAMPLES / "listing-reviewer"
CAMPAIGN = SAMPLES / "winner-rule"
INSPECT_LOG = REPO / "tests" / "fixtures" / "inspect" / "baseline.eval"
AZURE_ACCOUNT = "devstoreaccount1"  # Azurite's development account


def missing(what: str, why: str) -> NoReturn:
    """Skip for want of a server, but never under CI, which must run every test."""
    if os.environ.get("CI"):
        pytest.fail(f"{what} is not installed ({why}); .ci/run installs it")
    pytest.skip(f"{what} is not installed ({why})")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def upload(store: Any) -> None:
    """The samples under BUCKET/, an Inspect log, and a run with a bad line, into `store` (a
    pyarrow filesystem whose bucket or container BUCKET exists)."""
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


@dataclass(frozen=True)
class Store:
    """A running store: its URLs' prefix, and how the environment names a server at an address
    (this store's, or another that denies or never answers)."""

    prefix: str  # e.g. s3://evals
    at: Callable[[pytest.MonkeyPatch, str], None]  # point the environment at an http://address
    address: str  # this store's own


# --------------------------------------------------------------------------- S3


def _aws(monkeypatch: pytest.MonkeyPatch, address: str) -> None:
    """The environment a user of an S3-compatible store sets; no other AWS settings leak in."""
    monkeypatch.setenv("AWS_ENDPOINT_URL", address)
    monkeypatch.delenv("AWS_ENDPOINT_URL_S3", raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing-secret")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/dev/null")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")


@pytest.fixture(scope="session")
def s3_server() -> Iterator[str]:
    """moto's S3 in server mode on 127.0.0.1, holding the samples under s3://evals/."""
    try:
        from moto.server import ThreadedMotoServer
    except ImportError as error:
        missing("moto[server]", str(error))
    import pyarrow.fs as pafs

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # its request log
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    store = pafs.S3FileSystem(
        endpoint_override=f"127.0.0.1:{port}",
        scheme="http",
        access_key="testing",
        secret_key="testing-secret",
        region="us-east-1",
        allow_bucket_creation=True,
    )
    store.create_dir(BUCKET)
    upload(store)
    yield f"http://127.0.0.1:{port}"
    server.stop()


@pytest.fixture
def s3(s3_server: str, monkeypatch: pytest.MonkeyPatch) -> str:
    _aws(monkeypatch, s3_server)
    return f"s3://{BUCKET}"


# --------------------------------------------------------------------------- GCS


def _google(monkeypatch: pytest.MonkeyPatch, address: str) -> None:
    """STORAGE_EMULATOR_HOST, as Google's client libraries read it; no credentials file."""
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", address)
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)


@pytest.fixture(scope="session")
def gcs_server() -> Iterator[str]:
    """gcp-storage-emulator on 127.0.0.1, holding the samples under gs://evals/."""
    try:
        from gcp_storage_emulator.server import create_server
    except ImportError as error:
        missing("gcp-storage-emulator", str(error))
    import pyarrow.fs as pafs

    logging.getLogger("gcp_storage_emulator").setLevel(logging.ERROR)
    port = free_port()
    server = create_server("127.0.0.1", port, in_memory=True, default_bucket=BUCKET)
    server.start()
    upload(pafs.GcsFileSystem(anonymous=True, scheme="http", endpoint_override=f"127.0.0.1:{port}"))
    yield f"http://127.0.0.1:{port}"
    server.stop()


# --------------------------------------------------------------------------- Azure


def connection_string(address: str, key: str = AZURITE_KEY) -> str:
    """An emulator's connection string, as Azurite's documentation gives it."""
    return (
        f"DefaultEndpointsProtocol=http;AccountName={AZURE_ACCOUNT};AccountKey={key};"
        f"BlobEndpoint={address}/{AZURE_ACCOUNT};"
    )


def _azure(monkeypatch: pytest.MonkeyPatch, address: str) -> None:
    monkeypatch.setenv("AZURE_STORAGE_CONNECTION_STRING", connection_string(address))
    for name in ("AZURE_STORAGE_ACCOUNT_NAME", "AZURE_STORAGE_ACCOUNT_KEY", "AZURE_STORAGE_KEY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def azure_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Azurite's blob service on 127.0.0.1, holding the samples in the container `evals`."""
    azurite = shutil.which("azurite-blob")
    if azurite is None:
        missing("Azurite", "`npm install -g azurite` puts azurite-blob on PATH")
    import pyarrow.fs as pafs

    port = free_port()
    server = subprocess.Popen(
        [
            *(azurite, "--blobHost", "127.0.0.1", "--blobPort", str(port)),
            *("--inMemoryPersistence", "--silent", "--skipApiVersionCheck", "--disableTelemetry"),
        ],
        cwd=tmp_path_factory.mktemp("azurite"),  # where it would keep its own files
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for(port, server)
        authority = {"blob_storage_authority": f"127.0.0.1:{port}", "blob_storage_scheme": "http"}
        authority |= {"dfs_storage_authority": f"127.0.0.1:{port}", "dfs_storage_scheme": "http"}
        store = pafs.AzureFileSystem(
            account_name=AZURE_ACCOUNT, account_key=AZURITE_KEY, **authority
        )
        store.create_dir(BUCKET)
        upload(store)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=10)


def _wait_for(port: int, server: subprocess.Popen[bytes]) -> None:
    """Until the server takes connections: a few seconds for Node to start, 30 at most."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and server.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    pytest.fail(f"Azurite did not start on port {port} (exit status {server.poll()})")


# --------------------------------------------------------------------------- each store


STORES = ("s3", "gs", "az")


@pytest.fixture(params=STORES)
def store(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Store:
    """Each store in turn, the environment pointed at it."""
    scheme: str = request.param
    server, at = {
        "s3": ("s3_server", _aws),
        "gs": ("gcs_server", _google),
        "az": ("azure_server", _azure),
    }[scheme]
    address: str = request.getfixturevalue(server)
    at(monkeypatch, address)
    return Store(prefix=f"{scheme}://{BUCKET}", at=at, address=address)


# --------------------------------------------------------------------------- HTTP


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """The test's output stays the test's."""


@contextmanager
def serving(folder: Path) -> Iterator[str]:
    """`folder` served over plain HTTP on 127.0.0.1 (no listing is read: `files.txt` or names)."""
    with _on_loopback(partial(QuietHandler, directory=str(folder))) as url:
        yield url


@contextmanager
def answering(code: int) -> Iterator[str]:
    """A server that answers every request with `code` and nothing else."""

    class Answering(QuietHandler):
        def do_GET(self) -> None:
            self.send_response(code)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_HEAD = do_GET

    with _on_loopback(Answering) as url:
        yield url


@contextmanager
def _on_loopback(handler: Callable[..., BaseHTTPRequestHandler]) -> Iterator[str]:
    """An HTTP server on a free port of 127.0.0.1, in a thread, for the `with` block: its URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
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
