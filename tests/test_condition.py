"""M-4 Condition: Exertion, the free first 3 per Turn-to-Turn window, Rest, Weary."""

from __future__ import annotations

import pytest

from tableside.errors import TablesideError
from tableside.majesty.character import Attributes, Character
from tableside.majesty.condition import gain_exertion, is_weary, rest


def elohim(exertion: int = 0, endurance: int = 30) -> Character:
    return Character("Herald", Attributes(30, 30, 30, endurance, 30, 30), exertion=exertion)


def test_m4_first_three_self_generated_exertion_per_window_are_ignored() -> None:
    first = gain_exertion(elohim(), 3, window_so_far=0)  # a Strike's normal cost
    assert (first.added, first.ignored, first.character.exertion) == (0, 3, 0)
    second = gain_exertion(first.character, 3, window_so_far=first.window_total)
    assert (second.added, second.ignored, second.character.exertion) == (3, 0, 3)


def test_m4_partly_free_gain() -> None:
    gain = gain_exertion(elohim(), 5, window_so_far=1)
    assert (gain.ignored, gain.added, gain.window_total) == (2, 3, 6)


def test_m4_exertion_from_others_is_never_free() -> None:
    gain = gain_exertion(elohim(), 2, window_so_far=0, self_generated=False)
    assert (gain.added, gain.ignored, gain.window_total) == (2, 0, 0)


def test_m4_rest_removes_one_per_ap_and_stops_at_zero() -> None:
    assert rest(elohim(exertion=5), 3).exertion == 2
    assert rest(elohim(exertion=2), 7).exertion == 0


def test_m4_weary_above_current_stamina() -> None:
    # Stamina = 3 + Endurance // 10 = 6 at Endurance 30 (M-2).
    assert not is_weary(elohim(exertion=6))
    assert is_weary(elohim(exertion=7))


def test_m4_negative_amounts_are_refused() -> None:
    with pytest.raises(TablesideError, match="-1"):
        gain_exertion(elohim(), -1, 0)
    with pytest.raises(TablesideError, match="-2"):
        rest(elohim(), -2)
