"""Running a hand at a table: who is dealt in (the lineup), the start with its forced
bets, the progress until someone present must decide, the turn's clock and time bank, the
finish (settlement, projection) and what the end of a hand does to the seats: cash out
those leaving or barred (a time-out or self-exclusion), sit out the busted.

Every function works on a command's working set (``poker.working_set.Ctx``), which the
command runner (``poker.commands.runner``) takes, writes and broadcasts; the dealer never
calls back into the runner. The decisions of the game itself are the engine's.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from core.errors import Forbidden
from handhistory.models import Hand
from handhistory.projections import project_hand, stored_payloads
from handhistory.store import SYSTEM, Actor, NewEvent
from ledger.models import Account
from poker import money, table_events, tournament_hooks
from poker.engine.betting import legal_actions
from poker.engine.config import HandConfig, RakeConfig, blind_seats, forced_by_player
from poker.engine.deck import FairDeck
from poker.engine.events import Event as EngineEvent
from poker.engine.game import act, start_hand
from poker.engine.pots import knocked_out_by
from poker.engine.privacy import public_hand_events
from poker.engine.showdown import showdown_auto
from poker.engine.state import SHOWDOWN, HandState
from poker.fairness import client_seeds_for
from poker.models import Seat, Table, Variant, new_server_seed_hex
from poker.storage import table_store
from poker.tournament_hooks import Level
from poker.working_set import Ctx, table_event, who
from wallet.restrictions import restriction_barred_from_tables


def seat_of(ctx: Ctx, player_id: int) -> Seat:
    seat = ctx.seat_of_player(player_id)
    if seat is None:
        raise Forbidden(f"You are not seated at table {ctx.table.pk}.", code="not_seated")
    return seat


def in_current_hand(ctx: Ctx, player_id: int) -> int | None:
    if ctx.hand is None or ctx.state is None or ctx.state.is_over:
        return None
    try:
        return list(ctx.hand.player_ids).index(player_id)
    except ValueError:
        return None


def append_engine(ctx: Ctx, events: list[EngineEvent], actor: Actor) -> list[dict[str, Any]]:
    """Appends the engine's events to the hand's stream and their public form to the
    broadcast; returns that public form."""
    assert ctx.hand is not None and ctx.state is not None
    if not events:
        return []
    ctx.append(
        ctx.hand.stream,
        [NewEvent(type=type(e).__name__, version=e.version, payload=e.to_dict()) for e in events],
        actor,
    )
    public = public_hand_events(events, ctx.state, ctx.hand.seat_numbers)
    ctx.broadcasts.append({"kind": "hand", "hand": ctx.hand.pk, "events": public})
    return public


def _next_seat(numbers: list[int], after: int | None) -> int:
    later = [n for n in numbers if after is None or n > after]
    return min(later) if later else min(numbers)


def _hand_lineup(table: Table, seats: dict[int, Seat]) -> tuple[int, list[Seat]] | None:
    """The button seat and the players of the next hand (left of the button first, the
    button last), or None when fewer than two can play.

    A player waiting for the big blind is dealt in only when the big blind reaches them --
    except when the game running is heads-up: there the button alternates between the two
    players so the big blind would never reach a newcomer, who is dealt in at once.

    At a tournament table every seat with chips plays, whatever its state: an absent
    player posts their blinds and antes and is folded (``progress``, the shot clock);
    nobody waits for the big blind.
    """
    if table.is_tournament:
        return _lineup_from(table, {n: s for n, s in seats.items() if s.stack > 0})
    candidates = {n: s for n, s in seats.items() if s.state == Seat.State.ACTIVE and s.stack > 0}
    if sum(not s.waiting_for_big_blind for s in candidates.values()) <= 2:
        return _lineup_from(table, candidates)
    while (lineup := _lineup_from(table, candidates)) is not None:
        order = [s.number for s in lineup[1]]
        big_blind_seat = order[blind_seats(len(order)).big]
        waiting = [n for n in order if candidates[n].waiting_for_big_blind and n != big_blind_seat]
        if not waiting:
            return lineup
        for n in waiting:
            del candidates[n]
    return None


def _lineup_from(table: Table, candidates: dict[int, Seat]) -> tuple[int, list[Seat]] | None:
    """Everyone in ``candidates`` plays: the button moves to the next of them."""
    if len(candidates) < 2:
        return None
    numbers = sorted(candidates)
    button = _next_seat(numbers, table.button_seat)
    k = numbers.index(button)
    return button, [candidates[n] for n in numbers[k + 1 :] + numbers[: k + 1]]


def level_of(table: Table) -> Level:
    """The forced bets ``table`` plays now: a tournament table's from its tournament's
    current level (``poker.tournament_hooks``: read at every hand, never kept here), a cash
    table's from its row."""
    if table.is_tournament:
        assert table.tournament_id is not None
        return tournament_hooks.hooks(table.pk).level_of(table.tournament_id)
    return Level(
        small_blind=table.small_blind,
        big_blind=table.big_blind,
        ante=table.ante,
        big_blind_ante=table.big_blind_ante,
    )


