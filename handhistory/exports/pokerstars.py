"""PokerStars text export: the layout hand trackers and replayers import.

There is no published specification; the layout follows real files (see
docs/architecture.md, "Hand-history exports"). Amounts are written in the currency's major
units (minor units / 100, trailing zeros dropped, no thousands separators) with its symbol;
play chips (``CHIPS``) are written as whole chips without a symbol. ``raises X to Y``: X is
the increment over the street's highest bet, Y the new street total. Only the viewer's own
hole cards get a ``Dealt to`` line (staff: everyone's); folded cards never appear.

A tournament hand has PokerStars' tournament header: ``Tournament #<id>, <buy-in> <game> -
Level <roman> (<small>/<big>)``, the buy-in as the prize part, the bounty (when there is
one) and the fee, each with the currency's symbol, then its code (``€8+€2+€1 EUR``;
``Freeroll`` when nothing is paid; play chips bare, without a code); the table is
``'<tournament id> <table number>'``; every amount is in tournament chips, bare.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from datetime import UTC
from itertools import combinations
from zoneinfo import ZoneInfo

from handhistory.exports.records import HandRecord, Viewer
from handhistory.exports.tournaments import TournamentFacts
from poker.engine.cards import card_rank, format_card
from poker.engine.config import blind_seats
from poker.engine.evaluator import evaluate, evaluate_short_deck
from poker.engine.events import (
    UNKNOWN_CARD,
    AntePosted,
    BetPlaced,
    BlindPosted,
    BoardDealt,
    CardsMucked,
    CardsShown,
    HandStarted,
    HoleCardsDealt,
    PlayerCalled,
    PlayerChecked,
    PlayerFolded,
    PotAwarded,
    RaisedTo,
    RakeTaken,
    UncalledBetReturned,
)
from poker.engine.variants import Variant, get_variant
from wallet.amounts import PLAY_MONEY, SYMBOLS, currency_decimals

GAMES = {
    "NT": "Hold'em No Limit",
    "FT": "Hold'em Limit",
    "PO": "Omaha Pot Limit",
    "NS": "6+ Hold'em No Limit",
}
STREETS = ("FLOP", "TURN", "RIVER")
STREET_NAMES = ("before Flop", "on the Flop", "on the Turn", "on the River")
BLIND_ORDER = {"small blind": 1, "big blind": 2, "straddle": 3}
EASTERN = ZoneInfo("America/New_York")
#: Real files separate hands by three blank lines (pokerkit needs at least two).
SEPARATOR = "\n\n\n"


Money = Callable[[int], str]


def _money(currency: str) -> Money:
    """How amounts of ``currency`` (integer minor units) are written: its symbol and
    decimals as ``wallet.amounts`` states them, in PokerStars' own way (no separators,
    "$2" for whole units)."""
    if currency == PLAY_MONEY:
        return str
    symbol = SYMBOLS.get(currency, "")
    scale = 10 ** currency_decimals(currency)

    def fmt(minor: int) -> str:
        # Integer arithmetic: what f"{Decimal(minor) / 100:.2f}" writes, several times faster.
        units, cents = divmod(abs(minor), scale)
        sign = "-" if minor < 0 else ""
        return f"{symbol}{sign}{units}" if not cents else f"{symbol}{sign}{units}.{cents:02d}"

    return fmt


#: Each card's text (the exports write many).
_CARD_TEXT = {c: format_card(c) for c in range(52)}


def _cards(cards: Sequence[int]) -> str:
    return " ".join([_CARD_TEXT.get(c) or format_card(c) for c in cards])


def _positions(n: int) -> dict[int, str]:
    """Engine player index -> summary position label (the button is last)."""
    seats = blind_seats(n)
    labels = {seats.button: "(button)"}
    for index, name in ((seats.small, "(small blind)"), (seats.big, "(big blind)")):
        labels[index] = f"{labels[index]} {name}" if index in labels else name
    return labels


#: Rank names as PokerStars writes them (card rank 0 = deuce ... 12 = ace), one and many.
RANK_WORDS = (
    "Deuce",
    "Three",
    "Four",
    "Five",
    "Six",
    "Seven",
    "Eight",
    "Nine",
    "Ten",
    "Jack",
    "Queen",
    "King",
    "Ace",
)
RANK_PLURALS = (
    "Deuces",
    "Threes",
    "Fours",
    "Fives",
    "Sixes",
    "Sevens",
    "Eights",
    "Nines",
    "Tens",
    "Jacks",
    "Queens",
    "Kings",
    "Aces",
)
_ACE = 12


def _fives(variant: Variant, hole: Sequence[int], board: Sequence[int]) -> list[tuple[int, ...]]:
    """Every five-card hand the variant's rules allow: Omaha takes exactly two hole cards
    and three of the board, hold'em any five."""
    if variant.code == "PO":
        return [h + b for h in combinations(hole, 2) for b in combinations(board, 3)]
    return list(combinations((*hole, *board), 5))


