"""What a suite audit reads from a workspace, every file read and checked before anything is said.

    WORKSPACE/
      suite.yaml        the manifest (required)
      traffic.yaml      intents' shares of production traffic
      registry.yaml     the live flags and endpoints
      production.yaml   the production signal beside the suite's pass rate, per period
      history/          earlier runs of several systems (one run folder each)
      decisions/        the signed reviewer decisions the app writes
      baseline/         today's suite as merged: its expected labels re-score old runs
      external.yaml     what comparable teams adopted, when it was read (external calibration)

Only the manifest is required; a diagnostic whose file is missing says so instead of a figure.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import polars as pl

from flipgate.core.decision.document import parse_decision
from flipgate.core.decision.file import split_signed
from flipgate.core.decision.record import DecisionRecord, InvalidDecision
from flipgate.core.errors import InputError
from flipgate.core.gate.collapse import collapsed_verdicts
from flipgate.core.gate.spec import GateSpec, load_spec
from flipgate.core.io.files import read_bytes
from flipgate.core.io.listing import files_in, folders_in
from flipgate.core.io.yamlio import parse_yaml
from flipgate.core.plural import plural
from flipgate.core.runs.model import Run
from flipgate.core.runs.reading import load_run
from flipgate.core.suite.external import EXTERNAL, Adoption, load_external
from flipgate.core.suite.manifest import MANIFEST, SuiteManifest, load_manifest
from flipgate.core.suite.registry import REGISTRY, Registry, load_registry
from flipgate.core.suite.signal import PRODUCTION, Production, load_production
from flipgate.core.suite.traffic import TRAFFIC, Traffic, load_traffic

HISTORY = "history"
DECISIONS = "decisions"
TODAY = "baseline"
HISTORY_SCHEMA = {
    "run_id": pl.String,
    "system": pl.String,
    "version": pl.String,
    "created": pl.Date,
    "case": pl.String,
    "passed": pl.Boolean,
}


@dataclass(frozen=True)
class SignedDecision:
    path: Path
    record: DecisionRecord


@dataclass(frozen=True)
class HistoryRun:
    run: Run
    verdicts: pl.DataFrame  # case, safety, passed: the gate's collapse, gradable cases only


@dataclass(frozen=True)
class SuiteInputs:
    path: Path
    manifest: SuiteManifest
    traffic: Traffic | None
    registry: Registry | None
    production: Production | None
    spec: GateSpec
    history: tuple[HistoryRun, ...]  # oldest first
    verdicts: pl.DataFrame  # HISTORY_SCHEMA: the history's verdicts, every run's in one frame
    today: Run | None  # today's suite: the workspace's baseline, else the newest history run
    decisions: tuple[SignedDecision, ...]
    external: tuple[Adoption, ...] | None = None  # None: no external.yaml

    @property
    def last_day(self) -> date | None:
        """The newest day the workspace records: a run made, a case added or retired."""
        runs = (*(h.run for h in self.history), self.today)
        days = [r.created.date() for r in runs if r and r.created]
        changed = self.manifest.last_change
        return max([*days, *([changed] if changed else [])], default=None)


def system_of(run: Run) -> str:
    """Which system a run measured: its model, else its run id."""
    return run.key.get("model") or run.run_id


def version_of(run: Run) -> str | None:
    return run.key.get("eval_set")


def is_suite_workspace(path: Path) -> bool:
    return (path / MANIFEST).is_file()


def load_suite(path: Path, progress: Callable[[str], None] | None = None) -> SuiteInputs:
    """Read every file of the suite workspace at `path` (see the module's docstring)."""
    say = progress or (lambda _message: None)
    if not path.is_dir():
        raise InputError(path, "no such workspace folder")
    if not is_suite_workspace(path):
        raise InputError(path / MANIFEST, "no suite manifest: a suite workspace needs suite.yaml")

    def given(name: str) -> Path | None:
        return path / name if (path / name).is_file() else None

    folders = list(folders_in(path / HISTORY))
    baseline = [path / TODAY] if (path / TODAY).exists() else []
    say(f"reading the suite manifest and {plural(len(folders), 'run')} of the history")
    # A run's read is mostly Arrow and polars work, which releases the GIL; the manifest's is
    # Python's. So the runs are read in a few threads while this one reads the other files, and
    # bad input is still told in the order it was: those files first, then the runs in turn.
    with ThreadPoolExecutor(max_workers=4) as pool:
        reads = [pool.submit(load_run, p, lean=True) for p in [*folders, *baseline]]
        try:
            manifest = load_manifest(path / MANIFEST)
            traffic = load_traffic(p) if (p := given(TRAFFIC)) else None
            registry = load_registry(p) if (p := given(REGISTRY)) else None
            production = load_production(p) if (p := given(PRODUCTION)) else None
            external = load_external(p) if (p := given(EXTERNAL)) else None
            spec = load_spec(given("gate.yaml"))
            runs = [read.result() for read in reads]
        except BaseException:
            pool.shutdown(cancel_futures=True)  # the reads not begun are not needed
            raise
        earlier, given_today = runs[: len(folders)], runs[len(folders) :]
        _one_folder_each(earlier)
        say("collapsing each run's repetitions")
        collapsed = list(pool.map(lambda run: _gradable(run, spec), earlier))
    pairs = sorted(
        zip(earlier, collapsed, strict=True),
        key=lambda pair: (pair[0].created is None, pair[0].created, pair[0].run_id),
    )
    history = tuple(HistoryRun(run, verdicts) for run, verdicts in pairs)
    today = given_today[0] if given_today else history[-1].run if history else None
    say("reading the signed decisions")
    decisions = tuple(load_signed(p) for p in files_in(path / DECISIONS, ".yaml"))
    return SuiteInputs(
        path,
        manifest,
        traffic,
        registry,
        production,
        spec,
        history,
        _history_verdicts(history),
        today,
        decisions,
        external,
    )


def _one_folder_each(history: list[Run]) -> None:
    """A run of the history is told by its run_id in every figure: two folders with one id would
    count as one run's repetitions (a folder copied, or an id reused)."""
    seen: dict[str, Path] = {}
    for run in history:
        if (other := seen.setdefault(run.run_id, run.path)) != run.path:
            raise InputError(
                run.path / "run.yaml",
                f"run {run.run_id!r} is also in {other}: each run of the history needs its own id",
                field="run_id",
            )


def _gradable(run: Run, spec: GateSpec) -> pl.DataFrame:
    return collapsed_verdicts(run, spec).filter(pl.col("passed").is_not_null())


def _history_verdicts(history: tuple[HistoryRun, ...]) -> pl.DataFrame:
    frames = [
        h.verdicts.select(
            pl.lit(h.run.run_id).alias("run_id"),
            pl.lit(system_of(h.run)).alias("system"),
            pl.lit(version_of(h.run), dtype=pl.String).alias("version"),
            pl.lit(h.run.created.date() if h.run.created else None, dtype=pl.Date).alias("created"),
            "case",
            "passed",
        )
        for h in history
    ]
    return pl.concat(frames) if frames else pl.DataFrame(schema=HISTORY_SCHEMA)


def load_signed(path: Path) -> SignedDecision:
    """A decision file: a signature block at its end and a well-formed decision before it.

    The signature itself is checked by `flipgate verify`, with the allowed signers.
    """
    try:
        message, _armor = split_signed(read_bytes(path))
        text = message.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(path, "not UTF-8 text") from None
    except InvalidDecision as bad:
        raise InputError(path, bad.message, field=bad.field) from None
    document, lines = parse_yaml(text, path)
    try:
        record = parse_decision(document)
    except InvalidDecision as bad:
        raise InputError(path, bad.message, line=lines.line(bad.field), field=bad.field) from None
    return SignedDecision(path, record)
