from flipgate.present.word_diff import MAX_TOKENS, word_diff


def pieces(text: str, spans: tuple[tuple[int, int], ...]) -> list[str]:
    return [text[start:end] for start, end in spans]


def test_only_the_changed_words_are_marked() -> None:
    left = "refund 40 EUR as goodwill"
    right = "refund 40 EUR as faulty item"
    removed, added = word_diff(left, right)
    assert pieces(left, removed) == ["goodwill"]
    assert pieces(right, added) == ["faulty item"]  # the space between two changed words joins


def test_equal_lines_mark_nothing_and_an_empty_side_marks_the_other_whole() -> None:
    assert word_diff("same words", "same words") == ((), ())
    assert word_diff("", "new text") == ((), ((0, 8),))
    assert word_diff("old", "") == (((0, 3),), ())


def test_punctuation_is_a_word_of_its_own() -> None:
    removed, added = word_diff('call("search")', 'call("lookup")')
    assert pieces('call("search")', removed) == ["search"]
    assert pieces('call("lookup")', added) == ["lookup"]


def test_a_huge_line_is_marked_whole_rather_than_diffed() -> None:
    left = "a " * MAX_TOKENS
    right = "b " * MAX_TOKENS
    assert word_diff(left, right) == (((0, len(left)),), ((0, len(right)),))
