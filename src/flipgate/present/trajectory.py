"""What the agent did: the turns of one repetition, and the two arms' turns aligned side by side.

    turn         one message of the conversation: who spoke (system, user, assistant, tool), what
                 it said, the tools it called (name and arguments) or the result it got
    alignment    baseline and candidate turns paired by what kind of turn they are (the role, and
                 for tool use the tools named), so that a turn one arm skipped leaves a gap
    divergence   the first pair where what the agent did differs (an assistant or tool turn): an
                 input that differs before it (a changed system prompt) is named, not marked; an
                 arm whose turns end there is said to have errored, or been stopped by a limit,
                 where its repetition did (`Ending`)
    wobble       where an arm's own repetitions part from each other: the arms parting no earlier
                 than that is the agent's usual variation, not the change (issue 23 item 3)

Pure functions over the `messages` text a run stores (see `core.runs.turns`): no terminal.
"""

from __future__ import annotations

import json
import re
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import cached_property, lru_cache
from itertools import combinations
from typing import Any, Literal

from flipgate.core.plural import plural

AGENT_ROLES = ("assistant", "tool")  # what the agent did; system and user turns are its input
SIDES = ("baseline", "candidate")
QUOTE_CHARS = 60  # how much of a turn's text the divergence sentence quotes


@dataclass(frozen=True)
class Call:
    name: str
    arguments: dict[str, Any]
    id: str | None

    def shown(self) -> str:
        """`refund_order(order_id="A-1", amount=180)`: a call as a reader writes it."""
        args = ", ".join(
            f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in self.arguments.items()
        )
        return f"{self.name}({args})"


@dataclass(frozen=True)
class Turn:
    number: int  # 1-based, in its arm's conversation
    role: str
    content: str
    calls: tuple[Call, ...] = ()
    tool: str | None = None  # a tool turn: the tool whose result this is
    error: str | None = None  # a tool turn: the call failed

    @property
    def label(self) -> str:
        return f"{self.number} {self.role}" + (f" {self.tool}" if self.tool else "")

    @cached_property  # every alignment compares turns by it: a call's arguments dumped once
    def text(self) -> str:
        """The turn as shown and diffed: its text, then one line per call, or the tool's error."""
        lines = [self.content] if self.content else []
        lines += [f"→ {call.shown()}" for call in self.calls]
        if self.error:
            lines.append(f"error: {self.error}")
        return "\n".join(lines)

    @cached_property
    def kind(self) -> tuple[str, ...]:
        """What the alignment pairs on: the role, and the tools a turn calls or answers for."""
        return (self.role, *(call.name for call in self.calls), *([self.tool] if self.tool else []))

    def same_as(self, other: Turn) -> bool:
        """The same turn in both arms; call ids are left out, a harness numbers them afresh."""
        return (self.role, self.text, self.tool) == (other.role, other.text, other.tool)

    def did(self) -> str:
        """What the turn did, for the divergence sentence: "called refund_order(amount=180)"."""
        if self.calls:
            return "called " + " and ".join(call.shown() for call in self.calls)
        if self.role == "tool":
            if self.error:
                return f"got an error from {self.tool or 'a tool'}: {_quote(self.error)}"
            return f"got {self.tool or 'a tool'}'s result {_quote(self.content)}"
        if self.role == "assistant":
            return f"replied {_quote(self.content)}" if self.content else "replied with nothing"
        return f"was given the {self.role} turn {_quote(self.content)}"


@dataclass(frozen=True)
class Ending:
    """How an arm's repetition ended, where it did not end by itself: an error (an infra
    repetition, with its kind or message), a limit that stopped it (its type and value), or not
    at all: it never ran."""

    rep: int
    errored: str | None = None
    limit: tuple[str, float] | None = None
    never_ran: bool = False  # the arm has no such repetition (its run stopped, or lacks it)

    def says(self, arm: str) -> str:
        """`the candidate's repetition 2 errored (timeout)`, `... was stopped by the message
        limit (12)`, `... never ran`."""
        whose = f"the {arm}'s repetition {self.rep}"
        if self.never_ran:
            return f"{whose} never ran"
        if self.errored is not None:
            return f"{whose} errored ({_cut(self.errored)})"
        if self.limit is not None:
            kind, value = self.limit
            return f"{whose} was stopped by the {kind} limit ({value:g})"
        return f"the {arm} had already stopped"


def _cut(text: str) -> str:
    flat = " ".join(text.split())
    return f"{flat[:QUOTE_CHARS]}…" if len(flat) > QUOTE_CHARS else flat


