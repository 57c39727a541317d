"""The person's choice among a campaign's tied candidates (`flipgate decide WORKSPACE --choose
NAME`, docs/rank.md): the campaign ranked as `flipgate rank` ranks it, what the signed choice
records of that ranking, and the same ranking made again when `flipgate verify` checks it.

The record keeps the files and options the ranking read (`inputs`: paths relative to the
workspace when inside it, the importers' options that are not the defaults), so that verifying ranks the same runs with the same spec, flaky list,
suite manifest and base, whatever the workspace's defaults are by then.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flipgate.core.decision.choice import ChoiceRecord, verify_choice
from flipgate.core.decision.file import VerifyResult
from flipgate.core.errors import InputError
from flipgate.core.importers import ImportOptions
from flipgate.core.rank.choice import Refusal, differences, refusal, seen
from flipgate.core.rank.ranking import Clearance, Ranking, own_clearance
from flipgate.core.runs.model import Progress
from flipgate.session.gating import rank
from flipgate.session.reading import silent
from flipgate.session.request import GateRequest


def ranking_seen(
    request: GateRequest, progress: Progress = silent
) -> tuple[Ranking, dict[str, Any]]:
    """The campaign of `request` ranked, and the ranking as a choice records it. A choice is
    made on a campaign workspace, whose `decisions/` folder it goes into."""
    workspace = request.workspace
    if workspace is None or not request.is_campaign:
        raise InputError(
            Path("--choose"),
            "a choice is made on a campaign workspace (baseline/ and candidates/NAME/): give one",
        )
    ranking = rank(request, progress)
    return ranking, seen(ranking, workspace, _inputs(request, workspace))


def choice_refusal(ranking: Ranking, name: str) -> Refusal | None:
    """Why `name` may not be chosen on `ranking` (a code with its facts), or None
    (core/rank/choice.py)."""
    return refusal(ranking, name)


def verify_choice_file(path: Path, allowed_signers: Path | None = None) -> VerifyResult:
    """`flipgate verify` of a choice file: as a decision's, and the campaign ranked again."""
    return verify_choice(path, _recompute, differences, allowed_signers)


def chosen_clearance(ranking: Ranking, name: str) -> Clearance:
    """Whether `name` on its own would clear the incumbent (core/rank/ranking.py), as a choice
    of it records."""
    return own_clearance(ranking, name)


def _recompute(
    record: ChoiceRecord, workspace: Path
) -> tuple[Mapping[str, Any], Refusal | None, str | None]:
    inputs = record.ranking.get("inputs")
    if not isinstance(inputs, dict):
        raise ValueError("the ranking signed names no inputs")
    ranking, now = ranking_seen(_request(workspace, inputs))
    refused = refusal(ranking, record.chosen)
    return now, refused, None if refused else own_clearance(ranking, record.chosen).code


def _inputs(request: GateRequest, workspace: Path) -> dict[str, Any]:
    def where(path: Path | None) -> str | None:
        if path is None:
            return None
        here, base = path.resolve(), workspace.resolve()
        return (here.relative_to(base) if here.is_relative_to(base) else here).as_posix()

    base = request.base
    return {
        "gate": where(request.gate),
        "flaky": where(request.flaky),
        "suite": where(request.suite),
        "change": list(request.declared_change),
        "allow_partial": request.allow_partial,
        "import_options": _options(request.import_options),
        "base": None
        if base is None
        else {
            "ref": base.ref,
            # at a revision, the files looked up there follow the gate's own
            "gate": None if base.ref else where(base.gate),
            "flaky": None if base.ref else where(base.flaky),
            "suite": where(base.suite),
        },
    }


def _request(workspace: Path, inputs: Mapping[str, Any]) -> GateRequest:
    def path(value: object) -> Path | None:
        return None if value is None else workspace / str(value)  # an absolute one stays

    base = inputs.get("base") or {}
    return GateRequest.of(
        [workspace],
        shape="ranking",
        gate=path(inputs.get("gate")),
        flaky=path(inputs.get("flaky")),
        suite=path(inputs.get("suite")),
        base_ref=base.get("ref"),
        base_gate=path(base.get("gate")),
        base_flaky=path(base.get("flaky")),
        base_suite=path(base.get("suite")),
        change=[str(component) for component in inputs.get("change") or ()],
        allow_partial=bool(inputs.get("allow_partial")),
        import_options=_options_again(inputs.get("import_options") or {}),
    )


def _options_again(recorded: Mapping[str, Any]) -> ImportOptions:
    given: dict[str, Any] = {
        name: tuple(value) if isinstance(value, list) else value for name, value in recorded.items()
    }
    return ImportOptions(**given)


def _options(options: ImportOptions) -> dict[str, Any]:
    """The importers' options that differ from the defaults (a log's candidates are read with
    them), a tuple written as a list."""
    default = ImportOptions()
    return {
        name: list(value) if isinstance(value, tuple) else value
        for name, value in vars(options).items()
        if value != getattr(default, name)
    }
