"""Seating and balancing: the draw, breaks, moves to the worst position, waits, the final
table and hand-for-hand; random fields with busts between steps keep every invariant and
use the fewest moves the rules allow."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from random import Random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from poker.engine.config import blind_seats
from tournaments.rules.balance import (
    FieldState,
    Move,
    Plan,
    TableState,
    apply,
    balance,
    hand_for_hand_may_deal,
    seat_draw,
)
from tournaments.rules.errors import SeatingError


def table(
    number: int, seats: Mapping[int, int], button: int | None = None, between: bool = True
) -> TableState:
    return TableState(number=number, seats=seats, button=button, between_hands=between)


def full(number: int, players: Iterable[int], button: int | None = None, between: bool = True):
    """A table whose players take seats 1, 2, 3..."""
    return table(number, dict(enumerate(players, start=1)), button, between)


def sizes(field: FieldState) -> list[int]:
    return [len(t.seats) for t in field.tables]


def blinds(occupied: Iterable[int], button: int | None) -> tuple[int, int]:
    """(small blind seat, big blind seat) of the next hand, as the dealer deals it: the
    button to the next occupied seat, left of it first, the button last."""
    numbers = sorted(occupied)
    later = [n for n in numbers if button is None or n > button]
    dealer = min(later) if later else min(numbers)
    k = numbers.index(dealer)
    order = numbers[k + 1 :] + numbers[: k + 1]
    seats = blind_seats(len(order))
    return order[seats.small], order[seats.big]


def least_moves(table_sizes: list[int], seats_per_table: int) -> int:
    """The fewest moves that bring a field of these sizes within 1 under the break rule:
    the players of the tables that must break, plus what the tables that stay hold above
    their share (the final table: everyone, as its seats are drawn anew)."""
    players = sum(table_sizes)
    keep = max(1, -(-players // seats_per_table))
    ordered = sorted(table_sizes)
    broken, kept = ordered[: len(ordered) - keep], ordered[len(ordered) - keep :]
    if keep == 1:
        return players if broken else 0
    share, extra = divmod(players, keep)
    above = [s for s in kept if s > share]
    return sum(broken) + sum(s - share for s in above) - min(extra, len(above))


# --- the draw ---------------------------------------------------------------------------


def test_the_initial_draw_seats_everyone_at_the_fewest_tables_within_one_of_each_other() -> None:
    field = seat_draw(players=range(25), seats_per_table=10, rng=Random(7))
    assert sizes(field) == [9, 8, 8]
    seated = [p for t in field.tables for p in t.seats.values()]
    assert sorted(seated) == list(range(25))
    assert all(1 <= s <= 10 for t in field.tables for s in t.seats)
    assert all(t.button is None and t.between_hands for t in field.tables)


def test_the_initial_draw_is_random_and_repeats_with_the_same_seed() -> None:
    one = seat_draw(players=range(40), seats_per_table=9, rng=Random(1))
    same = seat_draw(players=range(40), seats_per_table=9, rng=Random(1))
    other = seat_draw(players=range(40), seats_per_table=9, rng=Random(2))
    assert one == same
    assert one != other


@pytest.mark.parametrize(
    ("players", "seats_per_table"), [([], 9), ([1, 1], 9), ([1, 2], 1), ([1, 2], 24)]
)
def test_a_draw_of_nobody_of_a_player_twice_or_of_impossible_tables_is_refused(
    players: list[int], seats_per_table: int
) -> None:
    with pytest.raises(SeatingError) as err:
        seat_draw(players=players, seats_per_table=seats_per_table, rng=Random(0))
    assert err.value.code == "invalid_field"


@pytest.mark.parametrize(
    "tables",
    [
        (full(1, [1, 2]), full(2, [2, 3])),  # a player at two tables
        (full(1, [1, 2]), full(1, [3, 4])),  # a table number twice
        (table(1, {0: 1, 1: 2}),),  # seat 0
        (table(1, {1: 1, 10: 2}),),  # a seat beyond the table
        (table(1, {1: 1, 2: 2}, button=11),),
        (),  # no table
    ],
)
def test_a_field_that_breaks_the_seating_rules_is_refused(tables: tuple[TableState, ...]) -> None:
    with pytest.raises(SeatingError) as err:
        FieldState(tables=tables, seats_per_table=9)
    assert err.value.code == "invalid_field"


# --- breaking ---------------------------------------------------------------------------


def test_a_table_breaks_as_soon_as_the_players_fit_in_one_fewer_table() -> None:
    fits = FieldState(
        tables=(full(1, range(7)), full(2, range(10, 17)), full(3, range(20, 26))),
        seats_per_table=10,
    )
    plan = balance(fits, Random(3))
    assert plan.broken == (3,)
    assert sorted(m.player for m in plan.moves) == list(range(20, 26))
    after = apply(fits, plan)
    assert [t.number for t in after.tables] == [1, 2] and sizes(after) == [10, 10]

    one_too_many = FieldState(
        tables=(full(1, range(7)), full(2, range(10, 17)), full(3, range(20, 27))),
        seats_per_table=10,
    )
    assert balance(one_too_many, Random(3)) == Plan()


def test_the_table_with_the_fewest_players_breaks_ties_to_the_highest_number() -> None:
    field = FieldState(
        tables=(full(1, range(6)), full(2, range(10, 15)), full(3, range(20, 25))),
        seats_per_table=8,
    )
    plan = balance(field, Random(0))
    assert plan.broken == (3,)
    assert sizes(apply(field, plan)) == [8, 8]


def test_several_tables_break_at_once_and_their_players_move_once() -> None:
    field = FieldState(
        tables=(full(1, range(9)), full(2, range(10, 19)), full(3, [20]), full(4, [30])),
        seats_per_table=10,
    )
    plan = balance(field, Random(0))
    assert plan.broken == (3, 4)
    assert sorted((m.player, m.to_table) for m in plan.moves) in (
        [(20, 1), (30, 2)],
        [(20, 2), (30, 1)],
    )


def test_a_broken_tables_players_go_to_the_shortest_tables_first() -> None:
    field = FieldState(
        tables=(
            full(1, range(9)),
            full(2, range(10, 16)),
            full(3, range(20, 28)),
            full(4, [30, 31]),
        ),
        seats_per_table=10,
    )
    plan = balance(field, Random(5))
    assert plan.broken == (4,)
    assert [m.to_table for m in plan.moves] == [2, 2]
    assert sizes(apply(field, plan)) == [9, 8, 8]


def test_a_table_mid_hand_breaks_at_its_hand_end() -> None:
    tables = [full(1, range(7)), full(2, range(10, 17)), full(3, range(20, 26), between=False)]
    mid_hand = FieldState(tables=tuple(tables), seats_per_table=10)
    assert balance(mid_hand, Random(0)).moves == ()
    tables[2] = full(3, range(20, 26))
    assert balance(FieldState(tables=tuple(tables), seats_per_table=10), Random(0)).broken == (3,)


def test_a_broken_tables_players_join_tables_mid_hand_too() -> None:
    field = FieldState(
        tables=(full(1, range(7), between=False), full(2, range(10, 17)), full(3, range(20, 26))),
        seats_per_table=10,
    )
    assert sizes(apply(field, balance(field, Random(1)))) == [10, 10]


def test_no_table_is_balanced_while_a_break_waits_for_a_hand_to_end() -> None:
    field = FieldState(
        tables=(full(1, range(10)), full(2, range(10, 15)), full(3, range(20, 24), between=False)),
        seats_per_table=10,
    )
    plan = balance(field, Random(0))
    assert plan.moves == () and plan.broken == ()


# --- balancing --------------------------------------------------------------------------


def test_the_player_due_the_big_blind_moves_to_the_worst_position_never_the_small_blind() -> None:
    # Table 1: button was at 2, so 3 deals, 4 posts the small blind, 5 the big blind.
    # Table 2: button was at 1, so 3 deals and 5 posts the small blind; a player in seat 6
    # posts the big blind next hand (in 2 they would deal, in 4 post the small blind).
    field = FieldState(
        tables=(
            full(1, [11, 12, 13, 14, 15, 16], button=2),
            table(2, {1: 21, 3: 23, 5: 25, 7: 27}, button=1),
        ),
        seats_per_table=9,
    )
    plan = balance(field, Random(0))
    assert plan.moves == (Move(player=15, from_table=1, from_seat=5, to_table=2, to_seat=6),)
    after = apply(field, plan).tables[1]
    assert blinds(after.seats, after.button) == (5, 6)


def test_a_moved_player_posts_the_big_blind_as_soon_as_a_free_seat_allows() -> None:
    # Table 2's next hand: 1 deals, 2 small, 3 big; seat 4 gives the big blind in two
    # hands, seat 6 (after 5) in three.
    field = FieldState(
        tables=(full(1, range(10, 16)), table(2, {1: 21, 2: 22, 3: 23, 5: 25}, button=6)),
        seats_per_table=6,
    )
    (move,) = balance(field, Random(0)).moves
    assert (move.to_table, move.to_seat) == (2, 4)


def test_a_table_of_one_player_is_balanced_like_any_short_table() -> None:
    # Seat 2 would take the button (heads-up, the small blind); seats 1 and 4 the big blind.
    field = FieldState(
        tables=(full(1, [11, 12, 13, 14], button=1), table(2, {3: 23}, button=1)),
        seats_per_table=4,
    )
    (move,) = balance(field, Random(0)).moves
    assert (move.player, move.to_table, move.to_seat) == (14, 2, 1)
    after = apply(field, Plan(moves=(move,))).tables[1]
    assert blinds(after.seats, after.button) == (3, 1)


def test_players_moved_to_one_table_by_one_plan_leave_the_small_blind_to_others() -> None:
    # Table 2 (button was at 6): the first mover joins the player of seat 3 heads-up on
    # the big blind, seat 4; the next would post the big blind soonest in seat 5, but that
    # puts the first on the small blind: seat 1 (the button) leaves it to the player of 3.
    field = FieldState(
        tables=(full(1, range(11, 17), button=6), table(2, {3: 23}, button=6)),
        seats_per_table=6,
    )
    plan = balance(field, Random(0))
    assert [(m.to_table, m.to_seat) for m in plan.moves] == [(2, 4), (2, 1)]
    after = apply(field, plan).tables[1]
    assert blinds(after.seats, after.button)[0] == 3


def test_of_equal_tables_the_lowest_numbered_fullest_gives_to_the_lowest_numbered_shortest() -> (
    None
):
    tables = [
        full(1, range(8)),
        full(2, range(10, 18)),
        full(3, range(20, 26)),
        full(4, range(30, 36)),
    ]
    plan = balance(FieldState(tables=tuple(tables), seats_per_table=9), Random(0))
    assert [(m.from_table, m.to_table) for m in plan.moves] == [(1, 3), (2, 4)]


def test_a_table_mid_hand_neither_gives_nor_takes_players() -> None:
    giver, taker = full(1, range(8)), full(2, range(10, 16))
    for tables in [
        (full(1, range(8), between=False), taker),
        (giver, full(2, range(10, 16), between=False)),
    ]:
        assert balance(FieldState(tables=tables, seats_per_table=9), Random(0)) == Plan()
    assert len(balance(FieldState(tables=(giver, taker), seats_per_table=9), Random(0)).moves) == 1


def test_only_a_fullest_table_gives_and_only_a_shortest_takes() -> None:
    # Table 1 (the fullest) is mid-hand: table 2, one short of it, does not give instead,
    # and table 3 is not given to while table 4 (the shortest) is mid-hand.
    field = FieldState(
        tables=(
            full(1, range(9), between=False),
            full(2, range(10, 18)),
            full(3, range(20, 27)),
            full(4, range(30, 36), between=False),
        ),
        seats_per_table=9,
    )
    assert balance(field, Random(0)).moves == ()


def test_a_table_three_short_of_the_fullest_waits() -> None:
    busy = full(1, range(9), between=False)
    plan = balance(FieldState(tables=(busy, full(2, range(10, 16))), seats_per_table=9), Random(0))
    assert plan.moves == () and plan.waiting == frozenset({2})
    two_short = FieldState(tables=(busy, full(2, range(10, 17))), seats_per_table=9)
    assert balance(two_short, Random(0)).waiting == frozenset()


def test_a_waiting_table_is_balanced_when_the_fullest_ends_its_hand() -> None:
    field = FieldState(tables=(full(1, range(9)), full(2, range(10, 16))), seats_per_table=9)
    plan = balance(field, Random(0))
    assert [(m.from_table, m.to_table) for m in plan.moves] == [(1, 2)]
    assert plan.waiting == frozenset()


# --- the final table --------------------------------------------------------------------


def test_the_final_table_forms_when_the_players_fit_on_one_table_with_seats_drawn_anew() -> None:
    field = FieldState(
        tables=(full(1, range(5), button=3), full(2, range(10, 14), button=2)), seats_per_table=9
    )
    plan = balance(field, Random(4))
    assert plan.final_table and plan.broken == (2,)
    assert sorted(m.player for m in plan.moves) == [*range(5), *range(10, 14)]
    (final,) = apply(field, plan).tables
    assert final.number == 1 and final.button is None
    assert sorted(final.seats.values()) == [*range(5), *range(10, 14)]
    again = apply(field, balance(field, Random(4))).tables[0]
    other = apply(field, balance(field, Random(5))).tables[0]
    assert again.seats == final.seats != other.seats


def test_the_final_table_waits_for_every_table_to_end_its_hand() -> None:
    field = FieldState(
        tables=(full(1, range(5), between=False), full(2, range(10, 14))), seats_per_table=9
    )
    plan = balance(field, Random(0))
    assert plan.moves == () and not plan.final_table and plan.waiting == frozenset({2})


# --- hand-for-hand ----------------------------------------------------------------------


def test_hand_for_hand_deals_every_table_once_then_waits_for_all() -> None:
    tables = [1, 2, 3]
    assert hand_for_hand_may_deal(tables=tables, finished=[]) == {1, 2, 3}
    assert hand_for_hand_may_deal(tables=tables, finished=[2]) == {1, 3}
    assert hand_for_hand_may_deal(tables=tables, finished=[1, 2]) == {3}
    assert hand_for_hand_may_deal(tables=tables, finished=[1, 2, 3]) == {1, 2, 3}
    with pytest.raises(SeatingError):
        hand_for_hand_may_deal(tables=tables, finished=[4])


# --- apply ------------------------------------------------------------------------------


def test_applying_an_empty_plan_returns_the_same_field() -> None:
    field = seat_draw(players=range(30), seats_per_table=9, rng=Random(0))
    assert apply(field, balance(field, Random(0))) is field


@pytest.mark.parametrize(
    "move",
    [
        Move(player=1, from_table=1, from_seat=1, to_table=2, to_seat=2),  # not player 1's seat
        Move(player=0, from_table=1, from_seat=1, to_table=2, to_seat=1),  # seat taken
        Move(player=0, from_table=1, from_seat=1, to_table=3, to_seat=5),  # no table 3
        Move(player=0, from_table=1, from_seat=1, to_table=2, to_seat=10),  # no seat 10
    ],
)
def test_a_plan_that_does_not_fit_the_field_is_refused(move: Move) -> None:
    field = FieldState(tables=(full(1, range(5)), full(2, range(10, 13))), seats_per_table=9)
    with pytest.raises(SeatingError) as err:
        apply(field, Plan(moves=(move,)))
    assert err.value.code == "invalid_plan"


def test_a_broken_table_must_be_left_empty() -> None:
    field = FieldState(tables=(full(1, range(5)), full(2, range(10, 13))), seats_per_table=9)
    with pytest.raises(SeatingError):
        apply(field, Plan(broken=(2,)))


# --- properties over random fields ------------------------------------------------------


def check_plan(field: FieldState, plan: Plan) -> None:
    """Every move of ``plan``, made one after the other, obeys the rules: breaks only of
    tables between hands into tables that stay; balancing from a fullest table between
    hands (its next big blind) to a shortest between hands, off the small blind whenever
    a free seat allows, on the next big blind when it is the first to join and a seat allows."""
    by_number = {t.number: t for t in field.tables}
    seats = {t.number: dict(t.seats) for t in field.tables}
    broken = set(plan.broken)
    assert all(by_number[b].between_hands for b in broken)
    if plan.final_table:
        assert all(t.between_hands for t in field.tables)
        assert len({m.to_table for m in plan.moves}) == 1 and len(broken) == len(field.tables) - 1
        return
    staying = [n for n in by_number if n not in broken]
    joined: set[int] = set()
    for m in plan.moves:
        assert seats[m.from_table][m.from_seat] == m.player
        assert m.to_table not in broken and m.to_seat not in seats[m.to_table]
        if m.from_table not in broken:
            counts = {n: len(seats[n]) for n in staying}
            high, low = max(counts.values()), min(counts.values())
            assert counts[m.from_table] == high and counts[m.to_table] == low and high - low >= 2
            assert by_number[m.from_table].between_hands and by_number[m.to_table].between_hands
            giver, taker = by_number[m.from_table], by_number[m.to_table]
            assert blinds(seats[m.from_table], giver.button)[1] == m.from_seat
            outcomes = {
                seat: blinds([*seats[m.to_table], seat], taker.button)
                for seat in range(1, field.seats_per_table + 1)
                if seat not in seats[m.to_table] and len(seats[m.to_table]) >= 1
            }
            if outcomes and any(small != seat for seat, (small, _) in outcomes.items()):
                assert outcomes[m.to_seat][0] != m.to_seat
            if m.to_table not in joined and any(big == s for s, (_, big) in outcomes.items()):
                assert outcomes[m.to_seat][1] == m.to_seat
            joined.add(m.to_table)
        del seats[m.from_table][m.from_seat]
        seats[m.to_table][m.to_seat] = m.player


def check_field(field: FieldState, alive: set[int], plan: Plan) -> None:
    seated = [p for t in field.tables for p in t.seats.values()]
    assert len(seated) == len(set(seated)) and set(seated) == alive
    assert not set(plan.broken) & {t.number for t in field.tables}
    assert all(1 <= s <= field.seats_per_table for t in field.tables for s in t.seats)


def bust_and_flag(field: FieldState, alive: set[int], rnd: Random) -> FieldState:
    """Busts some players (two stay at least) and sets each table mid-hand or not."""
    rate = rnd.choice([0.0, 0.01, 0.05, 0.2, 0.5])
    out = {p for p in alive if rnd.random() < rate}
    if len(alive - out) < 2:
        out = set()
    alive -= out
    tables = tuple(
        TableState(
            number=t.number,
            seats={s: p for s, p in t.seats.items() if p not in out},
            button=t.button,
            between_hands=rnd.random() < 0.6,
        )
        for t in field.tables
    )
    return FieldState(tables=tables, seats_per_table=field.seats_per_table)


def step(field: FieldState, alive: set[int], rnd: Random) -> tuple[FieldState, Plan]:
    plan = balance(field, rnd)
    check_plan(field, plan)
    after = apply(field, plan)
    check_field(after, alive, plan)
    return after, plan


def all_between_hands(field: FieldState) -> FieldState:
    tables = tuple(
        TableState(number=t.number, seats=t.seats, button=t.button) for t in field.tables
    )
    return FieldState(tables=tables, seats_per_table=field.seats_per_table)


players_strategy = st.one_of(st.integers(2, 60), st.integers(2, 10_000))


@given(
    players=players_strategy,
    seats_per_table=st.integers(2, 10),
    steps=st.integers(1, 5),
    rnd=st.randoms(use_true_random=False),
)
def test_random_fields_keep_every_player_seated_once_and_balance_in_the_fewest_moves(
    players: int, seats_per_table: int, steps: int, rnd: Random
) -> None:
    field = seat_draw(players=range(players), seats_per_table=seats_per_table, rng=rnd)
    alive = set(range(players))
    check_field(field, alive, Plan())
    assert max(sizes(field)) - min(sizes(field)) <= 1
    for _ in range(steps):
        field = bust_and_flag(field, alive, rnd)
        for _ in range(3):
            field, plan = step(field, alive, rnd)
        assert (plan.moves, plan.broken) == ((), ())
        if len(field.tables) > 1 and len(alive) <= seats_per_table:  # the final table is due
            expected_waiting = {t.number for t in field.tables if t.between_hands}
        else:
            expected_waiting = {
                t.number for t in field.tables if len(t.seats) <= max(sizes(field)) - 3
            }
        assert plan.waiting == expected_waiting
    field = all_between_hands(field)
    expected = least_moves(sizes(field), seats_per_table)
    field, plan = step(field, alive, rnd)
    assert len(plan.moves) == expected
    assert max(sizes(field)) - min(sizes(field)) <= 1
    assert len(field.tables) == max(1, -(-len(alive) // seats_per_table))
    assert balance(field, rnd) == Plan()
