"""Who flipped a case, the model or the grader (issue 23 item 1), read from the stored outputs.

For every flipped case the arms' repetitions are paired by index (rep k with rep k) and their
stored outputs compared after normalisation (`normalise`): JSON put in one key order, the
volatile parts `gate.yaml` names (`outputs.volatile`, ids and dates) replaced by one token,
whitespace runs made one space. A pair of repetitions graded apart in the case's direction is

    grader    the same output, another verdict: the grader changed its mind
    model     another output: the model answered differently
    unknown   an output missing in either arm: nothing to compare, never guessed

and the case is `model` when any of its flipped pairs is, `grader` when every one is, else
`unknown` (no flipped pair, or an unknown one beside grader ones). The split of b and of c
always adds back up to b and c.

Within one arm, the repetitions of a case with the same output measure the grader against
itself: each pair of them graded apart is the grader's own noise (`GraderNoise`).

Only the flipped cases' repetitions are normalised for the split; the noise reads the outputs
of the cases whose repetitions split, the only ones where a pair can be graded apart.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

from flipgate.core.vocab import ARMS, FLIP_SOURCES, FLIPS, Arm, Direction, FlipSource

if TYPE_CHECKING:
    from flipgate.core.runs.model import Run

VOLATILE = "<*>"  # what a volatile part of an output is replaced by


@dataclass(frozen=True)
class SourceCounts:
    """One cell's flipped cases by who flipped them; `model + grader + unknown` is the cell."""

    model: int = 0
    grader: int = 0
    unknown: int = 0

    @property
    def total(self) -> int:
        return self.model + self.grader + self.unknown

    def of(self, source: FlipSource) -> int:
        return int(getattr(self, source))


@dataclass(frozen=True)
class GraderNoise:
    """One arm's grader against itself: pairs of repetitions of one case with the same output
    (after normalisation), and how many of them got different verdicts."""

    same_output_pairs: int  # in the cases whose repetitions split
    graded_apart: int
    cases: tuple[str, ...]  # the cases holding a pair graded apart

    @property
    def rate(self) -> float | None:
        return self.graded_apart / self.same_output_pairs if self.same_output_pairs else None


NO_NOISE = GraderNoise(0, 0, ())


@dataclass(frozen=True, eq=False)
class FlipSources:
    """The flipped cases split by who flipped them, with the per-case reading behind it."""

    counts: dict[Direction, SourceCounts]
    cases: pl.DataFrame  # case, direction, source, model, grader, unknown (flipped rep pairs)
    noise: dict[Arm, GraderNoise]
    volatile: tuple[str, ...]  # the normaliser's patterns, for the report

    def __eq__(self, other: object) -> bool:
        # a frame has no truth value: two readings are equal when their frames are
        return (
            isinstance(other, FlipSources)
            and (self.counts, self.noise, self.volatile)
            == (other.counts, other.noise, other.volatile)
            and self.cases.equals(other.cases)
        )

    __hash__ = None  # type: ignore[assignment]  # equal by value, and a frame is not hashable

    @property
    def compared(self) -> bool:
        """Some flipped case had outputs to compare."""
        return any(c.model + c.grader for c in self.counts.values())

    def source(self, case: str) -> FlipSource | None:
        """The case's source; None when it did not flip (or is left out of b and c)."""
        hit = self.cases.filter(pl.col("case") == case)
        return hit["source"][0] if hit.height else None

    def cases_from(self, source: FlipSource) -> tuple[str, ...]:
        return tuple(self.cases.filter(pl.col("source") == source)["case"].to_list())


CASES_SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "case": pl.String,
    "direction": pl.String,
    "source": pl.String,
    **dict.fromkeys(FLIP_SOURCES, pl.UInt32),
}


def normalise(outputs: pl.Series, volatile: Sequence[str] = ()) -> pl.Series:
    """The outputs as compared: JSON in one key order and spacing, each volatile pattern's
    matches replaced by `VOLATILE`, runs of whitespace one space, the ends stripped. Only the
    outputs that open like JSON go through Python's parser."""
    text = outputs.str.strip_chars()
    looks_json = (text.str.starts_with("{") | text.str.starts_with("[")).fill_null(False)
    if looks_json.any():
        at = looks_json.arg_true()
        text = text.scatter(at, text.gather(at).map_elements(_canonical_json, pl.String))
    for pattern in volatile:
        text = text.str.replace_all(pattern, VOLATILE)
    return text.str.replace_all(r"\s+", " ").str.strip_chars()


def _canonical_json(text: str) -> str:
    """JSON text with its keys sorted at every depth; text that is not JSON, as it is."""
    try:
        value: Any = json.loads(text)
    except ValueError:
        return text
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def check_pattern(pattern: str) -> str | None:
    """Why `pattern` cannot be a volatile pattern (the regex dialect polars runs), or None."""
    try:
        re.compile(pattern)
        pl.Series([""], dtype=pl.String).str.replace_all(pattern, VOLATILE)
    except (re.error, pl.exceptions.ComputeError) as exc:
        return str(exc).splitlines()[0]
    if re.fullmatch(pattern, ""):
        return "matches the empty text: it would change every output"
    return None


