"""Runs read where they are stored: a RUN, a workspace, a log or a file given as `s3://`, `gs://`,
`az://` or `https://` is copied into a private folder of this process and read from there.

The copy goes through pyarrow's own object-store filesystems (S3, GCS, Azure), built from the
environment each cloud's SDKs read (`stores.py`). A folder served over HTTP(S) has no listing: it
is read by the names in its `files.txt` (one relative path a line, as `find . -type f` prints
them), else by the names a run's files have, and those the caller adds (a workspace's).

Why a copy rather than reading the objects in place: every check of SPEC §2 (the nesting scan,
the line-by-line reading that names the bad line, the memory estimate) reads a local file, and
the gate reads every byte of the results once anyway; the copy costs disk, not memory. So the
copy is bounded: its size is known before a byte is copied (a store's listing, an HTTP answer's
length) and a copy bigger than the disk has free is refused. The folder is the user's alone
(mode 0700) and removed when the process exits, and a copy that fails is removed at once.

A URL is shown without its user part, query and fragment (a password, a signed URL's token), a
store's message without the secrets of the environment, and every failure (no such object, access
denied, a timeout) is an `InputError` naming the URL.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import signal
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from types import FrameType
from typing import IO, Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

from flipgate.core.errors import InputError
from flipgate.core.io import stores
from flipgate.core.io.digest import RESULTS_FILES, RUN_FILE

SCHEMES = ("s3", "gs", "az", "abfs", "abfss", "https", "http")
TIMEOUT_S = 30.0  # to connect, and for each request: a store that does not answer is bad input
RUN_FILES = (RUN_FILE, *RESULTS_FILES)  # a run's files, asked for by name over HTTP
HTTP_LISTING = "files.txt"  # a folder served over HTTP names its files here
LISTING_BYTES = 1 << 20  # a files.txt longer than this is something else
ROOM_BYTES = 64 << 20  # left free on the disk beside a copy: what else writes there needs some
_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_CHUNK = 1 << 20
T = TypeVar("T")

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


def fetched(run: str | Path, known: Sequence[str] = ()) -> Path:
    """The local path of a RUN: itself, or for a URL, a copy of what it names (a run's folder, a
    workspace, a log, a file, a run.yaml with its folder's files). `known`: the relative paths
    a folder over HTTP may hold beside a run's files (a workspace's), when it has no listing."""
    if not is_url(run):
        return Path(run)
    url = str(run)
    name = PurePosixPath(urlsplit(url).path).name or urlsplit(url).hostname or "run"
    into = Path(tempfile.mkdtemp(prefix="copy-", dir=_scratch_folder()))  # mode 0700
    local = into / name
    try:
        if urlsplit(url).scheme.lower() in ("https", "http"):
            _copy_over_http(url, local, known)
        else:
            _copy_from_store(url, local)
    except BaseException:  # half a copy is never read, nor left behind
        shutil.rmtree(into, ignore_errors=True)
        raise
    _copies[local] = shown(url)
    return local


def where(path: Path) -> str:
    """`path` as the user named it: a file of a copy is shown under its URL."""
    for local, url in _copies.items():
        if _within(path, local):
            return url + path.as_posix()[len(local.as_posix()) :]
    return str(path)


def is_copy(path: Path) -> bool:
    """`path` is in the folder of a copy of a URL: nothing written there outlives the process."""
    return any(_within(path, local.parent) for local in _copies)


def located(error: InputError) -> InputError:
    """`error`, naming the URL where it names a file of a copy."""
    if not any(_within(error.path, local) for local in _copies):
        return error
    return InputError(where(error.path), error.message, line=error.line, field=error.field)


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


# --------------------------------------------------------------------------- object stores


def _copy_from_store(url: str, local: Path) -> None:
    import pyarrow.fs as pafs

    with _failures(url):
        filesystem, path = stores.filesystem(url, TIMEOUT_S)
        info = _answered(filesystem.get_file_info, path)
        if info.type == pafs.FileType.NotFound:
            raise FileNotFoundError(path)
        if info.type == pafs.FileType.File and local.name == RUN_FILE:
            path, local = path.rsplit("/", 1)[0], local.parent  # a run.yaml: its run's folder
        elif info.type == pafs.FileType.File:
            _check_room(url, info.size or 0)
            _copy_file(filesystem.open_input_stream, info.path, local)
            return
        listed = [
            found
            for found in _answered(
                filesystem.get_file_info, pafs.FileSelector(path, recursive=True)
            )
            if found.type == pafs.FileType.File
        ]
        _check_room(url, sum(found.size or 0 for found in listed))
        for found in listed:
            target = local / found.path[len(path) + 1 :]
            _copy_file(filesystem.open_input_stream, found.path, target)


def _copy_file(open_input: Callable[[str], IO[bytes]], path: str, local: Path) -> None:
    """One object, chunk by chunk, each chunk asked for within the timeout."""
    local.parent.mkdir(parents=True, exist_ok=True)
    with _answered(open_input, path) as source, local.open("wb") as out:
        while chunk := _answered(source.read, _CHUNK):
            out.write(chunk)


def _answered(call: Callable[..., T], *args: Any) -> T:
    """`call(*args)` when the store answers within TIMEOUT_S, else a TimeoutError. Not every
    store takes a timeout (pyarrow gives GCS and Azure none: a silent server holds a request for
    minutes), so the call runs in a thread of its own that is left behind if it hangs."""
    answer: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            answer.append(call(*args))
        except BaseException as error:  # handed to the caller's thread
            failure.append(error)

    worker = threading.Thread(target=run, name="flipgate-remote", daemon=True)
    worker.start()
    worker.join(TIMEOUT_S)
    if worker.is_alive():
        raise TimeoutError(f"timed out after {TIMEOUT_S:g} s")
    if failure:
        raise failure[0]
    return answer[0]


@contextmanager
def _failures(url: str) -> Iterator[None]:
    """What a store raises, as an `InputError` naming the URL (never its secrets)."""
    from pyarrow import ArrowException

    try:
        yield
    except InputError:
        raise
    except (OSError, ValueError, ArrowException) as error:
        raise InputError(shown(url), _why(error)) from None


def _why(error: BaseException) -> str:
    text = _scrubbed(str(error))
    if isinstance(error, stores.NotConfigured):
        return text
    if isinstance(error, FileNotFoundError) or re.search(
        r"NO_SUCH|NOT_FOUND|BlobNotFound|404", text
    ):
        return "no such object or folder"
    if isinstance(error, PermissionError) or re.search(
        r"ACCESS_DENIED|AccessDenied|InvalidAccessKeyId|SignatureDoesNotMatch|PERMISSION_DENIED"
        r"|Authentication|AuthorizationFailure|40[13]",
        text,
    ):
        return "access denied: check the credentials in the environment"
    if isinstance(error, TimeoutError) or re.search(r"(?i)timed? ?out|curlCode: 28", text):
        return f"no answer within {TIMEOUT_S:g} s"
    first = text.splitlines()[0] if text else type(error).__name__
    return f"could not be read: {first}"


def _scrubbed(text: str) -> str:
    """A store's message without a URL's query or the environment's secrets."""
    text = re.sub(r"(\w+://[^\s'\"?]*)\?[^\s'\"]*", r"\1", text)
    for secret in stores.secrets():
        text = text.replace(secret, "***")
    return text


