"""Runs, workspaces and the gate's files over plain HTTP(S), which has no listing: a folder is read
by the names in its `files.txt`, else by the names a run's or a workspace's files have; and every
flag that takes a file or a run (`--gate`, `--flaky`, `--suite`, `--rerun-*`,
`--baseline-repeat`, `--rejudged`) takes a URL as `gate`, `open` and `rank` read it."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from flipgate.cli import build_parser, main
from flipgate.cli.arguments import gate_request
from flipgate.core.io import remote
from flipgate.session import GateRequest, read
from tests.conftest import SAMPLES
from tests.remote.conftest import INSPECT_LOG, PAIR, serving, silent_server

AGENT = "agent-suite"  # a workspace with reruns/, baseline-repeats/ and rejudged/
SUPPORT = "support-assistant"  # its suite.yaml retires two cases


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """A folder of workspaces and its URL: agent-suite listed by a files.txt, with its judging
    passes in rejudged/ (its own files.txt too); the others read by their files' names."""
    root = tmp_path_factory.mktemp("site")
    for name in (AGENT, SUPPORT, PAIR.name, "winner-rule"):
        shutil.copytree(SAMPLES / name, root / name)
    for listed in (root / AGENT, root / AGENT / "rejudged"):
        names = sorted(p.relative_to(listed).as_posix() for p in listed.rglob("*") if p.is_file())
        (listed / remote.HTTP_LISTING).write_text("".join(f"./{n}\n" for n in names))
    (root / "logs").mkdir()
    shutil.copy(INSPECT_LOG, root / "logs")
    with serving(root) as url:
        yield root, url


def report(capsys: pytest.CaptureFixture[str], args: list[str], *places: str) -> str:
    """`gate`'s JSON report, with each of `places` (where its files were read) said as `@`."""
    capsys.readouterr()
    assert main(["gate", *args, "--format", "json"]) in (0, 1, 3, 4)
    text = json.dumps(json.loads(capsys.readouterr().out), sort_keys=True)
    for place in places:
        text = text.replace(place, "@")
    return text


