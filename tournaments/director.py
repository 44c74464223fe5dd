"""The director: starts a tournament (a sit-and-go when full, a scheduled one at its
time), tells its tables the level, balances the tables after every hand, holds the tables
that must wait, plays hand-for-hand on the money bubble, places the busted, pays the
prizes when one player is left (issue 29).

**Lock order: table -> tournament, everywhere.** ``hand_finished`` runs inside the poker
command that ends a hand, which holds the table's lock, and takes the tournament's row
lock; ``may_deal`` is asked under the lock of the table about to deal and takes the
tournament's too. Nothing holding a tournament's lock runs a table command: the start
commits its draw before it seats the players, and the moves a plan records are made after
its commit (``transaction.on_commit``, robust), each a table command in its own
transaction, then cleared in a tournament transaction of their own. Since a deal takes
the tournament's lock, no table deals while a hand end elsewhere plans moves out of it.

**Start.** A sit-and-go starts after the registration that fills it commits
(``transaction.on_commit`` in ``tournament_register``): the registration is a durable
transaction and the table commands run their own, so they cannot run inside it, and a
start that fails leaves the registration paid and recorded. A scheduled tournament starts
at ``starts_at`` (the sweeper) with ``min_players`` or more, else it is cancelled with
full refunds. The start is idempotent: its tables and seats are commands under keys
derived from the tournament, the draw is kept on the row, and until the row says
``seated`` the sweeper (``tournaments.start_due``, beat) finishes a start cut short.

**Play.** After every hand (``hand_finished``) the field -- the seats of the tables not
broken, the moves planned but not yet made taken as made -- goes to
``rules.balance.balance``; its moves are recorded on the row (``moves``) and in the stream
(``PlayerMoved``, ``TableBroken``, ``FinalTableFormed``) and made after the commit
(``tournament_resume``: out of one table, into the other, keyed by the move), which then
plans again and deals the tables that may. A table a move leaves or joins is not between
hands for the balancer and deals nothing until the move is made; the plan's waiting
tables, and in hand-for-hand the tables done with the round's hand, are held
(``waiting``). A crash leaves the moves on the row: the sweeper (``tournaments.resume``)
makes them and deals the idle tables.

**Breaks.** While the clock is on a break (``Clock.on_break``) no table deals: a hand in
progress plays out, and the table stays idle. The sweeper (``tournaments.resume``, every
30 s) deals the idle tables of every running tournament, so play resumes within its
period after the break ends.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from handhistory.store import SYSTEM
from ledger.models import AccountKind
from ledger.posting import TransferRequest
from ledger.services import ledger_post_transfers_in_transaction
from poker.commands.tournament import (
    table_deal,
    table_move_out,
    table_seat_tournament_player,
    tournament_table_create,
)
from poker.engine.pots import split_pot
from poker.models import Seat, Table
from poker.tournament_hooks import Level
from tournaments.events import (
    BountyPaid,
    FinalTableFormed,
    PlayerBusted,
    PlayerMoved,
    PrizePaid,
    TableBroken,
    TournamentEvent,
    TournamentFinished,
    TournamentStarted,
)
from tournaments.models import Entry, Tournament
from tournaments.rules.balance import (
    FieldState,
    TableState,
    balance,
    hand_for_hand_may_deal,
    seat_draw,
)
from tournaments.rules.payouts import (
    Bust,
    Placement,
    PrizePool,
    places_from_busts,
    prize_amounts,
    prize_pool,
    prizes_for_placements,
)
from tournaments.selectors import projected_payouts, tournament_clock
from tournaments.services import _append, _cancel_refunding, _locked, tournament_accounts
from wallet.services import derived_id, house_account, player_account

LIVE = Q(status=Entry.Status.REGISTERED)
RUNNING = Tournament.Status.RUNNING


# --- the clock -------------------------------------------------------------------------


def level_of(tournament_id: int) -> Level:
    """The hook ``poker`` reads at every hand start: the tournament's current level."""
    level = tournament_clock(Tournament.objects.get(pk=tournament_id)).level
    return Level(
        small_blind=level.small_blind,
        big_blind=level.big_blind,
        ante=level.ante,
        big_blind_ante=level.big_blind_ante,
    )


# --- the start -------------------------------------------------------------------------


def _players(tournament: Tournament) -> int:
    return tournament.entries.filter(LIVE).count()


