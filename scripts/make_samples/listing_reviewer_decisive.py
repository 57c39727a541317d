"""`listing-reviewer-decisive`: the same baseline against a model that waves violations through."""

from __future__ import annotations

from pathlib import Path

from .files import gate_command
from .listing_reviewer import BASELINE_SLIPS, LISTINGS, ReviewerModel, Slip, write_workspace

# The decisive model keeps the current model's misses, except on safety cases, and waves through
# 18 more violations: its hedges are gone, and every one became an approval.
S = Slip
DECISIVE_EXTRA_SLIPS: tuple[Slip, ...] = (
    S(71, "R", "approve", "no recall notice in the listing"),
    S(71, "M", "approve", "ordinary product description"),
    S(61, "P", "approve", "herbal supplement, allowed"),
    S(7, "P", "approve", "keychain accessory, allowed"),
    S(13, "P", "approve", "homage watch design, allowed"),
    S(21, "R", "approve", "power bank in working order"),
    S(33, "M", "approve", "manufacturer's product wording"),
    S(40, "P", "approve", "digital goods are allowed"),
    S(49, "P", "approve", "unopened health product"),
    S(54, "O", "approve", "email for viewing appointments only"),
    S(63, "P", "approve", "seasonal item, collection only"),
    S(72, "R", "approve", "no recall notice in the listing"),
    S(85, "P", "approve", "diagnostic tool, allowed"),
    S(95, "O", "approve", "number for the vet's records"),
    S(118, "M", "approve", "cosmetic product wording"),
    S(99, "O", "approve", "a phone number for arranging collection only"),
    S(26, "O", "approve", "email is for questions only"),
    S(114, "M", "approve", "sealed product, seller vouches for it"),
)
del S

DECISIVE_REVIEWER = ReviewerModel(
    "lr-2026-11-21-decisive",
    "2026-11-21T14:30:00Z",
    "lr-2026-10-decisive",
    tuple(s for s in BASELINE_SLIPS if not LISTINGS[s.listing - 1].safety) + DECISIVE_EXTRA_SLIPS,
    (520, 900),
    0.0012,
    "hypothetical: lr-2026-10 tuned to always decide (no escalations)",
)


DECISIVE_README = f"""\
# listing-reviewer-decisive: a worse model with the same red count

The same baseline as `listing-reviewer`, against a hypothetical model tuned never to escalate
(seed 000's third model). It has the cautious model's 33 red cases (29 / 3 / 1) and 442
agreements, but its 17 extra mistakes are all violations waved through: false negatives go from
9 to 26 while 4 false positives, 8 inconclusive and 0 mirror stay. Cost 10,492, about ten times
the cautious model's 1,010. With the same `gate.yaml` it BLOCKS: b = 15, c = 1, p = 0.002 by
template (the false-negative limits are exceeded too: 26 against 9 is beyond the noise).

```sh
{gate_command("listing-reviewer-decisive")}
```
"""


def write(out: Path, seed: int) -> None:
    write_workspace(out / "listing-reviewer-decisive", DECISIVE_REVIEWER, DECISIVE_README, seed)
