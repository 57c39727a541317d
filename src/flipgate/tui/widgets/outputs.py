"""The stored outputs of one repetition, baseline beside candidate, or their diff; and the
repetition's second metrics and extra fields.

Outputs are model text: untrusted, shown through `literal` (no markup, control characters made
visible); one that parses as JSON is indented, and diffed so, one value per line. The diff marks
lines with `-` (baseline only) and `+` (candidate only) as well as colour. Every text goes through
`LinesView`, which paints only the lines on screen: a 240 KB output scrolls like a short one.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Literal

from rich.console import Group, RenderableType
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Static
from textual.worker import get_current_worker

from flipgate.core.runs.model import METRICS
from flipgate.core.vocab import ARMS
from flipgate.present.casefile import CaseDetail, RepDetail
from flipgate.present.cause import fold, judged_input
from flipgate.present.diff import side_by_side, unified_diff
from flipgate.present.trajectory import readable
from flipgate.present.word_diff import Span, word_diff
from flipgate.tui.format import literal, passed_word, safe
from flipgate.tui.widgets.case_format import Palette, metric
from flipgate.tui.widgets.lines import LinesView, Row

Mode = Literal["outputs", "unified", "side-by-side"]
MODES: tuple[Mode, ...] = ("outputs", "unified", "side-by-side")
BIG_DIFF = 50_000  # characters in both outputs: past this the diff is computed in a worker
OUTPUT_FOLD = (40, 4_000)  # lines, characters of an output shown until it is expanded
DiffRows = Callable[[str | None, str | None, Palette], list[Row]]


def rep_title(arm: str, rep: RepDetail | None) -> str:
    if rep is None:
        return f"{arm}: no such repetition"
    if rep.status == "infra":
        return f"{arm} rep {rep.rep}: ⚠ infra ({rep.infra or 'unspecified'})"
    return f"{arm} rep {rep.rep}: {passed_word(rep.passed)}"


def more_characters(hidden: int) -> str:
    return f"… {hidden:,} more characters"


def output_rows(
    rep: RepDetail | None,
    palette: Palette,
    *,
    whole: bool = False,
    note: Callable[[int], str] = more_characters,
) -> list[Row]:
    """The output as stored, indented when it is JSON, a row per line; every character literal.
    Unless `whole`, a long one is folded, `note` (with the count) saying how to see the rest."""
    if rep is None or rep.output is None:
        return [(Text("no stored output", style=palette.muted),)]
    if rep.output == "":
        return [(Text("(empty output)", style=palette.muted),)]
    text = readable(rep.output) or ""
    lines, chars = OUTPUT_FOLD
    folded = fold(text, lines=lines, chars=chars)
    kept = text if whole else folded.kept
    # made safe whole, then cut: one pass of the check for hidden characters, not one per line
    rows: list[Row] = [(line,) for line in safe(kept, lines=True).expandtabs().split("\n")]
    if not whole and not folded.whole:
        rows.append((Text(note(folded.hidden), style=palette.muted),))
    return rows


def shown(text: str, style: str | Style = "") -> Text:
    """Untrusted text as it sits in a column: literal, its newlines kept (a turn has several),
    tabs expanded to where they would stop."""
    out = literal(text, style, lines=True)
    out.expand_tabs()
    return out


def unified_rows(baseline: str | None, candidate: str | None, palette: Palette) -> list[Row]:
    lines = unified_diff(readable(baseline), readable(candidate))
    if not lines:
        return [(Text("the two outputs are identical", style=palette.muted),)]
    style = {"+": palette.added, "-": palette.removed, "@": palette.hunk, " ": palette.muted}
    return [
        (shown(line.text if line.tag == "@" else f"{line.tag} {line.text}", style[line.tag]),)
        for line in lines
    ]


def side_by_side_rows(baseline: str | None, candidate: str | None, palette: Palette) -> list[Row]:
    """Both outputs line by line; a changed line marks the words that changed in it."""
    header = (Text("- baseline", style="bold"), Text("+ candidate", style="bold"))
    rows: list[Row] = [header]
    for row in side_by_side(readable(baseline), readable(candidate)):
        if row.tag == "equal":
            rows.append(
                (shown(row.left or "", palette.muted), shown(row.right or "", palette.muted))
            )
            continue
        if row.left is not None and row.right is not None:
            removed, added = word_diff(row.left, row.right)
            rows.append(
                (
                    marked("- ", row.left, removed, palette.removed, palette.removed_words),
                    marked("+ ", row.right, added, palette.added, palette.added_words),
                )
            )
            continue
        left = shown(f"- {row.left}", palette.removed) if row.left is not None else None
        right = shown(f"+ {row.right}", palette.added) if row.right is not None else None
        rows.append((left, right))
    return rows


def marked(prefix: str, line: str, spans: tuple[Span, ...], style: Style, words: Style) -> Text:
    """A changed line in its arm's colour, the words the other arm lacks marked on top. The
    marks fall on the same characters after `literal`: it maps a hidden character to one."""
    text = shown(prefix + line, style)
    for start, end in spans:
        text.stylize(words, start + len(prefix), end + len(prefix))
    return text


def facts_table(detail: CaseDetail, focus: int, palette: Palette) -> RenderableType:
    """Second metrics (this repetition and the mean over the arm's gradable ones), extra fields."""
    reps = {arm: detail.rep(arm, focus) for arm in ARMS}
    rep_no = detail.reps[focus]
    table = Table(show_edge=False, pad_edge=False, header_style="bold")
    table.add_column("metric")
    for arm in ARMS:
        table.add_column(f"{arm} rep {rep_no}", justify="right")
    for arm in ARMS:
        table.add_column(f"{arm} mean", justify="right")
    for name in METRICS:
        values = [r.metrics.get(name) if r else None for r in reps.values()]
        means = [detail.metrics[arm].get(name) for arm in ARMS]
        if all(v is None for v in (*values, *means)):
            continue
        table.add_row(name, *(metric(v, name) for v in (*values, *means)))
    parts: list[RenderableType] = [
        table if table.row_count else Text("no second metrics stored", style=palette.muted)
    ]
    judged = judged_input(detail, focus)  # shown above the decisions already
    shown_above = {judged[0]} if judged else set()
    keys = sorted({k for r in reps.values() if r for k in r.extra} - shown_above)
    if keys:
        extra = Table(show_edge=False, pad_edge=False, header_style="bold")
        extra.add_column("extra field", overflow="fold")
        for arm in ARMS:
            extra.add_column(f"{arm} rep {rep_no}", overflow="fold", ratio=1)
        for key in keys:
            cells = [
                literal(_field(r.extra[key]) if r and key in r.extra else "—")
                for r in reps.values()
            ]
            extra.add_row(literal(key), *cells)
        parts.append(Text(""))
        parts.append(extra)
    return Group(*parts)


def _field(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


class OutputsView(Vertical):
    """Baseline and candidate output of the repetition in focus, side by side or as a diff."""

    DEFAULT_CSS = """
    OutputsView { height: auto; }
    OutputsView #pair { height: auto; }
    OutputsView .output {
        width: 1fr; height: auto; border: round $panel; padding: 0 1;
        border-title-color: $text;
    }
    OutputsView.narrow #pair { layout: vertical; }
    OutputsView.narrow .output { width: 100%; }
    OutputsView #diff {
        height: auto; border: round $panel; padding: 0 1; border-title-color: $text;
    }
    """

    def compose(self) -> ComposeResult:
        with Horizontal(id="pair"):
            for arm in ARMS:
                yield LinesView(id=f"out-{arm}", classes="output", can_focus=True)
        yield LinesView(id="diff", can_focus=True)

    def diff_text(self) -> str:
        """The diff shown, as plain text (`y` copies it)."""
        return self.query_one("#diff", LinesView).plain()

    def show(
        self,
        detail: CaseDetail,
        focus: int,
        mode: Mode,
        *,
        expanded: set[str] | frozenset[str] = frozenset(),
        note: Callable[[int], str] = more_characters,
    ) -> None:
        """The outputs of repetition `focus` (an arm's whole when `out-ARM` is in `expanded`),
        or their diff."""
        palette = Palette.of(self.app)
        reps = {arm: detail.rep(arm, focus) for arm in ARMS}
        self.query_one("#pair").display = mode == "outputs"
        diff = self.query_one("#diff", LinesView)
        diff.display = mode != "outputs"
        self.workers.cancel_group(self, "diff")  # a diff still being computed is not wanted
        if mode == "outputs":
            for arm, rep in reps.items():
                panel = self.query_one(f"#out-{arm}", LinesView)
                panel.border_title = rep_title(arm, rep)
                whole = f"out-{arm}" in expanded
                panel.show(output_rows(rep, palette, whole=whole, note=note))
            return
        base, cand = (r.output if r else None for r in reps.values())
        diff.border_title = f"diff of rep {detail.reps[focus]}: - baseline, + candidate ({mode})"
        rows, columns = (unified_rows, 1) if mode == "unified" else (side_by_side_rows, 2)
        size = len(base or "") + len(cand or "")
        if size <= BIG_DIFF:
            diff.show(rows(base, cand, palette), columns=columns)
            return
        diff.show([(Text(f"comparing {size / 1000:,.0f} KB of output …", style=palette.muted),)])
        self._diff_in_worker(rows, columns, base, cand, palette)

    @work(thread=True, exclusive=True, group="diff", description="diff")
    def _diff_in_worker(
        self, rows: DiffRows, columns: int, base: str | None, cand: str | None, palette: Palette
    ) -> None:
        """difflib on two long outputs takes seconds: off the event loop, the screen stays live."""
        result = rows(base, cand, palette)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(
                self.query_one("#diff", LinesView).show, result, columns=columns
            )


class RepFacts(Static):
    DEFAULT_CSS = """
    RepFacts { height: auto; padding: 0 1; }
    """

    def show(self, detail: CaseDetail, focus: int) -> None:
        self.update(facts_table(detail, focus, Palette.of(self.app)))