def _rep_outputs(run: Run, passed: pl.DataFrame, cases: pl.Series) -> pl.DataFrame:
    """case, rep, passed and the output of the gradable repetitions of `cases`: only their
    outputs read (`Run.texts`, by each repetition's `line`, which `passed` holds)."""
    wanted = pl.col("case").is_in(cases.implode()) & pl.col("passed").is_not_null()
    rows = passed.filter(wanted).select("case", "rep", "passed", "line")
    return run.texts.beside(rows, ["output"]).drop("line")


def flip_sources(
    flipped: tuple[tuple[str, str], ...],
    runs: Mapping[str, Run],
    graded: Mapping[str, pl.DataFrame],
    split: Mapping[str, pl.Series],
    volatile: Sequence[str] = (),
) -> FlipSources:
    """Who flipped each case of `flipped` ((case, direction), the cases counted in b and c).

    `runs` are the two arms (their outputs read), `graded` each arm's repetitions with `line`
    and `passed` (null: infra), `split` the cases whose repetitions split in that arm."""
    flips = pl.DataFrame(
        {"case": [c for c, _ in flipped], "direction": [d for _, d in flipped]},
        schema={"case": pl.String, "direction": pl.String},
    )
    # Each arm's outputs read once (`Run.texts`): of the flipped cases and its split ones.
    stored = {
        arm: _rep_outputs(runs[arm], graded[arm], pl.concat([flips["case"], split[arm]]))
        for arm in ARMS
    }
    flipped_cases = pl.col("case").is_in(flips["case"].implode())
    base, cand = (stored[arm].filter(flipped_cases) for arm in ARMS)
    pairs = base.join(cand, on=["case", "rep"], suffix="_cand").join(flips, on="case")
    broke = pl.col("direction") == "pass_to_fail"
    # A pair flipped in the case's own direction; its outputs normalised, then compared.
    pairs = pairs.filter(
        pl.col("passed") & ~pl.col("passed_cand") & broke
        | ~pl.col("passed") & pl.col("passed_cand") & ~broke
    )
    pairs = pairs.with_columns(
        norm=normalise(pairs["output"], volatile),
        norm_cand=normalise(pairs["output_cand"], volatile),
    )
    pair_source = (
        pl.when(pl.col("norm").is_null() | pl.col("norm_cand").is_null())
        .then(pl.lit("unknown"))
        .when(pl.col("norm") == pl.col("norm_cand"))
        .then(pl.lit("grader"))
        .otherwise(pl.lit("model"))
    )
    per_case = pairs.group_by("case").agg(
        *((pair_source == source).sum().cast(pl.UInt32).alias(source) for source in FLIP_SOURCES)
    )
    cases = (
        flips.join(per_case, on="case", how="left", maintain_order="left")
        .with_columns(pl.col(s).fill_null(0) for s in FLIP_SOURCES)
        .with_columns(
            source=pl.when(pl.col("model") > 0)
            .then(pl.lit("model"))
            .when((pl.col("grader") > 0) & (pl.col("unknown") == 0))
            .then(pl.lit("grader"))
            .otherwise(pl.lit("unknown"))
        )
        .select(list(CASES_SCHEMA))
    )
    tally = cases.group_by("direction", "source").len()
    counts = {
        direction: SourceCounts(
            **{
                source: int(n)
                for d, source, n in tally.iter_rows()
                if d == direction and source in FLIP_SOURCES
            }
        )
        for direction in FLIPS
    }
    noise: dict[Arm, GraderNoise] = {
        arm: grader_noise(stored[arm], split[arm], volatile) for arm in ARMS
    }
    return FlipSources(counts, cases, noise, tuple(volatile))


def grader_noise(
    outputs: pl.DataFrame, split: pl.Series, volatile: Sequence[str] = ()
) -> GraderNoise:
    """Within one arm, over the cases whose repetitions split: the pairs of repetitions with the
    same output, and those of them graded apart. Counted per (case, output): n repetitions, k of
    them passing, give n(n-1)/2 pairs of which k(n-k) are graded apart. `outputs`: case, rep,
    passed and output of the arm's gradable repetitions, of the split cases among others."""
    if split.is_empty():
        return NO_NOISE
    stored = outputs.filter(pl.col("case").is_in(split.implode()) & pl.col("output").is_not_null())
    same = (
        stored.with_columns(norm=normalise(stored["output"], volatile))
        .group_by("case", "norm")
        .agg(n=pl.len().cast(pl.Int64), k=pl.col("passed").sum().cast(pl.Int64))
        .with_columns(
            pairs=pl.col("n") * (pl.col("n") - 1) // 2,
            apart=pl.col("k") * (pl.col("n") - pl.col("k")),
        )
    )
    if same.is_empty():
        return NO_NOISE
    apart_cases = same.filter(pl.col("apart") > 0)["case"].unique().sort()
    return GraderNoise(
        int(same["pairs"].sum()), int(same["apart"].sum()), tuple(apart_cases.to_list())
    )