def _forced_bets(
    table: Table, level: Level, n: int
) -> tuple[tuple[int, ...], tuple[int, ...], bool]:
    """(blinds_or_straddles, antes, ante_trimming) for the engine. Player 0 sits left of
    the button, which is last. The amounts are built per player at the engine's blind
    seats (``blind_seats``), then written in PHH's order by the engine's rule
    (``forced_by_player``, its own inverse), never restated here."""
    seats = blind_seats(n)
    blinds = [0] * n
    blinds[seats.small], blinds[seats.big] = level.small_blind, level.big_blind
    if table.button_blind and seats.button != seats.small:
        blinds[seats.button] = table.button_blind
    antes = [level.ante] * n
    trimming = True
    if level.big_blind_ante and level.ante:
        antes = [0] * n
        antes[seats.big] = level.ante * n
        trimming = False
    return forced_by_player(blinds), forced_by_player(antes), trimming


def deal_if_due(ctx: Ctx) -> None:
    """Deals the next hand when the pause after the last one is over."""
    due = ctx.table.next_hand_at
    if due is not None and due <= timezone.now() and ctx.table.current_hand_id is None:
        ctx.lock()
        maybe_start_hand(ctx)


def maybe_start_hand(ctx: Ctx) -> None:
    """Deals a hand if none runs, two can play and the pause showing the last hand's
    result (``POKER_HAND_PAUSE_MS``) is over."""
    table = ctx.table
    if table.status != Table.Status.OPEN or table.current_hand_id is not None:
        return
    if table.next_hand_at is not None:
        if table.next_hand_at > timezone.now():
            return
        table.next_hand_at = None
    lineup = _hand_lineup(table, ctx.seats())
    if lineup is None or not _tournament_may_deal(table):
        return
    button, players = lineup
    n = len(players)
    level = level_of(table)
    blinds, antes, trimming = _forced_bets(table, level, n)
    fixed_limit = table.variant == Variant.FT
    config = HandConfig(
        variant=table.variant,
        starting_stacks=tuple(s.stack for s in players),
        blinds_or_straddles=blinds,
        antes=antes,
        ante_trimming=trimming,
        min_bet=0 if fixed_limit else level.big_blind,
        small_bet=level.big_blind if fixed_limit else 0,
        big_bet=2 * level.big_blind if fixed_limit else 0,
        rake=RakeConfig(bps=table.rake_bps, cap=table.rake_cap, no_flop_no_drop=True),
    )
    table.hands_played += 1
    table.button_seat = button
    hand = Hand(
        table=table,
        number=table.hands_played,
        seat_numbers=[s.number for s in players],
        player_ids=[s.player_id for s in players],
    )
    table_store().insert_hand(hand)
    table.current_hand = hand
    for s in players:
        s.waiting_for_big_blind = False
        s.time_bank_ms = min(s.time_bank_ms + TIME_BANK_REFILL_MS, TIME_BANK_MAX_MS)
        ctx.seat_changed(s)
    table_event(
        ctx,
        table_events.HandBegan(
            hand=hand.pk, number=hand.number, button_seat=button, seats=hand.seat_numbers
        ),
    )
    ctx.hand = hand
    ctx.hand_payloads = []
    # The seed was committed in the table view before anyone chose these client seeds;
    # the next hand's seed is drawn (and so committed) in this same transaction.
    deck = FairDeck(
        server_seed=bytes.fromhex(table.next_server_seed),
        client_seeds=client_seeds_for(hand.player_ids),
    )
    table.next_server_seed = new_server_seed_hex()
    state, events = start_hand(config, deck)
    ctx.state = state
    append_engine(ctx, events, SYSTEM)
    progress(ctx)


def _tournament_may_deal(table: Table) -> bool:
    """A cash table always may; a tournament table when its tournament lets it (it may
    hold a table to balance the field or play hand-for-hand: ``poker.tournament_hooks``)."""
    if not table.is_tournament:
        return True
    assert table.tournament_id is not None
    return tournament_hooks.hooks(table.pk).may_deal(table.tournament_id, table.pk)


def auto_decision(state: HandState, player: int) -> tuple[str, None]:
    legal = legal_actions(state)
    assert legal is not None
    return ("check" if "check" in legal.actions else "fold"), None