def _due(tournament: Tournament) -> bool:
    """Registering, and its start has come: a sit-and-go full, a scheduled one at its time."""
    if tournament.status != Tournament.Status.REGISTERING:
        return False
    if tournament.kind == Tournament.Kind.SIT_AND_GO:
        return _players(tournament) >= tournament.max_players
    return tournament.starts_at is not None and tournament.starts_at <= timezone.now()


def _tables_for(tournament: Tournament, players: int) -> int:
    return -(-players // tournament.seats_per_table)


def _key(tournament: Tournament, *parts: object) -> str:
    return "-".join(map(str, ("tournament", tournament.pk, *parts)))


def tournament_start(*, tournament_id: int) -> Tournament:
    """Starts a tournament that is due (a full sit-and-go; a scheduled one at its time
    with ``min_players`` or more): ceil(players / ``seats_per_table``) tables, the players
    drawn onto seats at random (``random.SystemRandom``, recorded in
    ``TournamentStarted``), each seated with the starting stack; the last seat of each
    table deals its first hand. A scheduled one due with fewer players is cancelled, every
    entry refunded in full. Finishes a start cut short; does nothing to a tournament not
    due or seated already."""
    tournament = Tournament.objects.get(pk=tournament_id)
    while _due(tournament):
        players = _players(tournament)
        if players < tournament.min_players:
            return _cancel_too_few(tournament_id)
        tables = _open_tables(tournament, _tables_for(tournament, players))
        with transaction.atomic(durable=True):
            tournament = _locked(tournament_id)
            # A late registration since the count may need one more table: then again.
            if _due(tournament) and _tables_for(tournament, _players(tournament)) <= len(tables):
                _draw(tournament, tables)
    if tournament.status == RUNNING and not tournament.seated:
        _seat_drawn(tournament)
    return tournament


def _cancel_too_few(tournament_id: int) -> Tournament:
    with transaction.atomic(durable=True):
        tournament = _locked(tournament_id)
        players = _players(tournament)
        if _due(tournament) and players < tournament.min_players:
            reason = f"too few players: {players} registered, {tournament.min_players} needed"
            _cancel_refunding(tournament, reason=reason, staff_id=None, actor=SYSTEM)
        return tournament


def _open_tables(tournament: Tournament, count: int) -> list[int]:
    """Tables 1..``count`` of the tournament (each once per key: a retry finds them)."""
    return [
        tournament_table_create(
            tournament_id=tournament.pk,
            table_number=number,
            name=f"{tournament.name} #{number}",
            variant=tournament.variant,
            max_seats=tournament.seats_per_table,
            action_seconds=tournament.action_seconds,
            key=_key(tournament, "table", number),
        ).pk
        for number in range(1, count + 1)
    ]


def _draw(tournament: Tournament, table_ids: Sequence[int]) -> None:
    """Under the tournament's lock: the seat draw, recorded, and the status ``running``."""
    live = tournament.entries.filter(LIVE)
    players = list(live.order_by("id").values_list("player_id", flat=True))
    field = seat_draw(
        players=players, seats_per_table=tournament.seats_per_table, rng=random.SystemRandom()
    )
    tournament.draw = [
        {
            "number": t.number,
            "table": table_ids[t.number - 1],
            "seats": {str(seat): player for seat, player in sorted(t.seats.items())},
        }
        for t in field.tables
    ]
    tournament.status = RUNNING
    tournament.started_at = timezone.now()
    tournament.save(update_fields=["draw", "status", "started_at"])
    live.update(chips=tournament.starting_stack)
    started = TournamentStarted(tables=tournament.draw, starting_stack=tournament.starting_stack)
    _append(tournament, [started], SYSTEM)


def _seat_drawn(tournament: Tournament) -> None:
    """Seats the draw (each seat a command under its own key: a retry repeats nothing),
    then marks the tournament seated: from then on its hands' ends balance the field."""
    for table in tournament.draw or []:
        seats = sorted(table["seats"].items(), key=lambda item: int(item[0]))
        for i, (seat, player) in enumerate(seats):
            table_seat_tournament_player(
                table_id=table["table"],
                player_id=player,
                seat=int(seat),
                chips=tournament.starting_stack,
                key=_key(tournament, "seat", player),
                actor=SYSTEM,
                deal=i == len(seats) - 1,
            )
    Tournament.objects.filter(pk=tournament.pk).update(seated=True)
    tournament.seated = True


def tournaments_start_due() -> int:
    """The sweeper's pass over starts: every sit-and-go and scheduled tournament due whose
    start never ran or was cut short (a crash) is started, or cancelled when too few
    registered. Returns how many it looked at."""
    due = Tournament.objects.filter(
        Q(status=Tournament.Status.REGISTERING, kind=Tournament.Kind.SIT_AND_GO)
        | Q(status=Tournament.Status.REGISTERING, starts_at__lte=timezone.now())
        | Q(status=RUNNING, seated=False)
    )
    count = 0
    for tournament_id in due.values_list("pk", flat=True):
        tournament_start(tournament_id=tournament_id)
        count += 1
    return count


# --- balancing: the field, the plan, the moves, the holds --------------------------------


def may_deal(tournament_id: int, table_id: int) -> bool:
    """The hook ``poker`` asks before a tournament table deals, under that table's lock
    (the tournament's is taken after it): not during a break of the clock (a hand in
    progress plays out; the sweeper deals the tables once it ends), nor while the table is
    held (waiting to be balanced, or done with its hand-for-hand hand) or a planned move
    leaves or joins it."""
    tournament = _locked(tournament_id)
    if tournament_clock(tournament).on_break is not None:
        return False
    return table_id not in tournament.waiting and table_id not in _moving(tournament)


def _moving(tournament: Tournament) -> set[int]:
    """The tables a planned move leaves or joins."""
    return {m["from"] for m in tournament.moves} | {m["to"] for m in tournament.moves}


def _field(tournament: Tournament, ended: int | None) -> tuple[FieldState, dict[int, int]]:
    """The field as the balancer reads it, and each table number's poker id: the seats of
    the tables not broken with the planned moves taken as made, each table's last button;
    a table is between hands when it holds no hand (``ended``, whose hand just ended, by
    definition) and no planned move leaves or joins it."""
    rows = list(
        Table.objects.filter(tournament_id=tournament.pk)
        .exclude(pk__in=tournament.broken)
        .values_list("pk", "tournament_table", "button_seat", "current_hand_id")
    )
    seats: dict[int, dict[int, int]] = {pk: {} for pk, *_ in rows}
    movers = {m["player"] for m in tournament.moves}
    for table, seat, player in Seat.objects.filter(tournament_id=tournament.pk).values_list(
        "table_id", "number", "player_id"
    ):
        if player not in movers:
            seats[table][seat] = player
    for m in tournament.moves:
        seats[m["to"]][m["seat"]] = m["player"]
    moving = _moving(tournament)
    tables = tuple(
        TableState(
            number=number,
            seats=seats[pk],
            button=button,
            between_hands=(pk == ended or hand is None) and pk not in moving,
        )
        for pk, number, button, hand in rows
    )
    field = FieldState(tables=tables, seats_per_table=tournament.seats_per_table)
    return field, {number: pk for pk, number, *_ in rows}


def _plan(
    tournament: Tournament, field: FieldState, ids: Mapping[int, int], hand: int | None
) -> list[TournamentEvent]:
    """Balances ``field`` (``rules.balance``) and records the plan on the row: the moves
    to make after the commit (each with its key), the tables broken, the tables held (the
    plan's waiting and, in hand-for-hand, those done with the round's hand). Returns its
    events."""
    plan = balance(field, random.SystemRandom())
    events: list[TournamentEvent] = []
    for m in plan.moves:
        tournament.moves_planned += 1
        source, target = ids[m.from_table], ids[m.to_table]
        tournament.moves.append(
            {
                "key": _key(tournament, "move", tournament.moves_planned),
                "player": m.player,
                "from": source,
                "to": target,
                "seat": m.to_seat,
            }
        )
        events.append(
            PlayerMoved(
                user_id=m.player,
                from_table=source,
                from_seat=m.from_seat,
                to_table=target,
                to_seat=m.to_seat,
                hand=hand,
            )
        )
    broken = [ids[number] for number in plan.broken]
    tournament.broken = [*tournament.broken, *broken]
    events += [TableBroken(table=table, hand=hand) for table in broken]
    if plan.final_table:
        events.append(FinalTableFormed(table=ids[plan.moves[0].to_table], hand=hand))
    held = {ids[number] for number in plan.waiting}
    if tournament.hand_for_hand is not None:
        tables = {pk for pk in ids.values() if pk not in broken}
        finished = tables & set(tournament.hand_for_hand["finished"])
        held |= tables - hand_for_hand_may_deal(tables=tables, finished=finished)
    tournament.waiting = sorted(held)
    return events


PLAN_FIELDS = ["moves", "moves_planned", "broken", "waiting", "hand_for_hand"]


def tournament_resume(*, tournament_id: int) -> None:
    """Makes the moves planned and not yet made -- every mover out of their table, then
    each into their new seat, commands keyed by the move, so a retry repeats nothing --
    clears them and plans again (the field changed), until no move is left; then deals
    every table of the tournament that holds no hand and may deal. Runs after the commit
    of a plan, and from the sweeper (a crash)."""
    rows = Tournament.objects.filter(pk=tournament_id)
    while moves := rows.values_list("moves", flat=True).get():
        chips = {
            m["key"]: table_move_out(
                table_id=m["from"], player_id=m["player"], key=f"{m['key']}-out", actor=SYSTEM
            )["chips"]
            for m in moves
        }
        for m in moves:
            table_seat_tournament_player(
                table_id=m["to"],
                player_id=m["player"],
                seat=m["seat"],
                chips=chips[m["key"]],
                key=f"{m['key']}-in",
                actor=SYSTEM,
                deal=False,
            )
        with transaction.atomic(durable=True):
            tournament = _locked(tournament_id)
            tournament.moves = [m for m in tournament.moves if m not in moves]
            if tournament.status == RUNNING:
                field, ids = _field(tournament, None)
                _append(tournament, _plan(tournament, field, ids, None), SYSTEM)
            tournament.save(update_fields=PLAN_FIELDS)
    tournament = rows.get()
    if tournament.status != RUNNING:
        return
    idle = Table.objects.filter(
        tournament_id=tournament_id, current_hand__isnull=True, next_hand_at__isnull=True
    ).exclude(pk__in=tournament.broken)
    for table_id in idle.order_by("pk").values_list("pk", flat=True):
        table_deal(table_id=table_id, actor=SYSTEM)


def tournaments_resume() -> int:
    """The sweeper's pass over play: every running tournament's moves left unmade (a
    crash after a plan's commit) are made and its idle tables dealt. Returns how many
    tournaments it looked at."""
    running = Tournament.objects.filter(status=RUNNING, seated=True)
    ids = list(running.values_list("pk", flat=True))
    for tournament_id in ids:
        tournament_resume(tournament_id=tournament_id)
    return len(ids)


# --- hands, busts, the finish ----------------------------------------------------------


def hand_finished(
    table_id: int,
    hand_id: int,
    stacks: Mapping[int, int],
    busted: Sequence[int],
    knockouts: Mapping[int, Sequence[int]],
) -> None:
    """The hook ``poker`` calls at each tournament hand's end, in the command's transaction
    (holding the table's lock; the tournament's is taken after it). Counts the hand for
    the clock, keeps each player's chips, pays each busted player's bounty to who busted
    them (``knockouts``: ``_pay_bounties``), places the busted (``_place``), and when one
    player is left, finishes the tournament. Else, once the draw is seated: plays
    hand-for-hand on the bubble (players left == places paid + 1: each table deals one
    hand, then waits for the others; the round's busts are placed together at its end),
    balances the field (``_plan``) and, when moves are to be made or tables released,
    resumes play after the commit (``tournament_resume``)."""
    tournament_id = Table.objects.values_list("tournament_id", flat=True).get(pk=table_id)
    assert tournament_id is not None
    tournament = _locked(tournament_id)
    tournament.hands_played += 1
    entries = {e.player_id: e for e in tournament.entries.filter(LIVE)}
    # A player's chips before this hand: the starting stack that ranks their bust.
    busts = [(Bust(player=p, starting_stack=entries[p].chips or 0), hand_id) for p in busted]
    for player, chips in stacks.items():
        entries[player].chips = chips
    changed = set(stacks)
    field, ids = _field(tournament, table_id) if tournament.seated else (None, {})
    round_, over = tournament.hand_for_hand, False
    if round_ is not None:
        assert field is not None  # hand-for-hand starts once seated
        round_["finished"].append(table_id)
        round_["busts"] += [
            {"player": b.player, "stack": b.starting_stack, "hand": h} for b, h in busts
        ]
        playable = {ids[t.number] for t in field.tables if len(t.seats) >= 2}
        over = playable <= set(round_["finished"])
        busts = (
            [
                (Bust(player=b["player"], starting_stack=b["stack"]), b["hand"])
                for b in round_["busts"]
            ]
            if over
            else []
        )
    events = _place(entries, busts)
    events += _pay_bounties(tournament, entries, {p: knockouts.get(p, ()) for p in busted}, hand_id)
    changed |= {b.player for b, _ in busts} | {w for p in busted for w in knockouts.get(p, ())}
    waiting_busts = len(round_["busts"]) if round_ is not None and not over else 0
    left = sum(e.place is None for e in entries.values()) - waiting_busts
    Entry.objects.bulk_update(
        [entries[p] for p in changed], ["chips", "place", "last_place", "bounties_won"]
    )
    if left == 1:
        tournament.save(update_fields=["hands_played"])
        _append(tournament, events, SYSTEM)
        (winner,) = (e for e in entries.values() if e.place is None)
        _finish(tournament, winner, list(entries.values()), table_id)
        return
    released = set(tournament.waiting)
    if field is not None:
        if over or round_ is None:
            bubble = left == _places_paid(tournament, list(entries.values())) + 1
            # A round begins with every table to deal; the first with this one done.
            first = [] if over else [table_id]
            tournament.hand_for_hand = {"finished": first, "busts": []} if bubble else None
        events += _plan(tournament, field, ids, hand_id)
    tournament.save(update_fields=["hands_played", *PLAN_FIELDS])
    _append(tournament, events, SYSTEM)
    if tournament.moves or released - set(tournament.waiting):
        transaction.on_commit(lambda: tournament_resume(tournament_id=tournament_id), robust=True)


def _place(
    entries: Mapping[int, Entry], busts: Sequence[tuple[Bust, int]]
) -> list[TournamentEvent]:
    """Places ``busts`` -- one hand's, or one hand-for-hand round's, each with the hand it
    happened in -- from the bottom of the players left: of several, the larger starting
    stack places higher, equal stacks share (``places_from_busts``)."""
    if not busts:
        return []
    left = sum(e.place is None for e in entries.values())
    hands = {b.player: hand for b, hand in busts}
    events: list[TournamentEvent] = []
    for placed in places_from_busts(players_left=left, busts=[b for b, _ in busts]):
        entry = entries[placed.player]
        entry.place, entry.last_place = placed.first_place, placed.last_place
        events.append(
            PlayerBusted(
                user_id=placed.player,
                place=placed.first_place,
                last_place=placed.last_place,
                hand=hands[placed.player],
            )
        )
    return events


def _pay_bounties(
    tournament: Tournament,
    entries: Mapping[int, Entry],
    knockouts: Mapping[int, Sequence[int]],
    hand: int | None,
) -> list[TournamentEvent]:
    """Pays each busted player's bounty (what their entry put in the bounty account) from
    the bounty account to the cash of who busted them, in the caller's transaction: split
    on a split pot as the pot was, odd units one each to the first winners from the left
    of the button (``split_pot``); transfer ids derived from (tournament, "bounty", busted,
    winner), so a retry never pays twice. A bust nobody is named for (none should be)
    leaves its bounty in the account, for the winner at the finish."""
    transfers: list[TransferRequest] = []
    events: list[TournamentEvent] = []
    for busted, winners in knockouts.items():
        amount = entries[busted].bounty
        if not amount or not winners:
            continue
        for winner, share in zip(winners, split_pot(amount, tuple(winners)), strict=True):
            if not share:
                continue
            transfers.append(_bounty_transfer(tournament, busted, winner, share, hand))
            entries[winner].bounties_won += share
            events.append(BountyPaid(user_id=winner, busted=busted, amount=share, hand=hand))
    if transfers:
        ledger_post_transfers_in_transaction(transfers=transfers)
    return events


def _bounty_transfer(
    tournament: Tournament, busted: int, winner: int, amount: int, hand: int | None
) -> TransferRequest:
    return TransferRequest(
        id=derived_id("tournament", tournament.pk, "bounty", busted, winner),
        debit_account_id=tournament_accounts(tournament)["bounty"].pk,
        credit_account_id=player_account(user_id=winner, currency=tournament.currency).pk,
        amount=amount,
        currency=tournament.currency,
        code="tournament_bounty_won",
        reference=tournament.owner_ref,
        metadata={"user_id": winner, "busted": busted, "hand": hand},
    )


def _places_paid(tournament: Tournament, entries: Sequence[Entry]) -> int:
    return sum(1 for amount in _prizes(tournament, entries)[1] if amount)


def _prizes(tournament: Tournament, entries: Sequence[Entry]) -> tuple[PrizePool, tuple[int, ...]]:
    """(the pool, the prize of each paid place): the structure's percentages (as the
    detail shows them) or the room's default table."""
    pool = prize_pool(
        guarantee=tournament.guarantee,
        buy_ins=sum(e.buy_in for e in entries),
        rebuys=0,
        add_ons=0,
        bounties=sum(e.bounty for e in entries),
    )
    if tournament.payouts:
        return pool, tuple(projected_payouts(pool.amount, tournament.payouts).values())
    return pool, prize_amounts(pool=pool.amount, entries=len(entries), percents=None)


def _overlay(tournament: Tournament, overlay: int, pool_account_id: int) -> list[TransferRequest]:
    """The house's part of a guarantee, paid into the pool from the house adjustments
    account (the house account that may go negative: an expense of the house), once."""
    if not overlay:
        return []
    house = house_account(kind=AccountKind.ADJUSTMENT, currency=tournament.currency)
    return [
        TransferRequest(
            id=derived_id("tournament", tournament.pk, "overlay"),
            debit_account_id=house.pk,
            credit_account_id=pool_account_id,
            amount=overlay,
            currency=tournament.currency,
            code="tournament_overlay",
            reference=tournament.owner_ref,
            metadata={"guarantee": tournament.guarantee},
        )
    ]


def _finish(tournament: Tournament, winner: Entry, entries: Sequence[Entry], table_id: int) -> None:
    """The winner takes place 1; the house pays a guarantee's overlay into the pool; every
    placed player is paid their prize from the pool, the winner their own bounty from the
    bounty account (which leaves it at zero) (transfer ids derived from (tournament, place, player): a retry never pays twice),
    which leaves the pool at zero; the tournament is finished and, after the commit, the
    winner is moved off the last table, which is left empty."""
    winner.place = winner.last_place = 1
    winner.save(update_fields=["place", "last_place"])
    pool, amounts = _prizes(tournament, entries)
    ranked = sorted(entries, key=lambda e: (e.place or 0, e.pk))
    won = prizes_for_placements(
        prizes=amounts,
        placements=[
            Placement(player=e.player_id, first_place=e.place or 0, last_place=e.last_place or 0)
            for e in ranked
        ],
    )
    pool_account = tournament_accounts(tournament)["pool"]
    transfers = _overlay(tournament, pool.overlay, pool_account.pk)
    events: list[TournamentEvent] = []
    for entry in ranked:
        entry.prize = won.get(entry.player_id, 0)
        if not entry.prize:
            continue
        transfers.append(
            TransferRequest(
                id=derived_id("tournament", tournament.pk, "prize", entry.place, entry.player_id),
                debit_account_id=pool_account.pk,
                credit_account_id=player_account(
                    user_id=entry.player_id, currency=tournament.currency
                ).pk,
                amount=entry.prize,
                currency=tournament.currency,
                code="tournament_prize",
                reference=tournament.owner_ref,
                metadata={"user_id": entry.player_id, "place": entry.place},
            )
        )
        events.append(
            PrizePaid(user_id=entry.player_id, place=entry.place or 0, amount=entry.prize)
        )
    # The winner's own bounty, and any a bust named nobody for: the account ends at zero.
    left = sum(e.bounty for e in entries) - sum(e.bounties_won for e in entries)
    if left:
        transfers.append(
            _bounty_transfer(tournament, winner.player_id, winner.player_id, left, None)
        )
        winner.bounties_won += left
        events.append(
            BountyPaid(user_id=winner.player_id, busted=winner.player_id, amount=left, hand=None)
        )
    if transfers:
        ledger_post_transfers_in_transaction(transfers=transfers)
    now = timezone.now()
    for entry in ranked:
        entry.ended_at = now
    Entry.objects.bulk_update(ranked, ["prize", "ended_at", "bounties_won"])
    tournament.status = Tournament.Status.FINISHED
    tournament.finished_at = now
    tournament.save(update_fields=["status", "finished_at"])
    _append(
        tournament,
        [*events, TournamentFinished(winner=winner.player_id, prize_pool=pool.amount)],
        SYSTEM,
    )
    transaction.on_commit(
        lambda: table_move_out(
            table_id=table_id,
            player_id=winner.player_id,
            key=_key(tournament, "winner", winner.player_id),
            actor=SYSTEM,
        ),
        robust=True,
    )
