"""The application layer: how a front end gets from what a user named to the gate's answer.

The command line and the app ask the same way, so the same arguments give the same comparison:

    request = GateRequest.of(runs, gate=..., suite=..., ...)   # every default resolved here
    inputs = read(request, progress)                           # every file read and checked once
    comparison = gate(inputs)                                  # the gate, reruns and all

`gate_and_record` is `flipgate gate`'s with a ledger of attempts: the gate, then the attempt
appended; `RegistrationRequest` and `registration_text` are `flipgate prereg`'s, the rule before
the candidate exists. `read_again` and `gate_again` are the app's after an edit; `read_campaign`,
`rank_campaign` and `rank` compare candidates with an incumbent; `side_by_side` judges several
runs each on its own; `CurationRequest` is the flaky list's and the calibration's; `import_log`
writes another tool's log as a run; `located` names the URL in an error about a run read from
one (`GateRequest.of` and `import_log` take URLs); `flipgate.session.suite` reads a suite
workspace; `replay_request` names the runs of a signed decision, for `flipgate replay`.
Above this layer nothing compares runs or reads them: an import-linter contract keeps the front
ends from the comparison and the readers, and the types they show come from here.
"""

from flipgate.core.gate.compare import ArmResults, Comparison, GateResult
from flipgate.core.gate.reruns import write_rerun_plan
from flipgate.core.importers import ImportedRun, ImportOptions, import_options
from flipgate.core.importers import options as import_option_flags
from flipgate.core.importers import takers as import_option_takers
from flipgate.core.io.remote import located
from flipgate.core.rank.ranking import Ranking
from flipgate.session.attempts import gate_and_record
from flipgate.session.choosing import (
    choice_refusal,
    chosen_clearance,
    ranking_seen,
    verify_choice_file,
)
from flipgate.session.curation import (
    CurationRequest,
    read_arms,
    read_flaky,
    read_identical,
    read_judgings,
    read_runs,
    read_spec,
)
from flipgate.session.gating import gate, gate_again, priced, rank, rank_campaign
from flipgate.session.logs import import_log
from flipgate.session.outcomes import SideBySide, side_by_side
from flipgate.session.prereg import RegistrationRequest, registration_text
from flipgate.session.reading import (
    CampaignInputs,
    GateInputs,
    Terms,
    read,
    read_again,
    read_campaign,
    read_terms,
    reading_steps,
    silent,
)
from flipgate.session.replay import replay_request
from flipgate.session.request import DEFAULT_RERUN_TARGET, Base, GateRequest, Shape
from flipgate.session.samples import DEFAULT_WORKSPACE, bundled_samples, copy_samples

__all__ = [
    "DEFAULT_RERUN_TARGET",
    "DEFAULT_WORKSPACE",
    "ArmResults",
    "Base",
    "CampaignInputs",
    "Comparison",
    "CurationRequest",
    "GateInputs",
    "GateRequest",
    "GateResult",
    "ImportOptions",
    "ImportedRun",
    "Ranking",
    "RegistrationRequest",
    "Shape",
    "SideBySide",
    "Terms",
    "bundled_samples",
    "choice_refusal",
    "chosen_clearance",
    "copy_samples",
    "gate",
    "gate_again",
    "gate_and_record",
    "import_log",
    "import_option_flags",
    "import_option_takers",
    "import_options",
    "located",
    "priced",
    "rank",
    "rank_campaign",
    "ranking_seen",
    "read",
    "read_again",
    "read_arms",
    "read_campaign",
    "read_flaky",
    "read_identical",
    "read_judgings",
    "read_runs",
    "read_spec",
    "read_terms",
    "reading_steps",
    "registration_text",
    "replay_request",
    "side_by_side",
    "silent",
    "verify_choice_file",
    "write_rerun_plan",
]