def _check_room(url: str, size: int) -> None:
    """Refuse a copy of `size` bytes that the disk under the copies has no room for."""
    free = shutil.disk_usage(_scratch_folder()).free
    if size > free - ROOM_BYTES:
        raise InputError(
            shown(url),
            f"too big to copy here: {_amount(size)} to copy, and {_amount(max(free - ROOM_BYTES, 0))}"
            f" free in {tempfile.gettempdir()} (set TMPDIR to a folder with room)",
        )


def _amount(n: int) -> str:
    """A size as a person reads it: 812 bytes, 3.4 MB, 12.0 GB."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6)):
        if n >= scale:
            return f"{n / scale:,.1f} {unit}"
    return f"{n:,} bytes"


# --------------------------------------------------------------------------- HTTPS


def _copy_over_http(url: str, local: Path, known: Sequence[str]) -> None:
    """A file by its URL; a folder by its `files.txt`, else by the names a run's and `known`'s
    files have."""
    base = url.split("?", 1)[0].rstrip("/")
    query = f"?{urlsplit(url).query}" if urlsplit(url).query else ""
    if PurePosixPath(urlsplit(url).path).suffix:
        if local.name != RUN_FILE:
            _get(url, local, url)
            return
        base, local = base.rsplit("/", 1)[0], local.parent
    listing = _listing(f"{base}/{HTTP_LISTING}{query}", url)
    for name in listing or ():
        _get(f"{base}/{name}{query}", local / name, url)
    if listing is not None:
        return
    found = [name for name in RUN_FILES if _get(f"{base}/{name}{query}", local / name, url, True)]
    if found:
        return
    found = [name for name in known if _get(f"{base}/{name}{query}", local / name, url, True)]
    if not found:
        raise InputError(
            shown(url),
            f"no such run: none of {', '.join(RUN_FILES)} here, and no {HTTP_LISTING} naming "
            "the folder's files",
        )


def _listing(at: str, given: str) -> list[str] | None:
    """The relative paths a `files.txt` names, or None when the folder has none. A path that
    leaves the folder is bad input."""
    with _answer(at, given, missing_ok=True) as answer:
        if answer is None:
            return None
        text = answer.read(LISTING_BYTES + 1).decode("utf-8", errors="replace")
    if len(text) > LISTING_BYTES:
        raise InputError(shown(at), f"longer than {_amount(LISTING_BYTES)}: not a list of files")
    names: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        name = line.strip().removeprefix("./")
        if not name or name.startswith("#"):
            continue
        if name.startswith("/") or "\\" in name or ".." in PurePosixPath(name).parts:
            raise InputError(shown(at), "a path that leaves the folder", line=number)
        names.append(name)
    return names


def _get(url: str, local: Path, given: str, missing_ok: bool = False) -> bool:
    """Copy `url` to `local`; False when it is not there and `missing_ok`."""
    with _answer(url, given, missing_ok) as answer:
        if answer is None:
            return False
        length = answer.headers.get("Content-Length")
        if length is not None and length.isdigit():
            _check_room(url, int(length))
        local.parent.mkdir(parents=True, exist_ok=True)
        with local.open("wb") as out:
            _copy_bounded(answer, out, url)
    return True


@contextmanager
def _answer(url: str, given: str, missing_ok: bool) -> Iterator[Any]:
    """The server's answer to a GET of `url` (None: 404 and `missing_ok`); a failure, while
    asking or while reading, names `given` (a file named in a listing and missing, itself)."""
    import urllib.error  # here: with http.client, 30 ms of a local gate's start-up
    import urllib.request

    try:
        answer = urllib.request.urlopen(url, timeout=TIMEOUT_S)
    except urllib.error.HTTPError as error:
        if error.code == 404 and missing_ok:
            answer = None
        else:
            raise InputError(shown(url if error.code == 404 else given), _why(error)) from None
    except OSError as error:  # URLError, a timeout, a reset
        raise InputError(shown(given), _why(_reason(error))) from None
    if answer is None:
        yield None
        return
    try:
        with answer:
            yield answer
    except OSError as error:  # a reset or a timeout while reading
        raise InputError(shown(given), _why(_reason(error))) from None


def _reason(error: OSError) -> BaseException:
    """A URLError's own cause (a timeout, a refused connection), else itself."""
    reason = getattr(error, "reason", error)
    return reason if isinstance(reason, BaseException) else error


