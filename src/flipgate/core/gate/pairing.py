"""Pair the arms on case id and count the cells (SPEC §3.2 and §3.3).

Every case of either arm gets its state in the case ledger (`ledger.py`): paired, or left out of
the cells with its state (`vocab.UnpairedState`: new, deleted, infra, excluded, missing
repetitions, run not finished) and the arm it concerns. A case on the flaky list, or retired from
the suite, is paired and shown, but left out of the cells. The table comes out in the natural
order of its case ids (`core.order`), and so does every list drawn from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import polars as pl

from flipgate.core.gate.flaky import FlakyList
from flipgate.core.gate.ledger import NOT_WHOLE, LeftOut, left_out, planned, state_columns
from flipgate.core.gate.mcnemar import FlipTest
from flipgate.core.gate.stats import ClusterReading, TemplateFlips, read_clusters
from flipgate.core.order import joined_on_case, natural_sort, natural_sorted
from flipgate.core.runs.model import Run
from flipgate.core.vocab import CELLS, FLIPS, Arm


@dataclass(frozen=True)
class Pairing:
    cases: pl.DataFrame  # one row per case of either arm, both arms side by side
    cells: dict[str, int]
    flipped: tuple[tuple[str, str], ...]  # (case, direction), listed cases excluded
    unpaired: tuple[LeftOut, ...]  # every case left out of the cells, with its state
    flaky_flipped: tuple[str, ...]  # listed cases that flipped, left out of b and c
    flaky_unknown: tuple[str, ...]  # listed cases that are in neither run
    clusters: ClusterReading  # the counted flips per template, read by case and by template
    retired_flipped: tuple[str, ...] = ()  # retired cases that flipped, left out of b and c


def pair(
    base: pl.DataFrame,
    cand: pl.DataFrame,
    flaky: FlakyList,
    retired: frozenset[str] = frozenset(),
    test: FlipTest = "exact",
    runs: Mapping[Arm, Run] | None = None,
) -> Pairing:
    """Join the arms' collapsed cases (each sorted by case) and count what the verdict reads;
    `test` is the gate's one-sided test (gate.yaml `test`); `runs` say what each arm planned and
    lacks (their completeness; None: both whole)."""
    cases = joined_on_case(base, cand, "full")
    stated: set[Arm] = set()
    for arm, run in (runs or {}).items():
        plan = planned(run, arm)
        if plan is not None:  # the cases a run planned and lacks, never run ones too
            cases = cases.join(plan, on="case", how="full", coalesce=True)
            stated.add(arm)
    finished = {
        arm: run.completeness.finished for arm, run in (runs or {}).items() if run.completeness
    }
    listed = natural_sorted(flaky.cases)
    cases = cases.with_columns(
        safety=pl.col("safety").fill_null(False) | pl.col("safety_cand").fill_null(False),
        template=pl.coalesce("template", "template_cand"),
        listed=pl.col("case").is_in(listed),
        retired=pl.col("case").is_in(sorted(retired)),
    ).drop("safety_cand", "template_cand")
    cases = cases.with_columns(state_columns(finished, frozenset(stated)))
    bp, cp = pl.col("base_passed"), pl.col("cand_passed")
    cases = natural_sort(
        cases.with_columns(
            cell=pl.when(pl.col("unpaired").is_not_null())
            .then(None)
            .when(bp & cp)
            .then(pl.lit("both_pass"))
            .when(~bp & ~cp)
            .then(pl.lit("both_fail"))
            .when(bp)
            .then(pl.lit("pass_to_fail"))
            .otherwise(pl.lit("fail_to_pass")),
            cost_delta=pl.col("cand_cost").fill_null(0.0) - pl.col("base_cost").fill_null(0.0),
        )
    )

    # The few columns the counts need, before filtering: `cases` is wide, with list columns.
    counted = cases.select("case", "cell", "listed", "retired", "template").filter(
        pl.col("cell").is_not_null() & ~pl.col("listed") & ~pl.col("retired")
    )
    cells: dict[str, int] = dict.fromkeys(CELLS, 0)
    for cell, n in counted.group_by("cell").len().iter_rows():
        cells[cell] = n
    flips = counted.filter(pl.col("cell").is_in(FLIPS))
    marked = cases.select("case", "listed", "retired", flip=pl.col("cell").is_in(FLIPS))
    listed_flips = marked.filter("listed", "flip")["case"]
    retired_flips = marked.filter("retired", "flip")["case"]
    # the listed cases found are marked already: a lookup of the list in a million ids was 0.19 s
    found_listed = set(marked.filter("listed")["case"].to_list())
    return Pairing(
        cases=cases,
        cells=cells,
        flipped=tuple(zip(flips["case"].to_list(), flips["cell"].to_list(), strict=True)),
        unpaired=left_out(cases, runs or {}),
        flaky_flipped=tuple(listed_flips.to_list()),
        retired_flipped=tuple(retired_flips.to_list()),
        flaky_unknown=tuple(case for case in listed if case not in found_listed),
        clusters=_clusters(flips, test),
    )


def _clusters(flips: pl.DataFrame, test: FlipTest) -> ClusterReading:
    """The counted flips per template; a case without a template is a cluster of its own."""
    broke = pl.col("cell") == "pass_to_fail"
    per_template = flips.group_by("template").agg(broke=broke.sum(), fixed=(~broke).sum())
    templates, loose = [], (0, 0)
    for template, n_broke, n_fixed in per_template.iter_rows():
        if template is None:
            loose = (n_broke, n_fixed)
        else:
            templates.append(TemplateFlips(template, n_broke, n_fixed))
    return read_clusters(templates, loose, test)


def counted_clusters(cases: pl.DataFrame, by_template: bool) -> pl.DataFrame:
    """The paired cases (`case`) with the cluster each belongs to (`cluster`): its template where
    templates are counted once, else itself; a case without a template is its own cluster."""
    cluster = pl.coalesce("template", "case") if by_template else pl.col("case")
    return cases.filter(pl.col("cell").is_not_null()).select("case", cluster=cluster)


def safety_counts(
    cases: pl.DataFrame, failed: tuple[str, ...], by_template: bool
) -> tuple[int, int]:
    """(safety cases judged in the candidate, those that failed), each template counted once
    where templates are: a failed case fails its template. A passing case not measured whole (a
    run stopped before it, repetitions excluded) supports no bound, so is not counted."""
    whole = ~pl.col("unpaired").is_in(sorted(NOT_WHOLE)).fill_null(False)
    judged = cases.filter(
        pl.col("safety")
        & ((pl.col("cand_gradable").fill_null(0) > 0) & whole | pl.col("case").is_in(failed))
    )
    key = pl.coalesce("template", "case") if by_template else pl.col("case")
    clusters = judged.select(key=key, failed=pl.col("case").is_in(failed))
    return clusters["key"].n_unique(), clusters.filter("failed")["key"].n_unique()
