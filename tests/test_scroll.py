"""Rulings M-39 … M-41 (docs/rules.md): the War Scroll, points on it, Carry Over and Stand Ready."""

from __future__ import annotations

import pytest
from builders import refused

from tableside.majesty.scroll import (
    TURN_AP,
    Entrant,
    Moment,
    ScrollPoint,
    Segment,
    StandReady,
    TimedEffect,
    Turn,
    apply_carry_over,
    carry_over,
    chunk_index,
    next_activation,
    next_turn,
    one_cycle_later,
    play_key,
    point_of,
    segment_label,
    stand_ready,
    turn_chunks,
    turns_in_order,
    unused_as_rest,
    war_scroll,
)


def entrant(
    name: str, speed: int, swiftness: int = 30, holy: bool = True, tiebreak: int = 0
) -> Entrant:
    return Entrant(id=name, speed=speed, swiftness=swiftness, holy=holy, tiebreak=tiebreak)


def shape(scroll: tuple[Segment, ...]) -> list[tuple[str, list[tuple[str, int]]]]:
    return [(s.label, [(t.combatant, t.ap) for t in s.turns]) for s in scroll]


# Speeds 17, 16, 12, 11 with Swiftness falling in the same order (M-2: 90 → Speed 17 …).
WORKED = (
    entrant("Herald", 17, swiftness=90),
    entrant("Jackal", 16, swiftness=79, holy=False),
    entrant("Warrior", 12, swiftness=39),
    entrant("Messenger", 11, swiftness=30),
)


# --- M-40 Turns and Segments ------------------------------------------------------------------


def test_m40_worked_example_speeds_17_16_12_11() -> None:
    scroll = war_scroll(WORKED)
    assert [s.label for s in scroll] == ["1", "2", "A"]
    assert [[t.ap for t in s.turns] for s in scroll] == [[7, 7, 7, 7], [3, 2], [7, 7, 5, 4]]
    assert shape(scroll) == [
        ("1", [("Herald", 7), ("Jackal", 7), ("Warrior", 7), ("Messenger", 7)]),
        ("2", [("Herald", 3), ("Jackal", 2)]),
        ("A", [("Herald", 7), ("Jackal", 7), ("Warrior", 5), ("Messenger", 4)]),
    ]


def test_m40_worked_example_is_the_same_whatever_the_entry_order() -> None:
    assert war_scroll(tuple(reversed(WORKED))) == war_scroll(WORKED)


@pytest.mark.parametrize(
    ("speed", "chunks"),
    [(1, [1]), (6, [6]), (7, [7]), (8, [7, 1]), (11, [7, 4]), (14, [7, 7]), (17, [7, 7, 3])],
)
def test_m40_speed_is_cut_into_turns_of_at_most_7(speed: int, chunks: list[int]) -> None:
    assert turn_chunks(speed) == chunks
    assert sum(chunks) == speed
    assert max(chunks) <= TURN_AP


@pytest.mark.parametrize("speed", [0, -3])
def test_m40_speed_below_1_is_refused(speed: int) -> None:
    with refused(f"Speed must be at least 1, got {speed}"):
        turn_chunks(speed)
    with refused(f"Speed must be at least 1, got {speed}"):
        entrant("Herald", speed)


def test_m40_chunks_go_to_segments_1_a_2_b_3_c() -> None:
    labels = [segment_label(i) for i in range(8)]
    assert labels == ["1", "A", "2", "B", "3", "C", "4", "D"]
    assert [chunk_index(label) for label in labels] == list(range(8))


def test_m40_lettered_segments_continue_past_z() -> None:
    assert segment_label(51) == "Z"
    assert segment_label(53) == "AA"
    assert segment_label(55) == "AB"
    assert chunk_index("AA") == 53


def test_m40_play_order_is_numbers_then_letters() -> None:
    labels = ["B", "3", "A", "1", "AA", "10", "2", "Z"]
    assert sorted(labels, key=play_key) == ["1", "2", "3", "10", "A", "B", "Z", "AA"]


@pytest.mark.parametrize("label", ["", "0", "01", "a", "1A", "-1", "Ⅳ", "２"])
def test_m40_bad_segment_labels_are_refused(label: str) -> None:
    with refused("is not a Segment label"):
        play_key(label)


def test_m40_negative_chunk_index_is_refused() -> None:
    with refused("cannot be negative, got -1"):
        segment_label(-1)


def test_m40_higher_swiftness_acts_first_within_a_segment() -> None:
    scroll = war_scroll([entrant("Slow", 7, swiftness=10), entrant("Fast", 7, swiftness=50)])
    assert shape(scroll) == [("1", [("Fast", 7), ("Slow", 7)])]