def _quote(text: str) -> str:
    flat = " ".join(text.split())
    return f"“{flat[:QUOTE_CHARS]}…”" if len(flat) > QUOTE_CHARS else f"“{flat}”"


def parse_turns(messages: str | None) -> tuple[Turn, ...]:
    """The turns a run stored (validated on load); a tool turn takes its tool's name from the
    call it answers when it does not give one. A null field is an absent one: a columnar reader
    gives every turn, and every call's arguments, the fields any of them has."""
    return tuple(each_turn(messages))


def each_turn(messages: str | None) -> Iterator[Turn]:
    """`parse_turns`, a turn at a time: what needs only the first turns (the first user turn)
    decodes only those, not the 50,000 of a long agent run."""
    if not messages:
        return
    called: dict[str, str] = {}
    for number, raw in enumerate(_each_turn(messages), start=1):
        calls = tuple(
            Call(
                name=call["name"],
                arguments={k: v for k, v in (call.get("arguments") or {}).items() if v is not None},
                id=call.get("id"),
            )
            for call in raw.get("tool_calls") or ()
        )
        called.update((call.id, call.name) for call in calls if call.id)
        tool = raw.get("name") or called.get(raw.get("tool_call_id") or "")
        yield Turn(
            number=number,
            role=raw["role"],
            content=raw.get("content") or "",
            calls=calls,
            tool=tool if raw["role"] == "tool" else None,
            error=raw.get("error"),
        )


_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")


def _each_turn(messages: str) -> Iterator[dict[str, Any]]:
    """The turns of a stored trajectory (a JSON list), decoded one at a time: `json.loads` of a
    5 MB one holds the interpreter for a fifth of a second, which a worker must not do to the
    event loop; between two turns it can take its turn."""
    at = _past_space(messages, 0) + 1  # past the `[`
    while True:
        at = _past_space(messages, at)
        if messages[at] == "]":
            return
        turn, at = _DECODER.raw_decode(messages, at)
        yield turn
        at = _past_space(messages, at)
        at += messages[at] == ","


def _past_space(text: str, at: int) -> int:
    found = _SPACE.match(text, at)
    assert found is not None  # it matches the empty string at the least
    return found.end()


PairTag = Literal["same", "changed", "baseline only", "candidate only"]


@dataclass(frozen=True)
class TurnPair:
    baseline: Turn | None
    candidate: Turn | None

    @property
    def tag(self) -> PairTag:
        if self.baseline is None:
            return "candidate only"
        if self.candidate is None:
            return "baseline only"
        return "same" if self.baseline.same_as(self.candidate) else "changed"

    @property
    def by_agent(self) -> bool:
        return any(t is not None and t.role in AGENT_ROLES for t in (self.baseline, self.candidate))


@dataclass(frozen=True)
class Alignment:
    pairs: tuple[TurnPair, ...]
    divergence: int | None  # index into `pairs` of the first turn where the agent's acts differ
    summary: str  # what differs, in a sentence

    @property
    def identical(self) -> bool:
        return all(pair.tag == "same" for pair in self.pairs)


def align(
    baseline: tuple[Turn, ...],
    candidate: tuple[Turn, ...],
    endings: Mapping[str, Ending] | None = None,
) -> Alignment:
    """Pair the two conversations turn by turn and say where, and how, the agent's path forks;
    `endings`, by arm, how a repetition that errored or hit a limit ended.

    Linear in the turns: 53,000 of them took difflib 163 s on the whole conversation
    (`kind_opcodes` compares a bounded window at a time)."""
    pairs: list[TurnPair] = []
    for tag, i1, i2, j1, j2 in kind_opcodes(
        [t.kind for t in baseline], [t.kind for t in candidate]
    ):
        left, right = baseline[i1:i2], candidate[j1:j2]
        if tag in ("equal", "replace"):
            common = min(len(left), len(right))
            pairs += [TurnPair(a, b) for a, b in zip(left[:common], right[:common], strict=True)]
            left, right = left[common:], right[common:]
        pairs += [TurnPair(a, None) for a in left]
        pairs += [TurnPair(None, b) for b in right]
    divergence = next(
        (i for i, pair in enumerate(pairs) if pair.tag != "same" and pair.by_agent), None
    )
    return Alignment(tuple(pairs), divergence, _summary(pairs, divergence, endings or {}))


WINDOW = 256  # turns of each arm difflib compares at once: its cost is the window's, squared
Opcode = tuple[str, int, int, int, int]