def progress(ctx: Ctx) -> None:
    """Runs the hand on until someone present must decide, or it ends (then settles and
    possibly starts the next hand)."""
    assert ctx.hand is not None and ctx.state is not None
    while True:
        state = ctx.state
        if state.phase == SHOWDOWN:
            ctx.state, events = showdown_auto(state)
            append_engine(ctx, events, SYSTEM)
            continue
        if state.is_over:
            _finish_hand(ctx)
            return
        actor = state.actor
        if actor is None:  # pragma: no cover - a dealt hand with a deck always progresses
            raise RuntimeError(f"hand {ctx.hand.pk} is stuck in phase {state.phase}")
        seat = ctx.seats().get(ctx.hand.seat_numbers[actor])
        if seat is not None and seat.state == Seat.State.ACTIVE:
            _start_turn(ctx, seat, actor)
            return
        # A player who left or sat out mid-hand: check when free, else fold.
        action, amount = auto_decision(state, actor)
        ctx.state, events = act(state, actor, action, amount)
        append_engine(ctx, events, SYSTEM)


#: Consecutive timeouts after which a player is sat out.
TIMEOUTS_BEFORE_SIT_OUT = 3


#: The time bank refills by this much per hand dealt in, up to the maximum.
TIME_BANK_REFILL_MS = 2_000


TIME_BANK_MAX_MS = 60_000


def _start_turn(ctx: Ctx, seat: Seat, actor: int) -> None:
    """Records whose turn it is and the deadline (action time + time bank) as a table
    event; ``Hand.deadline`` is its projection, which the timeout sweeper scans."""
    assert ctx.hand is not None
    now = timezone.now()
    deadline = now + timedelta(seconds=ctx.table.action_seconds, milliseconds=seat.time_bank_ms)
    ctx.hand.actor_index = actor
    ctx.hand.turn_started_at = now
    ctx.hand.deadline = deadline
    ctx.changed_hands[ctx.hand.pk] = ctx.hand
    table_event(
        ctx,
        table_events.TurnStarted(
            hand=ctx.hand.pk,
            seat=seat.number,
            **who(seat),
            started_at=now.isoformat(),
            deadline=deadline.isoformat(),
            time_bank_ms=seat.time_bank_ms,
        ),
    )


def spend_time_bank(ctx: Ctx, seat: Seat) -> None:
    """Charges the time used beyond the action time to the player's time bank."""
    assert ctx.hand is not None
    if ctx.hand.turn_started_at is None:
        return
    used_ms = int((timezone.now() - ctx.hand.turn_started_at).total_seconds() * 1000)
    over = max(0, used_ms - ctx.table.action_seconds * 1000)
    if over:
        seat.time_bank_ms = max(0, seat.time_bank_ms - over)
        ctx.seat_changed(seat)


def _finish_hand(ctx: Ctx) -> None:
    ctx.lock()  # the ledger, the projections and the next hand need the database
    hand, state, table = ctx.hand, ctx.state, ctx.table
    assert hand is not None and state is not None
    if table.is_tournament:
        # Tournament chips are not money: the stacks are the seats' own, no transfer.
        for i, number in enumerate(hand.seat_numbers):
            ctx.seat_map[number].chips = state.stacks[i]
            ctx.seat_changed(ctx.seat_map[number])
    else:
        starting = state.config.starting_stacks
        results = [(pid, state.stacks[i] - starting[i]) for i, pid in enumerate(hand.player_ids)]
        money.settle_hand(
            hand_id=hand.pk,
            table_id=table.pk,
            currency=table.currency,
            results=results,
            rake=state.rake,
        )
        # The settlement nets every seat exactly its result: each stake now holds the
        # final stack (what the multi-table test checks against the ledger).
        for i, number in enumerate(hand.seat_numbers):
            stake = ctx.seat_map[number].stake_account
            assert stake is not None  # a cash seat
            stake.balance = state.stacks[i]
    hand.ended_at = timezone.now()
    hand.actor_index = None
    hand.deadline = None
    ctx.changed_hands[hand.pk] = hand
    run_out = _streets_run_out(ctx, hand)
    payloads = ctx.hand_payloads
    if payloads is None:  # this process joined mid-hand: read the events back
        ctx.flush()
        payloads = stored_payloads(hand)
    project_hand(hand, payloads=payloads, state=state)
    table.current_hand = None
    stacks = dict(zip(map(str, hand.seat_numbers), state.stacks, strict=True))
    table_event(ctx, table_events.HandFinished(hand=hand.pk, stacks=stacks))
    if table.is_tournament:
        _tournament_hand_end(ctx, hand, state, payloads)
    else:
        leaving = [s for s in ctx.seats().values() if s.state == Seat.State.LEAVING]
        for seat in sorted(leaving, key=lambda s: s.number):
            cash_out(ctx, seat, reason=f"hand:{hand.pk}")
        _cash_out_barred(ctx, hand)
        _sit_out_busted(ctx, hand)
    if table.status == Table.Status.CLOSED:
        return
    pause_ms = settings.POKER_HAND_PAUSE_MS
    if pause_ms > 0 and table.status == Table.Status.OPEN:
        # The result stays on every screen for the pause; the sweeper (or any command
        # after it) deals the next hand. Held here, not in the browsers, so every client
        # and bot sees the same pause.
        # A board run out with everyone all-in is shown a street at a time first.
        pause_ms += run_out * settings.POKER_RUNOUT_STREET_MS
        table.next_hand_at = timezone.now() + timedelta(milliseconds=pause_ms)
        return
    maybe_start_hand(ctx)