def test_m40_swiftness_ties_go_to_the_holy_side_then_the_seeded_tiebreak() -> None:
    scroll = war_scroll(
        [
            entrant("Fallen", 7, holy=False, tiebreak=0),
            entrant("Holy-late", 7, tiebreak=9),
            entrant("Holy-early", 7, tiebreak=2),
        ]
    )
    assert [t.combatant for t in scroll[0].turns] == ["Holy-early", "Holy-late", "Fallen"]


def test_m40_full_ties_fall_back_to_id_order() -> None:
    scroll = war_scroll([entrant("b", 7), entrant("a", 7)])
    assert [t.combatant for t in scroll[0].turns] == ["a", "b"]


def test_m40_current_swiftness_orders_every_segment_independently_of_speed() -> None:
    # A slow, swift entrant acts first wherever it has a Turn.
    scroll = war_scroll([entrant("Big", 20, swiftness=30), entrant("Quick", 8, swiftness=60)])
    assert shape(scroll) == [
        ("1", [("Quick", 7), ("Big", 7)]),
        ("2", [("Big", 6)]),
        ("A", [("Quick", 1), ("Big", 7)]),
    ]


def test_m40_empty_scroll_and_bad_entrants() -> None:
    assert war_scroll([]) == ()
    with refused("ids must be unique"):
        war_scroll([entrant("Herald", 7), entrant("Herald", 9)])
    with refused("Swiftness cannot be negative, got -1"):
        entrant("Herald", 7, swiftness=-1)
    with refused("non-empty id"):
        entrant("", 7)


def test_m40_turn_is_an_activation_listed_in_play_order() -> None:
    order = [(place, t.combatant, t.segment) for place, t in turns_in_order(war_scroll(WORKED))]
    assert order[:5] == [
        (1, "Herald", "1"),
        (2, "Jackal", "1"),
        (3, "Warrior", "1"),
        (4, "Messenger", "1"),
        (1, "Herald", "2"),
    ]
    assert len(order) == 10


# --- M-39 points on the Scroll ----------------------------------------------------------------


def test_m39_points_order_by_cycle_segment_play_order_place_and_moment() -> None:
    points = [
        ScrollPoint(2, "1", 1),
        ScrollPoint(1, "A", 1),
        ScrollPoint(1, "2", 3),
        ScrollPoint(1, "2", 1, Moment.AFTER),
        ScrollPoint(1, "2", 1, Moment.DURING),
        ScrollPoint(1, "2", 1),
        ScrollPoint(1, "10", 1),
    ]
    assert sorted(points) == [
        ScrollPoint(1, "2", 1),
        ScrollPoint(1, "2", 1, Moment.DURING),
        ScrollPoint(1, "2", 1, Moment.AFTER),
        ScrollPoint(1, "2", 3),
        ScrollPoint(1, "10", 1),
        ScrollPoint(1, "A", 1),
        ScrollPoint(2, "1", 1),
    ]
    assert ScrollPoint(1, "B", 1) > ScrollPoint(1, "9", 4)
    assert ScrollPoint(1, "1", 1) <= ScrollPoint(1, "1", 1)


def test_m39_bad_points_are_refused() -> None:
    with refused("Cycle number must be at least 1, got 0"):
        ScrollPoint(0, "1", 1)
    with refused("starts at 1, got 0"):
        ScrollPoint(1, "1", 0)
    with refused("is not a Segment label"):
        ScrollPoint(1, "x", 1)


def test_m39_one_cycle_ends_at_the_same_point_next_cycle() -> None:
    start = ScrollPoint(3, "A", 2, Moment.DURING)
    end = one_cycle_later(start)
    assert end == ScrollPoint(4, "A", 2, Moment.DURING)
    effect = TimedEffect("Weakened", "Jackal", end)
    assert effect.active_at(start)
    assert effect.active_at(ScrollPoint(4, "1", 1))
    assert effect.active_at(ScrollPoint(4, "A", 2, Moment.BEFORE))
    assert not effect.active_at(end)
    assert not effect.active_at(ScrollPoint(4, "B", 1))


def test_m39_until_just_before_the_next_activation() -> None:
    scroll = war_scroll(WORKED)
    # The Herald Surprises the Warrior during the Herald's Turn in Segment 2 (Cycle 1).
    now = point_of(scroll, 1, "Herald", "2", Moment.DURING)
    assert now == ScrollPoint(1, "2", 1, Moment.DURING)
    end = next_activation(scroll, 1, "Warrior", after=now)
    assert end == ScrollPoint(1, "A", 3, Moment.BEFORE)
    surprised = TimedEffect("Surprised", "Warrior", end)
    assert surprised.active_at(point_of(scroll, 1, "Jackal", "A", Moment.AFTER))
    assert not surprised.active_at(point_of(scroll, 1, "Warrior", "A", Moment.BEFORE))
    assert surprised.label == "Surprised on Warrior, ends just before Cycle 1, Segment A, Turn 3"


