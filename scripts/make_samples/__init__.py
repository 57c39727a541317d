"""Write the sample workspaces bundled in the package (`src/flipgate/samples/`), deterministically.

Five workspaces (SPEC §2, §3, §7, §8), each with its own README saying what it shows:

- `listing-reviewer/`: seed 000's marketplace reviewer; a cautious newer model that a plain
  pass/fail count blocks and a gate on the costly outcomes passes;
- `listing-reviewer-decisive/`: the same baseline against a model that waves violations through;
- `agent-suite/`: seed 001's prompt edit on a support agent, INCONCLUSIVE, with its reruns and
  repeated baseline runs for flaky-list curation;
- `support-assistant/`: seed 002's year-old suite for `flipgate suite audit`, with its history of
  runs and five signed rejections;
- `winner-rule/`: seed 003's table, three candidates ranked against an incumbent by the release
  rule (`flipgate rank`).

The figures are not sampled: a listing table and a plan of which decision each model gets wrong
fix them. The seed only drives second metrics (latency, tokens, cost) and order ids. Running the
script twice gives byte-identical files: it rebuilds the output folder from scratch, keeps the
signed decisions it would write again as they stand, and refuses to drop or change any other.

One module per workspace (`listing_reviewer`, `listing_reviewer_decisive`, `agent_suite`,
`support_assistant`, `winner_rule`), each with its `write`; `files` holds what they all write.

    uv run python -m scripts.make_samples [--out DIR] [--seed N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from pathlib import Path

from . import (
    agent_suite,
    listing_reviewer,
    listing_reviewer_decisive,
    support_assistant,
    winner_rule,
)
from .files import write_text

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_SEED = 20261120


TOP_README = """\
# Sample runs

Workspaces a new user can open at once (`uv run flipgate` opens `listing-reviewer`). Each holds
`baseline/`, `candidate/` (or `candidates/`), `gate.yaml` and `flaky.yaml`, and a README with
what it shows.

- `listing-reviewer/`: decision outcomes; a safer model that a plain pass/fail count blocks.
- `listing-reviewer-decisive/`: the same baseline against a model that is truly worse.
- `agent-suite/`: an INCONCLUSIVE prompt edit, with reruns, repeated baseline runs and the
  candidate's stored transcripts judged again (`rejudged/`: the judge alone).
- `support-assistant/`: seed 002's year-old suite, for `flipgate suite audit`: its manifest,
  traffic, registry, history of runs, signed decisions and production signal.
- `winner-rule/`: three candidates ranked by the release rule (seed 003): `baseline/` is the
  incumbent, `candidates/NAME/` each candidate; `flipgate rank` and the candidates screen.

Nothing works in this folder, the package's own: `uv run flipgate samples DIR` copies the
workspaces where you say (the README's tour: `uv run flipgate samples sample_runs`, a folder git
ignores), and plain `uv run flipgate` opens its own copy in `$XDG_DATA_HOME/flipgate/samples/`
(`~/.local/share/flipgate/samples/` by default).

These files are generated: edit `scripts/make_samples/` and run
`uv run python -m scripts.make_samples`, never the files by hand. The tests read them as git
holds them (`tests/conftest.py`), so what trying them leaves here never reaches a test.
"""


def signed_decisions(out: Path) -> dict[Path, bytes]:
    """The decision files in `out`'s workspaces, by their paths below it: support-assistant's,
    and any someone signed while trying a sample."""
    found = out.glob("*/decisions/*") if out.exists() else ()
    return {p.relative_to(out): p.read_bytes() for p in sorted(found) if p.is_file()}


def generate(out: Path, seed: int) -> None:
    """Build every workspace in a sibling temp folder, then swap it in for `out`, unless that
    would change or drop a signed decision: files we write never overwrite one."""
    kept = signed_decisions(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        listing_reviewer.write(staging, seed)
        listing_reviewer_decisive.write(staging, seed)
        agent_suite.write(staging, seed)
        support_assistant.write(staging, out / support_assistant.SUPPORT / "decisions")
        winner_rule.write(staging)
        write_text(staging / "README.md", TOP_README)
        written = signed_decisions(staging)
        if lost := [path for path, data in kept.items() if written.get(path) != data]:
            raise SystemExit(
                f"refusing to rebuild {out}: {out / lost[0]} is a signed decision this script "
                "would not write again as it stands; move it out of the way to rebuild"
            )
        if out.exists():
            retired = Path(tempfile.mkdtemp(prefix=f".{out.name}-old-", dir=out.parent))
            os.replace(out, retired / out.name)
            os.replace(staging, out)
            shutil.rmtree(retired)
        else:
            os.replace(staging, out)
    finally:
        if staging.exists():
            shutil.rmtree(staging)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--out", type=Path, default=ROOT / "src" / "flipgate" / "samples", help="output folder"
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seeds second metrics")
    args = parser.parse_args(argv)
    generate(args.out, args.seed)