#: Hand events in which a player decides; board cards dealt after the last of them (in
#: the command that ended the hand) were run out with nobody left to act.
_DECISIONS = {"PlayerFolded", "PlayerChecked", "PlayerCalled", "BetPlaced", "RaisedTo"}


def _streets_run_out(ctx: Ctx, hand: Hand) -> int:
    """How many streets were dealt after the last decision of ``hand``, in this command."""
    streets = 0
    for row in reversed(ctx.pending):
        if row["stream"] != hand.stream:
            continue
        if row["type"] in _DECISIONS:
            break
        streets += row["type"] == "BoardDealt"
    return streets


def _tournament_hand_end(
    ctx: Ctx, hand: Hand, state: HandState, payloads: list[dict[str, Any]]
) -> None:
    """A tournament hand's end: every seat left with no chips leaves the table
    (``PlayerBusted``), and the tournament hears of the stacks, the busted and who busted
    each (``hand_finished``) in this same transaction."""
    busted = []
    for number in hand.seat_numbers:
        seat = ctx.seat_map[number]
        if seat.stack:
            continue
        busted.append(seat.player_id)
        table_event(ctx, table_events.PlayerBusted(seat=number, **who(seat), hand=hand.pk))
        remove_seat(ctx, seat)
    stacks = dict(zip(hand.player_ids, state.stacks, strict=True))
    knockouts = _knockouts(hand, state, payloads, busted)
    tournament_hooks.hooks(ctx.table.pk).hand_finished(
        ctx.table.pk, hand.pk, stacks, busted, knockouts
    )


def _knockouts(
    hand: Hand, state: HandState, payloads: list[dict[str, Any]], busted: list[int]
) -> dict[int, tuple[int, ...]]:
    """Who busted each busted player: the winners of the last (highest) pot awarded that
    the player was eligible for -- the pot that took their last chips -- in the order the
    pot's odd chips went (from the first seat left of the button); several when split."""
    winners = {p["pot"]: tuple(p["winners"]) for p in payloads if p.get("type") == "PotAwarded"}
    players = list(hand.player_ids)
    return {
        player: tuple(
            players[w] for w in knocked_out_by(state.pots, winners, players.index(player))
        )
        for player in busted
    }


def _cash_out_barred(ctx: Ctx, hand: Hand) -> None:
    """Cashes out every seated player who took a time-out or self-exclusion (one that
    began during this hand, or whose seat the start could not clear): they played the
    hand out, and are not dealt the next one."""
    seats = ctx.seats()
    barred = restriction_barred_from_tables(user_ids=[s.player_id for s in seats.values()])
    for seat in sorted(
        (s for s in seats.values() if s.player_id in barred), key=lambda s: s.number
    ):
        cash_out(ctx, seat, reason=f"hand:{hand.pk}")


def _sit_out_busted(ctx: Ctx, hand: Hand) -> None:
    """Sits out every active player of ``hand`` left with no chips: they keep the seat
    and may top up (rebuy) and sit in again, instead of sitting at 0 marked active."""
    for number in hand.seat_numbers:
        seat = ctx.seat_map.get(number)
        if seat is None or seat.state != Seat.State.ACTIVE or seat.stack:
            continue
        seat.state = Seat.State.SITTING_OUT
        ctx.seat_changed(seat)
        table_event(
            ctx, table_events.PlayerSatOut(seat=number, user_id=seat.player_id, reason="busted")
        )


def cash_out(ctx: Ctx, seat: Seat, *, reason: str) -> int:
    account = Account.objects.get(pk=seat.stake_account_id)
    amount = account.balance
    if amount:
        money.cash_out(
            table_id=ctx.table.pk,
            player_id=seat.player_id,
            amount=amount,
            currency=ctx.table.currency,
            key=money.transfer_id("cash-out", ctx.table.pk, seat.player_id, reason, seat.pk),
        )
    table_event(ctx, table_events.PlayerLeft(seat=seat.number, **who(seat), cashed_out=amount))
    remove_seat(ctx, seat)
    return amount


def remove_seat(ctx: Ctx, seat: Seat) -> None:
    """Takes ``seat`` off the table now (its event written by the caller)."""
    # Forget the seat's pending row write before the delete clears its primary key.
    ctx.changed_seats.pop(seat.pk, None)
    del ctx.seat_map[seat.number]
    seat.delete()
