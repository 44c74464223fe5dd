"""Seating and balancing: the initial draw, breaking tables, moving players, the final
table and hand-for-hand (the TDA's rules and PokerStars' published ones, as below).

The director calls ``balance`` after every hand of every table with the whole field
(``FieldState``: each table's seats, the button of its last hand, whether it is between
hands) and carries out the ``Plan`` it returns; ``apply`` is the same plan on the state.
Seats are numbered 1..``seats_per_table``; the button moves each hand to the next
occupied seat after the last button; the next two occupied seats post the small and the
big blind (heads-up the button posts the small blind: ``poker.engine.config.blind_seats``).

**Initial seating** (``seat_draw``): a random draw of the players into
ceil(players / seats per table) tables whose sizes differ by at most 1, at random seats.

**Breaking**: as soon as the players fit in one fewer table, the table with the fewest
players breaks (ties: the highest table number, the table opened last, as rooms close
the outer tables first); when they fit in several fewer tables, that many break at once.
Only a table between hands breaks; one mid-hand breaks at its hand end, and until then
no table is balanced (the break moves the players anyway, and a move before it could
be undone by it). Its players are drawn at random into the free seats of the tables
that stay, one at a time into the table with the fewest players (ties: the lowest
number), so sizes stay within 1 when they were; a table mid-hand takes them too (they
are dealt in from its next hand).

**Final table**: when the players fit in one table, every other table breaks into the
table with the most players (ties: the lowest number) and every seat of the final table
is drawn anew, the button with them (``apply`` sets it to ``None``: the first hand's
button is the first occupied seat). This needs every table between hands: until then
the tables between hands wait for the others.

**Balancing**: when the fullest table has 2 or more players more than the shortest,
the fullest gives the player due the big blind in its next hand to the shortest, into
the worst position: the seat where they post the big blind soonest (next hand when a
seat allows it), never one where they post the small blind in its next hand (nor one
that puts a player moved in by the same plan on the small blind) when another seat
avoids it. Ties: of the fullest tables the lowest number gives, of the shortest the
lowest number takes; among equal seats the lowest number. Only tables between hands
give or take (a table mid-hand is balanced at its hand end), and only a fullest gives
to a shortest: each move then brings the field one move closer to balanced, so the
number of moves is the least that balances it. A table of one player is balanced like
any short table.

**Waiting**: a table 3 or more players shorter than the fullest deals no new hand until
it is balanced (``Plan.waiting``).

**Hand-for-hand** (``hand_for_hand_may_deal``): on the money bubble every table deals one
hand, and the tables that finished it wait until all have.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from random import Random
from types import MappingProxyType
from typing import NoReturn

from tournaments.rules.errors import SeatingError

#: The most seats a table can have: the most players a hand can be dealt to.
MAX_SEATS_PER_TABLE = 23

#: A table this many players (or more) shorter than the fullest waits.
WAIT_GAP = 3


@dataclass(frozen=True, kw_only=True)
class TableState:
    """One table: ``seats`` maps seat number -> player id; ``button`` is the seat of the
    last hand's button (``None`` before the first hand), which may be empty now."""

    number: int
    seats: Mapping[int, int]
    button: int | None = None
    between_hands: bool = True

    def __post_init__(self) -> None:
        # A private read-only copy: a state cannot change under the rules' feet.
        object.__setattr__(self, "seats", MappingProxyType(dict(self.seats)))


@dataclass(frozen=True, kw_only=True)
class FieldState:
    """Every table of the tournament (kept in table-number order) and its seat count.

    Checked when built: one table or more, distinct table numbers, seats and button within 1..
    ``seats_per_table``, no player at two seats."""

    tables: tuple[TableState, ...]
    seats_per_table: int
    #: Each table's player count, in table order: read by every call of ``balance``.
    sizes: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        tables = tuple(sorted(self.tables, key=lambda t: t.number))
        object.__setattr__(self, "tables", tables)
        object.__setattr__(self, "sizes", tuple(len(t.seats) for t in tables))
        spt = self.seats_per_table
        if not 2 <= spt <= MAX_SEATS_PER_TABLE:
            _invalid(f"seats per table {spt}: 2 to {MAX_SEATS_PER_TABLE}")
        numbers = [t.number for t in tables]
        if not numbers or len(set(numbers)) != len(numbers):
            _invalid(f"table numbers {numbers}: one table or more, each number once")
        players = 0
        seen: set[int] = set()
        for t in tables:
            seats = t.seats
            players += len(seats)
            seen.update(seats.values())
            if seats and (min(seats) < 1 or max(seats) > spt):
                _invalid(f"table {t.number}: seats {sorted(seats)} outside 1..{spt}")
            if t.button is not None and not 1 <= t.button <= spt:
                _invalid(f"table {t.number}: button seat {t.button} outside 1..{spt}")
        if len(seen) != players:
            _invalid(f"{players} seats taken by {len(seen)} players: a player sits once")