def _by_count(cards: Sequence[int]) -> list[int]:
    """The distinct ranks of ``cards``, the most repeated first, then the highest."""
    counts = Counter(card_rank(c) for c in cards)
    return sorted(counts, key=lambda r: (counts[r], r), reverse=True)


def _straight_ends(ranks: Sequence[int]) -> tuple[int, int]:
    """The low and high card of a straight; the ace plays low when the rest are low
    (A-2-3-4-5, and A-6-7-8-9 with a short deck)."""
    if _ACE in ranks and max(r for r in ranks if r != _ACE) < 11:
        return _ACE, max(r for r in ranks if r != _ACE)
    return min(ranks), max(ranks)


def _pair_first(two: Sequence[int]) -> tuple[bool, list[int]]:
    high, low = sorted(map(card_rank, two), reverse=True)
    return high == low, [high, low]


def hand_words(variant: Variant, hole: Sequence[int], board: Sequence[int]) -> str:
    """The best hand of ``hole`` with ``board``, named as PokerStars names it
    ("two pair, Kings and Fives", "a straight, Nine to King", "a Royal Flush").

    Before the flop only the hole cards count (by pairs; Omaha two of them).
    """
    if len(board) >= 3:
        # Values of five cards on the variant's scale (Omaha ranks hands as hold'em does).
        value = evaluate_short_deck if variant.code == "NS" else evaluate
        cards: Sequence[int] = max(_fives(variant, hole, board), key=value)
        category = variant.hand_name(value(cards))
    else:
        cards = max(combinations(hole, 2), key=_pair_first)
        category = "pair" if len(_by_count(cards)) == 1 else "high_card"
    ranks = _by_count(cards)
    words = {
        "first": RANK_WORDS[ranks[0]],
        "firsts": RANK_PLURALS[ranks[0]],
        "seconds": RANK_PLURALS[ranks[1]] if len(ranks) > 1 else "",
    }
    if category in ("straight", "straight_flush"):
        low, high = _straight_ends(ranks)
        if category == "straight_flush" and high == _ACE:
            return "a Royal Flush"
        words.update(low=RANK_WORDS[low], high=RANK_WORDS[high])
    return _HAND_WORDS[category].format(**words)


#: How PokerStars names each hand category: ranks by how many of them the hand holds
#: (``first``/``firsts``: the most, ``seconds``: the next), a straight by its ends; the
#: ace-high straight flush is "a Royal Flush".
_HAND_WORDS = {
    "high_card": "high card {first}",
    "pair": "a pair of {firsts}",
    "two_pair": "two pair, {firsts} and {seconds}",
    "three_of_a_kind": "three of a kind, {firsts}",
    "straight": "a straight, {low} to {high}",
    "flush": "a flush, {first} high",
    "full_house": "a full house, {firsts} full of {seconds}",
    "four_of_a_kind": "four of a kind, {firsts}",
    "straight_flush": "a straight flush, {low} to {high}",
}


def _pot_name(pot: int, pot_count: int) -> str:
    if pot_count == 1:
        return "pot"
    return "main pot" if pot == 0 else f"side pot-{pot}"


def _blinds(start: HandStarted, money: Money) -> str:
    if start.variant == "FT":
        return f"{money(start.small_bet)}/{money(start.big_bet)}"
    blinds = sorted(b for b in start.blinds_or_straddles if b)
    small = blinds[0] if len(blinds) > 1 else 0
    return f"{money(small)}/{money(start.min_bet)}"


_ROMAN = (
    (1000, "M"),
    (900, "CM"),
    (500, "D"),
    (400, "CD"),
    (100, "C"),
    (90, "XC"),
    (50, "L"),
    (40, "XL"),
    (10, "X"),
    (9, "IX"),
    (5, "V"),
    (4, "IV"),
    (1, "I"),
)


