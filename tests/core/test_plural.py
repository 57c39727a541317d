"""A count said in words: `1 case`, `2,345 cases`, `1 entry`, `3 entries`."""

from __future__ import annotations

import pytest

from flipgate.core.plural import plural, word


@pytest.mark.parametrize(
    ("n", "said"),
    [
        (0, "0 entries"),
        (1, "1 entry"),
        (2, "2 entries"),
        (1001, "1,001 entries"),
        (123_456_789, "123,456,789 entries"),
    ],
)
def test_a_count_is_said_with_its_word_and_thousands_separators(n: int, said: str) -> None:
    assert plural(n, "entry", "entries") == said


def test_the_word_alone_and_the_regular_plural() -> None:
    assert (word(1, "was", "were"), word(2, "was", "were")) == ("was", "were")
    assert plural(3, "case") == "3 cases"