def test_m39_next_activation_may_be_in_the_next_cycle() -> None:
    scroll = war_scroll(WORKED)
    late = point_of(scroll, 1, "Messenger", "A", Moment.DURING)
    assert next_activation(scroll, 1, "Herald", after=late) is None
    assert next_activation(scroll, 2, "Herald") == ScrollPoint(2, "1", 1)
    assert next_activation(scroll, 1, "Nobody") is None


def test_m39_point_of_a_missing_turn_is_refused() -> None:
    with refused("Warrior has no Turn in Segment 2 of Cycle 1"):
        point_of(war_scroll(WORKED), 1, "Warrior", "2", Moment.BEFORE)


def test_m39_describe_names_the_moment() -> None:
    assert (
        ScrollPoint(2, "B", 1, Moment.AFTER).describe() == "just after Cycle 2, Segment B, Turn 1"
    )
    assert ScrollPoint(1, "1", 2, Moment.DURING).describe() == "during Cycle 1, Segment 1, Turn 2"


# --- M-41 Carry Over --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("current", "following", "amount", "result"),
    [(7, 3, 4, (3, 7)), (7, 3, 1, (6, 4)), (5, 0, 5, (0, 5)), (7, 6, 0, (7, 6))],
)
def test_m41_carry_over_fills_a_short_next_turn_up_to_7(
    current: int, following: int, amount: int, result: tuple[int, int]
) -> None:
    assert carry_over(current, following, amount) == result


def test_m41_carry_over_into_a_full_turn_is_refused() -> None:
    with refused("fewer than 7 AP, but it has 7"):
        carry_over(7, 7, 1)


def test_m41_carry_over_never_goes_above_7() -> None:
    with refused("Carrying 5 AP into a Turn with 3 AP would exceed 7 AP"):
        carry_over(7, 3, 5)


def test_m41_carry_over_bad_amounts_are_refused() -> None:
    with refused("Cannot carry over 4 AP from a Turn with 3 AP"):
        carry_over(3, 2, 4)
    with refused("Carry Over cannot be negative, got -1"):
        carry_over(3, 2, -1)
    with refused("This Turn's AP cannot be negative, got -2"):
        carry_over(-2, 2, 0)


def test_m41_carry_over_in_the_scroll_goes_to_the_next_turn_in_play_order() -> None:
    scroll = war_scroll(WORKED)
    # The Herald's Turns play 1 (7), 2 (3), A (7): its next Turn after Segment 1 is Segment 2.
    assert next_turn(scroll, "Herald", "1") == Turn("Herald", "2", 3)
    after = apply_carry_over(scroll, "Herald", "1", 4)
    assert shape(after)[0][1][0] == ("Herald", 3)
    assert shape(after)[1][1][0] == ("Herald", 7)
    assert shape(after)[2] == shape(scroll)[2]
    with refused("fewer than 7 AP, but it has 7"):
        apply_carry_over(scroll, "Herald", "2", 1)  # Segment A already holds 7


def test_m41_carry_over_in_the_scroll_needs_a_later_turn_this_cycle() -> None:
    scroll = war_scroll(WORKED)
    assert next_turn(scroll, "Warrior", "A") is None
    with refused("Warrior has no later Turn this Cycle after Segment A"):
        apply_carry_over(scroll, "Warrior", "A", 1)
    with refused("Warrior has no Turn in Segment 2"):
        next_turn(scroll, "Warrior", "2")


# --- M-41 Stand Ready -------------------------------------------------------------------------


def test_m41_stand_ready_holds_ap_for_up_to_two_uses() -> None:
    ready = stand_ready(4, ["Counter Strike", "Interpose"])
    assert ready == StandReady(4, ("Counter Strike", "Interpose"))
    assert stand_ready(2, ("Strike",)).uses == ("Strike",)


def test_m41_stand_ready_refuses_three_uses_none_or_no_ap() -> None:
    with refused("one or two uses, got 3"):
        stand_ready(5, ["Strike", "Interpose", "Move"])
    with refused("one or two uses, got 0"):
        stand_ready(5, [])
    with refused("needs a name"):
        stand_ready(5, ["Strike", " "])
    with refused("at least 1 AP, got 0"):
        stand_ready(0, ["Strike"])


@pytest.mark.parametrize(("used", "rest"), [(0, 5), (3, 2), (5, 0)])
def test_m41_unused_readied_ap_count_as_rest(used: int, rest: int) -> None:
    assert unused_as_rest(stand_ready(5, ["Strike"]), used) == rest


def test_m41_using_more_readied_ap_than_held_is_refused() -> None:
    ready = stand_ready(3, ["Strike"])
    with refused("Cannot use 4 readied AP when only 3 are held"):
        unused_as_rest(ready, 4)
    with refused("cannot be negative, got -1"):
        unused_as_rest(ready, -1)
