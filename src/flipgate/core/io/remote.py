"""Runs read where they are stored: a RUN (or a LOG) given as `s3://`, `gs://`, `az://` or
`https://` is copied, file by file, into a private folder of this process and read from there.

The copy goes through pyarrow's own object-store filesystems (S3, GCS, Azure), which take their
credentials from the usual environment (AWS_ACCESS_KEY_ID or a profile, GOOGLE_APPLICATION_
CREDENTIALS, AZURE_STORAGE_ACCOUNT_NAME and _KEY); an S3-compatible server is named by
AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, as the AWS SDKs name it. An `https://` folder has no
listing, so its run.yaml and results file are asked for by name (a workspace over HTTPS is not).

Why a copy rather than reading the objects in place: every check of SPEC §2 (the nesting scan,
the line-by-line reading that names the bad line, the memory estimate) reads a local file, and
the gate reads every byte of the results once anyway; the copy costs disk, not memory. A URL is
shown without its query or user part (a signed URL's token, a password), and every failure (no
such object, access denied, a timeout) is an `InputError` naming the URL.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import IO, Any
from urllib.parse import urlsplit, urlunsplit

from flipgate.core.errors import InputError

SCHEMES = ("s3", "gs", "az", "abfs", "abfss", "https", "http")
TIMEOUT_S = 30.0  # to connect, and for each request: a store that does not answer is bad input
RUN_FILES = ("run.yaml", "results.parquet", "results.jsonl", "results.json")  # over HTTPS
_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_CHUNK = 1 << 20

_copies: dict[Path, str] = {}  # each local copy and the URL (as shown) it was read from
_scratch: list[Path] = []


def is_url(text: str | Path) -> bool:
    """A RUN given as a URL of a store we read (a Path never is: it folds `//`)."""
    found = _URL.match(text) if isinstance(text, str) else None
    return found is not None and found.group(1).lower() in SCHEMES


def shown(url: str) -> str:
    """`url` without what may hold a secret: the user part, the query, the fragment."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]  # the host and port, without user:password@
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def fetched(run: str | Path) -> Path:
    """The local path of a RUN: itself, or for a URL, a copy of what it names (a run's folder, a
    workspace, a log, a run.yaml with its folder's files)."""
    if not is_url(run):
        return Path(run)
    url = str(run)
    name = PurePosixPath(urlsplit(url).path).name or urlsplit(url).hostname or "run"
    into = Path(tempfile.mkdtemp(prefix="copy-", dir=_scratch_folder()))
    local = into / name
    if urlsplit(url).scheme.lower() in ("https", "http"):
        _copy_over_http(url, local)
    else:
        _copy_from_store(url, local)
    _copies[local] = shown(url)
    return local


def where(path: Path) -> str:
    """`path` as the user named it: a file of a copy is shown under its URL."""
    for local, url in _copies.items():
        if path == local or local in path.parents:
            return url + path.as_posix()[len(local.as_posix()) :]
    return str(path)


def located(error: InputError) -> InputError:
    """`error`, naming the URL where it names a file of a copy."""
    if not any(error.path == local or local in error.path.parents for local in _copies):
        return error
    return InputError(where(error.path), error.message, line=error.line, field=error.field)


# --------------------------------------------------------------------------- object stores


def _copy_from_store(url: str, local: Path) -> None:
    import pyarrow.fs as pafs

    with _failures(url):
        filesystem, path = _filesystem(url)
        info = filesystem.get_file_info(path)
        if info.type == pafs.FileType.NotFound:
            raise FileNotFoundError(path)
        if info.type == pafs.FileType.File and local.name == RUN_FILES[0]:
            parent = path.rsplit("/", 1)[0]  # a run.yaml stands for its run's folder
            _copy_folder(filesystem, parent, local.parent)
        elif info.type == pafs.FileType.File:
            _copy_file(filesystem.open_input_stream, path, local)
        else:
            _copy_folder(filesystem, path, local)


def _copy_folder(filesystem: Any, path: str, local: Path) -> None:
    import pyarrow.fs as pafs

    local.mkdir(parents=True, exist_ok=True)
    for info in filesystem.get_file_info(pafs.FileSelector(path, recursive=True)):
        if info.type == pafs.FileType.File:
            _copy_file(filesystem.open_input_stream, info.path, local / info.path[len(path) + 1 :])