def test_a_workspace_by_its_files_txt(
    site: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Its reruns (the escalation applied), repeats and judging passes come along."""
    root, url = site
    local = report(capsys, [str(root / AGENT)], str(root))
    assert report(capsys, [f"{url}/{AGENT}"], url) == local
    request = GateRequest.of([f"{url}/{AGENT}"])
    assert len(request.repeats) == 2 and request.rerun_paths() is not None
    assert request.rejudged is not None and '"judge_repeats": [{' in local


def test_a_workspace_without_a_listing_by_its_files_names(
    site: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, url = site
    local = report(capsys, [str(root / PAIR.name)], str(root))
    assert report(capsys, [f"{url}/{PAIR.name}"], url) == local
    assert GateRequest.of([f"{url}/{PAIR.name}"]).gate is not None  # gate.yaml, by its name


FLAGS = {
    "gate and suite": (
        [f"{SUPPORT}/baseline", f"{SUPPORT}/candidate"],
        ["--gate", f"{SUPPORT}/gate.yaml", "--suite", f"{SUPPORT}/suite.yaml"],
    ),
    "flaky": ([f"{AGENT}/baseline", f"{AGENT}/candidate"], ["--flaky", f"{AGENT}/flaky.yaml"]),
    "reruns": (
        [f"{AGENT}/baseline", f"{AGENT}/candidate"],
        [
            *("--rerun-baseline", f"{AGENT}/reruns/baseline"),
            *("--rerun-candidate", f"{AGENT}/reruns/candidate"),
            *("--flaky", f"{AGENT}/flaky.yaml"),  # the reruns leave out the flaky cases
        ],
    ),
    "rejudged": ([f"{AGENT}/baseline", f"{AGENT}/candidate"], ["--rejudged", f"{AGENT}/rejudged"]),
}


@pytest.mark.parametrize("flags", FLAGS.values(), ids=FLAGS.keys())
def test_each_file_flag_takes_a_url(
    site: tuple[Path, str],
    flags: tuple[list[str], list[str]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The same report read from the URLs as from the disk, and not the report without them."""
    root, url = site
    runs, given = flags
    runs = [str(root / run) for run in runs]
    local = report(capsys, [*runs, *given_at(given, str(root))], str(root))
    assert report(capsys, [*runs, *given_at(given, url)], url, str(root)) == local
    assert report(capsys, runs, str(root)) != local


def given_at(flags: list[str], where: str) -> list[str]:
    return [flag if flag.startswith("--") else f"{where}/{flag}" for flag in flags]


def test_baseline_repeats_by_url_are_read_as_from_the_disk(site: tuple[Path, str]) -> None:
    """`open` takes the same arguments (`gate_request`) and reads the repeats for triage."""
    root, url = site
    runs = [str(root / AGENT / "baseline"), str(root / AGENT / "candidate")]
    repeats = [f"{AGENT}/baseline-repeats/run-2", f"{AGENT}/baseline-repeats/run-3"]

    def opened(where: str) -> list[str]:
        flags = [part for run in repeats for part in ("--baseline-repeat", f"{where}/{run}")]
        args = build_parser().parse_args(["open", *runs, *flags])
        return [run.run_id for run in read(gate_request(args, "pair_or_campaign")).repeats]

    assert opened(url) == opened(str(root)) and len(opened(url)) == 2


def test_rank_takes_a_gate_by_url(
    site: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, url = site
    ranked = []
    for where in (str(root), url):
        gate = f"{where}/winner-rule/gates/by-mean.yaml"
        assert main(["rank", str(root / "winner-rule"), "--gate", gate, "--format", "json"]) == 0
        ranked.append(json.loads(capsys.readouterr().out)["candidates"])
    assert ranked[0] == ranked[1]


def test_import_reads_a_log_over_http(site: tuple[Path, str], tmp_path: Path) -> None:
    _, url = site
    assert main(["import", f"{url}/logs/{INSPECT_LOG.name}", str(tmp_path / "remote")]) == 0
    assert main(["import", str(INSPECT_LOG), str(tmp_path / "local")]) == 0
    for name in ("run.yaml", "results.jsonl"):
        assert (tmp_path / "remote" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()


def test_what_a_request_of_urls_writes_goes_to_the_current_folder(
    site: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Never into the copy, which is removed on exit: a plan, a walk or a decision would be lost."""
    _, url = site
    monkeypatch.chdir(tmp_path)
    assert GateRequest.of([f"{url}/{PAIR.name}"]).folder == tmp_path
    assert GateRequest.of(
        [f"{url}/{PAIR.name}/baseline", f"{url}/{PAIR.name}/candidate"]
    ).decisions == (tmp_path / "decisions")


def test_a_listing_that_leaves_the_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(PAIR / "baseline", tmp_path / "run")
    (tmp_path / "run" / remote.HTTP_LISTING).write_text("run.yaml\n../../etc/passwd\n")
    with serving(tmp_path) as url:
        assert main(["gate", f"{url}/run", str(PAIR / "candidate")]) == 2
    err = capsys.readouterr().err
    assert f"flipgate: error: {url}/run/{remote.HTTP_LISTING}:2: a path that leaves" in err


def test_a_file_the_listing_names_and_the_server_lacks_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(PAIR / "baseline", tmp_path / "run")
    (tmp_path / "run" / remote.HTTP_LISTING).write_text("run.yaml\nresults.parquet\n")
    with serving(tmp_path) as url:
        assert main(["gate", f"{url}/run", str(PAIR / "candidate")]) == 2
    assert f"{url}/run/results.parquet: no such object or folder" in capsys.readouterr().err


def test_no_run_is_exit_2_naming_the_url(
    site: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    _, url = site
    assert main(["gate", f"{url}/nothing-here", str(PAIR / "candidate")]) == 2
    assert f"{url}/nothing-here: no such run" in capsys.readouterr().err


def test_a_server_that_does_not_answer_is_named_without_the_query(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(remote, "TIMEOUT_S", 0.5)
    with silent_server() as address:
        url = f"{address}/{PAIR.name}/baseline?token=secret"
        assert main(["gate", url, str(PAIR / "candidate")]) == 2
    err = capsys.readouterr().err
    assert f"{url.split('?')[0]}: no answer within 0.5 s" in err
    assert "secret" not in err  # a signed URL's query is never printed


def test_a_url_is_shown_without_its_secrets() -> None:
    shown = remote.shown("https://user:pa55@runs.example:8443/a/b/?X-Sig=abc#frag")
    assert shown == "https://runs.example:8443/a/b/"
    assert remote.is_url("s3://bucket/run") and remote.is_url("az://container/run")
    assert not remote.is_url(Path("s3://bucket/run")) and not remote.is_url("ftp://host/run")
    assert remote.fetched("sample_runs/x") == Path("sample_runs/x")  # a path stays itself


def test_a_listing_too_long_to_be_one_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Never cut short: the files past the cut would be dropped without a word."""
    monkeypatch.setattr(remote, "LISTING_BYTES", 100)
    shutil.copytree(PAIR / "baseline", tmp_path / "run")
    (tmp_path / "run" / remote.HTTP_LISTING).write_text("run.yaml\n" * 12)
    with serving(tmp_path) as url:
        assert main(["gate", f"{url}/run", str(PAIR / "candidate")]) == 2
    assert f"{url}/run/{remote.HTTP_LISTING}: longer than 100 bytes" in capsys.readouterr().err