def kind_opcodes(a: Sequence[Hashable], b: Sequence[Hashable]) -> Iterator[Opcode]:
    """difflib's opcodes (`equal`, `replace`, `delete`, `insert`) for two sequences of turn kinds,
    in time linear in their lengths.

    A run of turns both arms share is matched by walking it; past it, difflib compares the next
    `WINDOW` turns of each arm, and what it finds up to half the window is kept (an opcode that
    crosses the half is cut there): the rest is compared again, in the next window, with what
    follows it. Each window moves at least half a window along one arm, so the work is at most
    a window's for every half window of turns."""
    half = WINDOW // 2
    i = j = 0
    while i < len(a) or j < len(b):
        same = _same_run(a, b, i, j)
        if same:
            yield ("equal", i, i + same, j, j + same)
            i, j = i + same, j + same
            continue
        wa, wb = a[i : i + WINDOW], b[j : j + WINDOW]
        whole = i + len(wa) == len(a) and j + len(wb) == len(b)
        for tag, i1, i2, j1, j2 in SequenceMatcher(a=wa, b=wb, autojunk=False).get_opcodes():
            if not whole and (i2 > half or j2 > half):
                ci, cj = _cut_at_half(tag, i1, i2, j1, j2, half)
                if (ci, cj) != (i1, j1):
                    yield (tag, i + i1, i + ci, j + j1, j + cj)
                i, j = i + ci, j + cj
                break
            yield (tag, i + i1, i + i2, j + j1, j + j2)
        else:
            i, j = i + len(wa), j + len(wb)


def _same_run(a: Sequence[Hashable], b: Sequence[Hashable], i: int, j: int) -> int:
    """How many turns from `i` of `a` and `j` of `b` are of the same kind, one by one."""
    n = 0
    while i + n < len(a) and j + n < len(b) and a[i + n] == b[j + n]:
        n += 1
    return n


def _cut_at_half(tag: str, i1: int, i2: int, j1: int, j2: int, half: int) -> tuple[int, int]:
    """Where an opcode that crosses `half` (in either arm) ends when cut there."""
    if tag == "equal":
        k = min(half - i1, half - j1)
        return i1 + k, j1 + k
    return min(i2, half), min(j2, half)


def _summary(pairs: list[TurnPair], divergence: int | None, endings: Mapping[str, Ending]) -> str:
    """Where the paths fork and what each arm did there; then how an arm ended, where it errored
    or a limit stopped it and the fork does not already say so."""
    said: list[str] = []  # the arms whose ending the fork's sentence names
    sentence = _fork(pairs, divergence, endings, said)
    return sentence + "".join(f" · {e.says(arm)}" for arm, e in endings.items() if arm not in said)


def _fork(
    pairs: list[TurnPair], divergence: int | None, endings: Mapping[str, Ending], said: list[str]
) -> str:
    held = {side: sum(getattr(p, side) is not None for p in pairs) for side in SIDES}
    if pairs and not all(held.values()):  # one arm has no turn at all: nothing forks
        empty, other = sorted(SIDES, key=held.__getitem__)
        if empty in endings:
            said.append(empty)
        stopped = endings[empty].says(empty) if empty in endings else f"the {empty} stored no turn"
        return f"{stopped}; the {other} took {plural(held[other], 'turn')}"
    inputs = (
        [p for p in pairs[:divergence] if p.tag != "same"]
        if divergence is not None
        else [p for p in pairs if p.tag != "same"]
    )
    before = ", ".join(_input_name(pair) for pair in inputs[:3]) + (
        ", …" if len(inputs) > 3 else ""
    )
    if divergence is None:
        if not pairs:
            return "no turns stored in either arm"
        if before:
            return f"the agent did the same in both arms; its input differs: {before}"
        return "the agent did the same in both arms: every turn is identical"
    number = next(t.number for t in (pairs[divergence].baseline, pairs[divergence].candidate) if t)

    def what(side: str) -> str:
        turn = _next_turn(pairs, divergence, side)
        if turn is not None:
            return f"the {side} {turn.did()}"
        if side not in endings:
            return f"the {side} had already stopped"
        said.append(side)
        return endings[side].says(side)

    sentence = f"turn {number}: {what('candidate')}; {what('baseline')}"
    return f"{sentence} · before that, {before} differs" if before else sentence


def _input_name(pair: TurnPair) -> str:
    turn = pair.baseline or pair.candidate
    assert turn is not None
    what = "the system prompt" if turn.role == "system" else f"the {turn.role} turn"
    return f"{what} (turn {turn.number})"