def _copy_file(open_input: Callable[[str], IO[bytes]], path: str, local: Path) -> None:
    local.parent.mkdir(parents=True, exist_ok=True)
    with open_input(path) as source, local.open("wb") as out:
        shutil.copyfileobj(source, out, _CHUNK)


def _filesystem(url: str) -> tuple[Any, str]:
    """pyarrow's filesystem for `url` and the path within it. S3 is built here: pyarrow reads
    neither the SDKs' endpoint variables nor a timeout from the URL."""
    import pyarrow.fs as pafs

    parts = urlsplit(url)
    scheme, path = parts.scheme.lower(), f"{parts.hostname}{parts.path}".rstrip("/")
    if scheme == "s3":
        endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
        options: dict[str, Any] = {"connect_timeout": TIMEOUT_S, "request_timeout": TIMEOUT_S}
        if endpoint:
            address = urlsplit(endpoint)
            options |= {"endpoint_override": address.netloc, "scheme": address.scheme}
        return pafs.S3FileSystem(**options), path
    if scheme == "az":  # object_store's and polars' name for Azure Blob Storage
        account = os.environ.get("AZURE_STORAGE_ACCOUNT_NAME")
        if not account:
            raise InputError(shown(url), "set AZURE_STORAGE_ACCOUNT_NAME to read az:// URLs")
        key = os.environ.get("AZURE_STORAGE_ACCOUNT_KEY")
        return pafs.AzureFileSystem(account_name=account, account_key=key), path
    filesystem, inside = pafs.FileSystem.from_uri(url)
    return filesystem, inside.rstrip("/")


@contextmanager
def _failures(url: str) -> Iterator[None]:
    """What a store raises, as an `InputError` naming the URL (never its secrets)."""
    try:
        yield
    except InputError:
        raise
    except (OSError, ValueError) as error:
        raise InputError(shown(url), _why(error)) from None


def _why(error: BaseException) -> str:
    text = str(error)
    if isinstance(error, FileNotFoundError) or "NO_SUCH" in text or "404" in text:
        return "no such object or folder"
    if isinstance(error, PermissionError) or re.search(
        r"ACCESS_DENIED|AccessDenied|InvalidAccessKeyId|SignatureDoesNotMatch|40[13]", text
    ):
        return "access denied: check the credentials in the environment"
    if isinstance(error, TimeoutError) or re.search(r"(?i)timed? ?out|curlCode: 28", text):
        return f"no answer within {TIMEOUT_S:g} s"
    first = text.splitlines()[0] if text else type(error).__name__
    return f"could not be read: {first}"


# --------------------------------------------------------------------------- HTTPS


def _copy_over_http(url: str, local: Path) -> None:
    """A file by its URL; a folder by the names a run's files have (there is no listing)."""
    base = url.split("?", 1)[0].rstrip("/")
    query = f"?{urlsplit(url).query}" if urlsplit(url).query else ""
    if PurePosixPath(urlsplit(url).path).suffix:
        if local.name != RUN_FILES[0]:
            _get(url, local, url)
            return
        base, local = base.rsplit("/", 1)[0], local.parent
    found = [name for name in RUN_FILES if _get(f"{base}/{name}{query}", local / name, url, True)]
    if not found:
        raise InputError(shown(url), f"no such run: none of {', '.join(RUN_FILES)} here")


def _get(url: str, local: Path, given: str, missing_ok: bool = False) -> bool:
    """Copy `url` to `local`; False when it is not there and `missing_ok`."""
    import urllib.error  # here: with http.client, 30 ms of a local gate's start-up
    import urllib.request

    local.parent.mkdir(parents=True, exist_ok=True)
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as answer, local.open("wb") as out:
            shutil.copyfileobj(answer, out, _CHUNK)
    except urllib.error.HTTPError as error:
        if error.code == 404 and missing_ok:
            return False
        raise InputError(shown(given), _why(error)) from None
    except OSError as error:  # URLError, a timeout, a reset
        reason = getattr(error, "reason", error)
        raise InputError(
            shown(given), _why(reason if isinstance(reason, BaseException) else error)
        ) from None
    return True


def _scratch_folder() -> Path:
    """This process's folder of copies, removed when it exits."""
    if not _scratch:
        folder = Path(tempfile.mkdtemp(prefix="flipgate-remote-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        _scratch.append(folder)
    return _scratch[0]