def _copy_bounded(source: IO[bytes], out: IO[bytes], url: str) -> None:
    """An answer of no stated length is refused when the disk fills as it comes."""
    for count, chunk in enumerate(iter(lambda: source.read(_CHUNK), b"")):
        if count % 64 == 63:
            _check_room(url, len(chunk))
        out.write(chunk)


def _scratch_folder() -> Path:
    """This process's folder of copies (mode 0700), removed when it exits: at the interpreter's
    exit, by the console script's own (which skips the interpreter's teardown), and on SIGTERM."""
    if not _scratch:
        folder = Path(tempfile.mkdtemp(prefix="flipgate-remote-"))
        atexit.register(remove_copies)
        _remove_on_sigterm()
        _scratch.append(folder)
    return _scratch[0]


def remove_copies() -> None:
    """Remove every copy this process made; a URL read after this is copied again."""
    for folder in _scratch:
        shutil.rmtree(folder, ignore_errors=True)
    _scratch.clear()
    _copies.clear()


def _remove_on_sigterm() -> None:
    """SIGTERM removes the copies, then does what it did before (`atomic.remove_on_signals`'s
    handler, or the default: the end of the process). Only the main thread may set it."""
    if threading.current_thread() is not threading.main_thread():
        return
    previous = signal.getsignal(signal.SIGTERM)

    def handler(signum: int, frame: FrameType | None) -> None:
        remove_copies()
        if callable(previous):
            previous(signum, frame)
            return
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    if previous != signal.SIG_IGN:
        signal.signal(signal.SIGTERM, handler)