def _next_turn(pairs: list[TurnPair], start: int, side: str) -> Turn | None:
    """The first turn of `side` at or after pair `start`: across a gap, what the arm did next."""
    for pair in pairs[start:]:
        turn: Turn | None = getattr(pair, side)
        if turn is not None:
            return turn
    return None


def parted_at(alignment: Alignment) -> int | None:
    """The turn number where two conversations part (None: they do not)."""
    if alignment.divergence is None:
        return None
    pair = alignment.pairs[alignment.divergence]
    return next(t.number for t in (pair.baseline, pair.candidate) if t is not None)


Reading = Literal["new_divergence", "normal_wobble", "no_divergence", "unknown"]


@dataclass(frozen=True)
class Wobble:
    """Where the arms part, beside where each arm parts from itself, for one case's repetitions.

    `between` is the turn by which every baseline repetition has parted from every candidate
    repetition (None: some pair never parts); `own[arm]` the earliest turn where two of the
    arm's own repetitions part (None: they never do, or fewer than two were stored)."""

    between: int | None
    own: dict[str, int | None]
    trajectories: dict[str, int]  # repetitions with stored turns, per arm

    @property
    def reading(self) -> Reading:
        if not all(self.trajectories.values()):
            return "unknown"  # an arm stored no turns
        if self.between is None:
            return "no_divergence"
        if min(self.trajectories.values()) < 2:
            return "unknown"  # an arm's own variation cannot be seen in one repetition
        earliest_own = min((t for t in self.own.values() if t is not None), default=None)
        if earliest_own is None or self.between < earliest_own:
            return "new_divergence"
        return "normal_wobble"

    def said(self) -> str:
        """`new divergence at turn 5: ...` or `normal wobble: ...`, in one line."""
        own = " and ".join(
            f"the {arm}'s own repetitions "
            + (f"part at turn {turn}" if turn is not None else "never part")
            for arm, turn in self.own.items()
        )
        reading = self.reading
        if reading == "no_divergence":
            return "no new divergence: a candidate repetition does what a baseline one did, turn for turn"
        if reading == "unknown":
            alone = next(arm for arm, n in self.trajectories.items() if n < 2)
            if self.between is None:
                return f"the {alone} stored no turns: where the arms part is unknown"
            return (
                f"the arms part by turn {self.between}; whether that is wobble is unknown: the "
                f"{alone} has fewer than two repetitions with stored turns"
            )
        if reading == "new_divergence":
            return f"new divergence at turn {self.between}: earlier than {own}"
        return f"normal wobble: the arms part by turn {self.between}, and {own}"


def wobble(baseline: Sequence[tuple[Turn, ...]], candidate: Sequence[tuple[Turn, ...]]) -> Wobble:
    """The arms' parting against each arm's own, from each arm's repetitions' turns."""
    arms = {"baseline": [t for t in baseline if t], "candidate": [t for t in candidate if t]}
    own = {
        arm: [parted_at(align(a, b)) for a, b in combinations(reps, 2)]
        for arm, reps in arms.items()
    }
    crossed = [parted_at(align(b, c)) for b in arms["baseline"] for c in arms["candidate"]]
    return partings(own, crossed, {arm: len(reps) for arm, reps in arms.items()})


def partings(
    own: Mapping[str, Sequence[int | None]],
    crossed: Sequence[int | None],
    trajectories: dict[str, int],
) -> Wobble:
    """`Wobble` from where each pair of repetitions parts (None: it does not): `own`, the pairs
    within each arm; `crossed`, every baseline repetition with every candidate one. Any ordered
    measure of "where" does: a turn number, or a row of the every-repetition view."""
    firsts = {
        arm: min((at for at in pairs if at is not None), default=None) for arm, pairs in own.items()
    }
    parted = [at for at in crossed if at is not None]
    between = max(parted) if parted and len(parted) == len(crossed) else None
    return Wobble(between, firsts, trajectories)


@lru_cache(maxsize=8)  # the drill-down asks again at each redraw; a 240 KB output takes 50 ms
def readable(output: str | None) -> str | None:
    """An output that parses as a JSON object or array, indented (keys in their order), so that
    it reads, and diffs, one value per line; any other output as it was stored."""
    if not output or output.lstrip()[:1] not in ("{", "["):
        return output
    try:
        value = json.loads(output)
    except ValueError:
        return output
    return json.dumps(value, indent=2, ensure_ascii=False)


__all__ = [
    "Alignment",
    "Call",
    "Ending",
    "Turn",
    "TurnPair",
    "Wobble",
    "align",
    "parse_turns",
    "partings",
    "readable",
    "wobble",
]