def roman(number: int) -> str:
    """``number`` (from 1) in Roman numerals, as PokerStars numbers levels (``XIV``)."""
    out = []
    for value, letters in _ROMAN:
        count, number = divmod(number, value)
        out.append(letters * count)
    return "".join(out)


def _buy_in(facts: TournamentFacts) -> str:
    """What a player paid, as PokerStars writes it: prize part + bounty + fee."""
    if not facts.buy_in and not facts.fee:
        return "Freeroll"
    money = _money(facts.currency)
    parts = (
        (facts.prize_buy_in, facts.bounty, facts.fee) if facts.bounty else (facts.buy_in, facts.fee)
    )
    text = "+".join(map(money, parts))
    return text if facts.currency == PLAY_MONEY else f"{text} {facts.currency}"


def _game(record: HandRecord, money: Money) -> str:
    """The header between the hand id and the time: the game and stakes of a cash hand;
    the tournament, its buy-in, the game and the level of a tournament hand."""
    start = record.started
    game = GAMES[start.variant]
    blinds = _blinds(start, money)
    tournament = record.tournament
    if tournament is None:
        stakes = blinds if record.currency == "CHIPS" else f"{blinds} {record.currency}"
        return f" {game} ({stakes})"
    facts = tournament.facts
    level = f"Level {roman(tournament.level)} " if tournament.level else ""
    return f"Tournament #{facts.tournament_id}, {_buy_in(facts)} {game} - {level}({blinds})"


def _table(record: HandRecord) -> str:
    """The table's name: a tournament table is named by the tournament and its number."""
    tournament = record.tournament
    if tournament is None:
        return record.table_name
    return f"{tournament.facts.tournament_id} {tournament.table_number}"


