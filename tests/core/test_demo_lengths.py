"""Valid lengths the scoring demo generates and adapts when the numbers of queries and keys change."""
from __future__ import annotations

from explorer.core.chapter.attention_demos import clamp_lengths, default_lengths, parse_lengths


def test_default_lengths_never_exceed_the_keys():
    assert default_lengths(9, 10, offset=1) == [2, 3, 4, 5, 6, 7, 8, 9, 10]
    assert default_lengths(4, 2, offset=3) == [2, 2, 2, 2]
    for q in range(1, 12):
        for k in range(1, 12):
            parse_lengths(" ".join(map(str, default_lengths(q, k, offset=3))), q, k)  # no DemoError


def test_clamp_lowers_only_what_no_longer_fits():
    assert clamp_lengths("2 3 4 5 6 7 8 9 10", 9) == "2 3 4 5 6 7 8 9 9"
    assert clamp_lengths("1, 2", 5) == "1, 2"  # still valid: the user's spelling stays
    assert clamp_lengths("7", 3) == "3"
    assert clamp_lengths("one two", 3) == "one two"  # unreadable: reported when used, not rewritten