@dataclass(frozen=True, kw_only=True)
class Move:
    """``player`` leaves ``from_seat`` of ``from_table`` for ``to_seat`` of ``to_table``."""

    player: int
    from_table: int
    from_seat: int
    to_table: int
    to_seat: int


@dataclass(frozen=True, kw_only=True)
class Plan:
    """What the director does now, in order: the moves (break moves first), the tables
    broken (empty once the moves are made), the tables that deal no new hand, and whether
    this plan forms the final table (its seats drawn anew, its button reset)."""

    moves: tuple[Move, ...] = ()
    broken: tuple[int, ...] = ()
    waiting: frozenset[int] = field(default_factory=frozenset)
    final_table: bool = False


NOTHING = Plan()


def _invalid(message: str) -> NoReturn:
    raise SeatingError(code="invalid_field", message=message)


def seat_draw(*, players: Sequence[int], seats_per_table: int, rng: Random) -> FieldState:
    """The initial seating: ``players`` drawn at random into ceil(n / seats_per_table)
    tables numbered from 1, the first tables one player more when they do not divide
    evenly, each player on a random seat.

    >>> field = seat_draw(players=range(25), seats_per_table=10, rng=Random(1))
    >>> [len(t.seats) for t in field.tables]
    [9, 8, 8]
    """
    if len(set(players)) != len(players) or not players:
        raise SeatingError(
            code="invalid_field", message=f"{len(players)} players: one or more, each once"
        )
    if not 2 <= seats_per_table <= MAX_SEATS_PER_TABLE:
        _invalid(f"seats per table {seats_per_table}: 2 to {MAX_SEATS_PER_TABLE}")
    drawn = list(players)
    rng.shuffle(drawn)
    count = -(-len(drawn) // seats_per_table)
    size, extra = divmod(len(drawn), count)
    tables: list[TableState] = []
    start = 0
    for number in range(1, count + 1):
        end = start + size + (number <= extra)
        seats = rng.sample(range(1, seats_per_table + 1), end - start)
        tables.append(
            TableState(number=number, seats=dict(zip(seats, drawn[start:end], strict=True)))
        )
        start = end
    return FieldState(tables=tuple(tables), seats_per_table=seats_per_table)


def next_hand_order(occupied: Iterable[int], button: int | None) -> list[int]:
    """The occupied seats in the order of the next hand, its button first (the next
    occupied seat after ``button``, the first seat when ``None``), as the dealer moves it.

    >>> next_hand_order([1, 4, 6, 9], 4)
    [6, 9, 1, 4]
    """
    seats = sorted(occupied)
    if button is None:
        return seats
    later = [s for s in seats if s > button]
    return later + seats[: len(seats) - len(later)]


def _hands_to_big_blind(index: int, players: int) -> int:
    """In how many hands the player at ``index`` of the next hand's order (button first)
    posts the big blind, if nobody busts (0: no hand with one player)."""
    if players < 2:
        return 0
    if players == 2:
        return 1 if index == 1 else 2
    return (index - 2) % players + 1


class _Work:
    """The plan being made: sizes and the seats of the tables touched, copied on write."""

    def __init__(self, field: FieldState) -> None:
        self.tables = field.tables
        self.spt = field.seats_per_table
        self.sizes = list(field.sizes)
        self.seats: dict[int, dict[int, int]] = {}
        self.moved_in: dict[int, list[int]] = {}
        self.moves: list[Move] = []

    def seats_of(self, i: int) -> dict[int, int]:
        if i not in self.seats:
            self.seats[i] = dict(self.tables[i].seats)
        return self.seats[i]

    def move(self, *, from_index: int, from_seat: int, to_index: int, to_seat: int) -> None:
        player = self.seats_of(from_index).pop(from_seat)
        self.seats_of(to_index)[to_seat] = player
        self.sizes[from_index] -= 1
        self.sizes[to_index] += 1
        self.moved_in.setdefault(to_index, []).append(player)
        self.moves.append(
            Move(
                player=player,
                from_table=self.tables[from_index].number,
                from_seat=from_seat,
                to_table=self.tables[to_index].number,
                to_seat=to_seat,
            )
        )

    def free_seats(self, i: int) -> list[int]:
        taken = self.seats_of(i)
        return [s for s in range(1, self.spt + 1) if s not in taken]

    def big_blind_seat(self, i: int) -> int:
        """The seat due the big blind in table ``i``'s next hand (two players or more)."""
        order = next_hand_order(self.seats_of(i), self.tables[i].button)
        return order[1] if len(order) == 2 else order[2]

    def worst_seat(self, i: int) -> int:
        """The free seat of table ``i`` for a player moved in: one that leaves the small
        blind of the next hand to a player not moved in by this plan when a seat can;
        then the big blind soonest (which keeps the mover off the small blind, the seat
        farthest from the big blind); then the lowest seat."""
        seats = self.seats_of(i)
        movers = set(self.moved_in.get(i, ()))
        button = self.tables[i].button
        best: tuple[bool, int, int] | None = None
        for seat in self.free_seats(i):
            order = next_hand_order([*seats, seat], button)
            index = order.index(seat)
            small = None if len(order) < 2 else order[0 if len(order) == 2 else 1]
            mover_small = small == seat or (small is not None and seats[small] in movers)
            score = (mover_small, _hands_to_big_blind(index, len(order)), seat)
            if best is None or score < best:
                best = score
        assert best is not None  # a shortest table below the fullest has a free seat
        return best[2]


def balance(field: FieldState, rng: Random) -> Plan:
    """What to do after a hand: breaks, moves and waits by the rules of this module.

    ``rng`` draws the seats of broken tables' players and of the final table. The common
    case (nothing to do) reads the sizes the field holds and copies nothing."""
    sizes = field.sizes
    spt = field.seats_per_table
    needed = max(1, -(-sum(sizes) // spt))
    if len(sizes) > needed:
        return _break(field, sizes, needed, rng)
    high, low = max(sizes), min(sizes)
    if high - low < 2:
        return NOTHING
    work = _Work(field)
    _balance(work, range(len(sizes)))
    return _plan(work, (), range(len(sizes)))


def _plan(work: _Work, broken: tuple[int, ...], remaining: Iterable[int]) -> Plan:
    """The plan of ``work``, the tables of ``remaining`` that are too short waiting."""
    sizes = {i: work.sizes[i] for i in remaining}
    high = max(sizes.values())
    waiting = frozenset(
        work.tables[i].number for i, size in sizes.items() if size <= high - WAIT_GAP
    )
    return Plan(moves=tuple(work.moves), broken=broken, waiting=waiting)


def _break(field: FieldState, sizes: Sequence[int], needed: int, rng: Random) -> Plan:
    """Breaks the ``len(sizes) - needed`` tables with the fewest players (ties: the highest
    number) that are between hands, into the tables that stay, then balances when no
    break is left pending; the final table when ``needed`` is 1."""
    tables = field.tables
    by_fewest = sorted(range(len(tables)), key=lambda i: (sizes[i], -tables[i].number))
    due = by_fewest[: len(tables) - needed]
    staying = sorted(by_fewest[len(tables) - needed :])
    if needed == 1:
        return _final_table(field, staying[0], rng)
    work = _Work(field)
    now = [i for i in due if tables[i].between_hands]
    leaving = [(i, seat) for i in sorted(now) for seat in sorted(tables[i].seats)]
    rng.shuffle(leaving)
    fewest = [(sizes[i], i) for i in staying]
    heapq.heapify(fewest)
    for i, seat in leaving:
        size, j = heapq.heappop(fewest)
        work.move(from_index=i, from_seat=seat, to_index=j, to_seat=rng.choice(work.free_seats(j)))
        heapq.heappush(fewest, (size + 1, j))
    if len(now) == len(due):
        _balance(work, staying)
    broken = set(now)
    remaining = [i for i in range(len(tables)) if i not in broken]
    return _plan(work, tuple(tables[i].number for i in sorted(now)), remaining)


def _final_table(field: FieldState, survivor: int, rng: Random) -> Plan:
    """Every table into ``survivor``, all seats drawn anew, once every table is between
    hands; until then the tables between hands wait."""
    tables = field.tables
    if not all(t.between_hands for t in tables):
        return Plan(waiting=frozenset(t.number for t in tables if t.between_hands))
    players = [(t.number, seat, player) for t in tables for seat, player in sorted(t.seats.items())]
    seats = rng.sample(range(1, field.seats_per_table + 1), len(players))
    to = tables[survivor].number
    moves = tuple(
        Move(player=player, from_table=number, from_seat=seat, to_table=to, to_seat=new)
        for (number, seat, player), new in zip(players, seats, strict=True)
    )
    broken = tuple(t.number for t in tables if t.number != to)
    return Plan(moves=moves, broken=broken, final_table=True)


def _balance(work: _Work, indices: Iterable[int]) -> None:
    """Moves players from a fullest table to a shortest, both between hands, until the
    sizes are within 1 or no such pair is between hands. Tables are bucketed by size
    (a heap of indices each, lowest number first), so each move costs O(log tables)."""
    count = [0] * (work.spt + 1)
    ready: list[list[int]] = [[] for _ in range(work.spt + 1)]
    for i in indices:
        count[work.sizes[i]] += 1
        if work.tables[i].between_hands:
            ready[work.sizes[i]].append(i)  # ascending, so already a heap
    while True:
        high = max(s for s, c in enumerate(count) if c)
        low = min(s for s, c in enumerate(count) if c)
        if high - low < 2 or not ready[high] or not ready[low]:
            return
        giver, taker = heapq.heappop(ready[high]), heapq.heappop(ready[low])
        work.move(
            from_index=giver,
            from_seat=work.big_blind_seat(giver),
            to_index=taker,
            to_seat=work.worst_seat(taker),
        )
        count[high] -= 1
        count[high - 1] += 1
        count[low] -= 1
        count[low + 1] += 1
        heapq.heappush(ready[high - 1], giver)
        heapq.heappush(ready[low + 1], taker)


def apply(field: FieldState, plan: Plan) -> FieldState:
    """The field once ``plan`` is carried out: the moves made (every mover leaves first,
    then each takes their new seat), the broken tables gone, the final table's button
    reset. An empty plan returns ``field`` itself."""
    if not plan.moves and not plan.broken:
        return field
    index = {t.number: i for i, t in enumerate(field.tables)}
    seats: dict[int, dict[int, int]] = {}

    def seats_of(number: int) -> dict[int, int]:
        if number not in index:
            raise SeatingError(code="invalid_plan", message=f"no table {number} in the field")
        return seats.setdefault(number, dict(field.tables[index[number]].seats))

    for m in plan.moves:
        if seats_of(m.from_table).get(m.from_seat) != m.player:
            raise SeatingError(
                code="invalid_plan",
                message=f"player {m.player} is not at seat {m.from_seat} of table {m.from_table}",
            )
        del seats_of(m.from_table)[m.from_seat]
    for m in plan.moves:
        taken = seats_of(m.to_table)
        if (
            m.to_table in plan.broken
            or m.to_seat in taken
            or not 1 <= m.to_seat <= field.seats_per_table
        ):
            raise SeatingError(
                code="invalid_plan",
                message=f"player {m.player} cannot take seat {m.to_seat} of table {m.to_table}",
            )
        taken[m.to_seat] = m.player
    if any(seats_of(number) for number in plan.broken):
        raise SeatingError(code="invalid_plan", message=f"broken tables {plan.broken} not empty")
    tables = []
    for t in field.tables:
        if t.number in plan.broken:
            continue
        if t.number in seats:
            button = None if plan.final_table else t.button
            t = TableState(
                number=t.number, seats=seats[t.number], button=button, between_hands=t.between_hands
            )
        tables.append(t)
    return FieldState(tables=tuple(tables), seats_per_table=field.seats_per_table)


def hand_for_hand_may_deal(*, tables: Collection[int], finished: Collection[int]) -> frozenset[int]:
    """Hand-for-hand: the tables that may deal now, given those that have finished this
    round's hand. Each table deals one hand a round: the tables yet to finish may (one
    mid-hand is dealing it), the finished wait; once all have finished, all may deal the
    next round's hand (the director starts a new round with none finished).

    >>> sorted(hand_for_hand_may_deal(tables=[1, 2, 3], finished=[2]))
    [1, 3]
    >>> sorted(hand_for_hand_may_deal(tables=[1, 2, 3], finished=[1, 2, 3]))
    [1, 2, 3]
    """
    every, done = frozenset(tables), frozenset(finished)
    if not done <= every:
        raise SeatingError(
            code="invalid_field",
            message=f"finished tables {sorted(done - every)} are not in play {sorted(every)}",
        )
    return every if done == every else every - done