def hand_text(record: HandRecord, viewer: Viewer) -> str:
    """One hand in PokerStars text, as ``viewer`` may see it."""
    events = record.seen_by(viewer)
    hero = record.player_index(viewer)
    start = record.started
    n = len(record.seats)
    names = record.usernames
    # Tournament chips are not money: bare numbers, whatever the table's currency.
    money = _money(PLAY_MONEY if record.tournament else record.currency)
    variant = get_variant(start.variant)
    when = record.started_at.astimezone(UTC)
    eastern = when.astimezone(EASTERN)
    out = [
        f"PokerStars Hand #{record.hand_id}: {_game(record, money)}"
        f" - {when:%Y/%m/%d %H:%M:%S} UTC [{eastern:%Y/%m/%d %H:%M:%S} ET]",
        f"Table '{_table(record)}' {record.max_seats}-max Seat #{record.button_seat} is the button",
    ]
    order = sorted(range(n), key=lambda p: record.seats[p])
    for p in order:
        stack = money(start.starting_stacks[p])
        out.append(f"Seat {record.seats[p]}: {names[p]} ({stack} in chips)")
    pot_count = len({e.pot for e in events if isinstance(e, PotAwarded)})
    stacks = list(start.starting_stacks)
    bets = [0] * n
    street = 0
    board: list[int] = []
    folded_on: dict[int, int] = {}
    shown: dict[int, tuple[int, ...]] = {}
    won = [0] * n
    pots = [0] * pot_count
    rakes: tuple[int, ...] = ()
    rake = 0
    posts: list[tuple[int, str]] = []
    shows: list[tuple[int, int]] = []

    def put(p: int, chips: int) -> str:
        stacks[p] -= chips
        bets[p] += chips
        return " and is all-in" if stacks[p] == 0 else ""

    headed: set[str] = set()

    def header(line: str) -> None:
        if line not in headed:
            headed.add(line)
            out.append(line)

    # The most frequent events first: every event of every hand passes this chain.
    for event in events[1:]:
        if isinstance(event, PlayerFolded):
            folded_on[event.player] = street
            out.append(f"{names[event.player]}: folds")
        elif isinstance(event, PlayerCalled):
            allin = put(event.player, event.amount)
            out.append(f"{names[event.player]}: calls {money(event.amount)}{allin}")
        elif isinstance(event, PlayerChecked):
            out.append(f"{names[event.player]}: checks")
        elif isinstance(event, HoleCardsDealt):
            if posts:  # antes first, then the small blind (heads-up the button posts it first)
                out.extend(line for _, line in sorted(posts, key=lambda kv: kv[0]))
                posts.clear()
            header("*** HOLE CARDS ***")
            # Real files deal to the hero only (staff: everyone); shown cards come at showdown.
            if (viewer.full or event.player == hero) and UNKNOWN_CARD not in event.cards:
                out.append(f"Dealt to {names[event.player]} [{_cards(event.cards)}]")
        elif isinstance(event, RaisedTo):
            p, top = event.player, max(bets)
            allin = put(p, event.amount - bets[p])
            by, to = money(event.amount - top), money(event.amount)
            out.append(f"{names[p]}: raises {by} to {to}{allin}")
        elif isinstance(event, BetPlaced):
            allin = put(event.player, event.amount - bets[event.player])
            out.append(f"{names[event.player]}: bets {money(event.amount)}{allin}")
        elif isinstance(event, BlindPosted):
            p = event.player
            kind = _blind_kind(p, n)
            line = f"{names[p]}: posts {kind} {money(event.amount)}{put(p, event.amount)}"
            posts.append((BLIND_ORDER[kind], line))
        elif isinstance(event, BoardDealt):
            street = event.street
            bets = [0] * n
            before = f" [{_cards(board)}]" if board else ""
            board.extend(event.cards)
            out.append(f"*** {STREETS[street - 1]} ***{before} [{_cards(event.cards)}]")
        elif isinstance(event, PotAwarded):
            pots[event.pot] += sum(event.amounts) + (rakes[event.pot] if rakes else 0)
            where = _pot_name(event.pot, pot_count)
            for w, amount in zip(event.winners, event.amounts, strict=True):
                won[w] += amount
                out.append(f"{names[w]} collected {money(amount)} from {where}")
        elif isinstance(event, UncalledBetReturned):
            put(event.player, -event.amount)
            out.append(f"Uncalled bet ({money(event.amount)}) returned to {names[event.player]}")
        elif isinstance(event, CardsMucked):
            header("*** SHOW DOWN ***")
            out.append(f"{names[event.player]}: mucks hand")
        elif isinstance(event, CardsShown):
            header("*** SHOW DOWN ***")
            shown[event.player] = event.cards
            # Named once the board is complete (all-in players show before the run-out).
            shows.append((len(out), event.player))
            out.append("")
        elif isinstance(event, AntePosted):
            # An ante is dead money: it is not part of the street's bets.
            stacks[event.player] -= event.amount
            allin = " and is all-in" if stacks[event.player] == 0 else ""
            posts.append((0, f"{names[event.player]}: posts the ante {money(event.amount)}{allin}"))
        elif isinstance(event, RakeTaken):
            rakes, rake = event.amounts, event.amount
    # Each shown hand named once (the showdown and the summary both name it).
    named = {p: hand_words(variant, cards, board) for p, cards in shown.items()}
    for at, p in shows:
        out[at] = f"{names[p]}: shows [{_cards(shown[p])}] ({named[p]})"
    out.append("*** SUMMARY ***")
    split = "".join(
        f" {_pot_name(k, pot_count).capitalize()} {money(amount)}." for k, amount in enumerate(pots)
    )
    out.append(f"Total pot {money(sum(pots))}{split if pot_count > 1 else ''} | Rake {money(rake)}")
    if board:
        out.append(f"Board [{_cards(board)}]")
    positions = _positions(n)
    for p in order:
        tag = f" {positions[p]}" if p in positions else ""
        out.append(
            f"Seat {record.seats[p]}: {names[p]}{tag} {_outcome(p, folded_on, shown, named, won, money)}"
        )
    return "\n".join(out) + "\n"


def _blind_kind(player: int, n: int) -> str:
    seats = blind_seats(n)
    if player == seats.small:
        return "small blind"
    return "big blind" if player == seats.big else "straddle"


def _outcome(
    p: int,
    folded_on: dict[int, int],
    shown: dict[int, tuple[int, ...]],
    named: dict[int, str],
    won: Sequence[int],
    money: Money,
) -> str:
    if p in folded_on:
        return f"folded {STREET_NAMES[folded_on[p]]}"
    if p in shown:
        cards, what = _cards(shown[p]), named[p]
        if won[p]:
            return f"showed [{cards}] and won ({money(won[p])}) with {what}"
        return f"showed [{cards}] and lost with {what}"
    if won[p]:
        return f"collected ({money(won[p])})"
    return "mucked"
