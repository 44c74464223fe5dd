"""The larger example payloads of the poker API's OpenAPI document (shared by several
operations, or too long for a decorator): a table, its view during a hand, and a hand as a
history row, as JSON (with the hand in words), as PHH and as OHH."""

from __future__ import annotations

TABLE = {
    "id": 7,
    "name": "Main 50/100",
    "variant": "NT",
    "currency": "CHIPS",
    "small_blind": 50,
    "big_blind": 100,
    "ante": 0,
    "stakes_label": "50/100",
    "max_seats": 6,
    "min_buy_in": 2000,
    "max_buy_in": 20000,
    "rake_bps": 500,
    "rake_cap": 300,
    "action_seconds": 30,
    "status": "open",
}

# Heads-up on the flop: seat 1 checked, seat 2 bet 200 and seat 1 is to act. What everyone
# sees; the caller's own view adds ``you``.
FLOP_VIEW = {
    "table": TABLE,
    "version": 42,
    "seats": [
        {
            "seat": 1,
            "user_id": 3,
            "username": "alice",
            "state": "active",
            "stack": 9800,
            "bet": 0,
            "in_hand": True,
            "folded": False,
            "all_in": False,
            "cards": None,
        },
        {
            "seat": 2,
            "user_id": 4,
            "username": "bob",
            "state": "active",
            "stack": 9600,
            "bet": 200,
            "in_hand": True,
            "folded": False,
            "all_in": False,
            "cards": None,
        },
    ],
    "hand": {
        "id": 812,
        "number": 12,
        "button_seat": 2,
        "street": "flop",
        "phase": "betting",
        "board": "Ah7d2c",
        "pots": [{"amount": 400, "eligible_seats": [1, 2]}],
        "total_pot": 600,
        "actor_seat": 1,
        "deadline": "2025-01-01T12:00:42Z",
        "action_deadline": "2025-01-01T12:00:30Z",
    },
    "next_hand_at": None,
}

# An earlier hand of the same players at that table, checked down after a raise to 300 and
# a call: 5% rake (30) comes off the 600 pot, seat 1's two pair beats seat 2's pair of nines.
_HAND_SUMMARY = {
    "hand": 798,
    "table": 7,
    "number": 5,
    "variant": "NT",
    "currency": "CHIPS",
    "stakes": {"small_blind": 50, "big_blind": 100, "ante": 0},
    "players": [
        {"seat": 1, "user_id": 3, "starting_stack": 10000},
        {"seat": 2, "user_id": 4, "starting_stack": 10000},
    ],
    "board": "Qh9d4cJs2h",
    "pots": [{"pot": 0, "winners": [1], "amounts": [570], "hand": "two_pair"}],
    "total_pot": 600,
    "rake": 30,
    "shown": {"1": "QsJd", "2": "Ad9c"},
    "started_at": "2025-01-01T11:48:40Z",
    "ended_at": "2025-01-01T11:49:55Z",
}


# The same hand in the caller's list: the summary with the table's name and your part.
HAND_ROW = {
    **_HAND_SUMMARY,
    "table_name": "Main 50/100",
    "you": {
        "seat": 1,
        "position": "BB",
        "cards": "QsJd",
        "showed": True,
        "starting_stack": 10000,
        "final_stack": 10270,
        "net": 270,
        "won": 570,
    },
}

# A hand in words (``readable``): heads-up, bob raised to 300 and alice folded.
_READABLE = {
    "variant": "NT",
    "table_name": "Main 50/100",
    "max_seats": 6,
    "currency": "CHIPS",
    "button_seat": 2,
    "players": [
        {
            "seat": 1,
            "username": "alice",
            "position": "BB",
            "starting_stack": 10000,
            "final_stack": 9900,
            "net": -100,
            "cards": "Qh8h",
            "showed": False,
            "won": 0,
        },
        {
            "seat": 2,
            "username": "bob",
            "position": "BTN",
            "starting_stack": 10000,
            "final_stack": 10100,
            "net": 100,
            "cards": None,
            "showed": False,
            "won": 200,
        },
    ],
    "board": "",
    "board_by_street": {},
    "rake": 0,
    "total_pot": 200,
    "pots": [
        {
            "pot": 0,
            "amount": 200,
            "rake": 0,
            "hand": "",
            "winners": [{"seat": 2, "username": "bob", "amount": 200}],
        },
    ],
    "actions": [
        {
            "street": "preflop",
            "seat": 2,
            "username": "bob",
            "kind": "blind",
            "amount": 50,
            "text": "bob posts blind 50",
        },
        {
            "street": "preflop",
            "seat": 1,
            "username": "alice",
            "kind": "blind",
            "amount": 100,
            "text": "alice posts blind 100",
        },
        {
            "street": "preflop",
            "seat": 2,
            "username": "bob",
            "kind": "raise",
            "amount": 300,
            "text": "bob raises to 300",
        },
        {
            "street": "preflop",
            "seat": 1,
            "username": "alice",
            "kind": "fold",
            "amount": None,
            "text": "alice folds",
        },
        {
            "street": "preflop",
            "seat": 2,
            "username": "bob",
            "kind": "uncalled",
            "amount": 200,
            "text": "Uncalled 200 returned to bob",
        },
    ],
    "steps": [
        {
            "kind": "raise",
            "text": "bob raises to 300",
            "seat": 2,
            "street": "preflop",
            "board": "",
            "pot": 400,
            "pots": [],
            "rake": 0,
            "actor_seat": 1,
            "seats": [
                {
                    "seat": 1,
                    "stack": 9900,
                    "bet": 100,
                    "folded": False,
                    "all_in": False,
                    "cards": "Qh8h",
                },
                {
                    "seat": 2,
                    "stack": 9700,
                    "bet": 300,
                    "folded": False,
                    "all_in": False,
                    "cards": None,
                },
            ],
            "winners": [],
        }
    ],
}


# A hand as its player sees it: their own cards, the other's hidden until shown.
HAND_DETAIL = {
    "id": 812,
    "table": 7,
    "number": 12,
    "seats": [1, 2],
    "started_at": "2025-01-01T12:00:00Z",
    "ended_at": "2025-01-01T12:01:10Z",
    "events": [
        {
            "seq": 4,
            "recorded_at": "2025-01-01T12:00:00Z",
            "type": "HoleCardsDealt",
            "version": 1,
            "seat": 1,
            "cards": [51, 45],
        },
        {
            "seq": 5,
            "recorded_at": "2025-01-01T12:00:00Z",
            "type": "HoleCardsDealt",
            "version": 1,
            "seat": 2,
            "cards": None,
        },
    ],
    "summary": {"total_pot": 600, "rake": 30, "board": "Ah7d2c9sTd", "shown": {}},
    # Only one of the steps is shown here: there is one per action.
    "readable": _READABLE,
}


HAND_PHH = """variant = "NT"
antes = [0, 0]
blinds_or_straddles = [50, 100]
min_bet = 100
starting_stacks = [10000, 10000]
actions = [
  "d dh p1 ????",
  "d dh p2 Kh8h",
  "p2 cbr 300",
  "p1 f",
]
finishing_stacks = [9900, 10100]
players = ["eli", "dana"]
seats = [1, 2]
"""


HAND_OHH = {
    "ohh": {
        "spec_version": "1.4.7",
        "site_name": "pokerbackend",
        "network_name": "pokerbackend",
        "internal_version": "1.0.0",
        "tournament": False,
        "game_number": "812",
        "start_date_utc": "2025-01-01T12:00:00Z",
        "table_name": "Main",
        "game_type": "Holdem",
        "bet_limit": {"bet_type": "NL", "bet_cap": 0.0},
        "table_size": 6,
        "currency": "USD",
        "dealer_seat": 2,
        "small_blind_amount": 0.5,
        "big_blind_amount": 1.0,
        "ante_amount": 0.0,
        "flags": [],
        "players": [
            {"id": 0, "seat": 1, "name": "eli", "starting_stack": 100.0, "is_sitting_out": False},
            {"id": 1, "seat": 2, "name": "dana", "starting_stack": 100.0, "is_sitting_out": False},
        ],
        "rounds": [
            {
                "id": 0,
                "street": "Preflop",
                "actions": [
                    {
                        "action_number": 1,
                        "player_id": 1,
                        "action": "Post SB",
                        "amount": 0.5,
                        "is_allin": False,
                    },
                    {
                        "action_number": 2,
                        "player_id": 0,
                        "action": "Post BB",
                        "amount": 1.0,
                        "is_allin": False,
                    },
                    {
                        "action_number": 3,
                        "player_id": 1,
                        "action": "Dealt Cards",
                        "amount": 0.0,
                        "is_allin": False,
                        "cards": ["Kh", "8h"],
                    },
                    {
                        "action_number": 4,
                        "player_id": 1,
                        "action": "Raise",
                        "amount": 2.5,
                        "is_allin": False,
                    },
                    {
                        "action_number": 5,
                        "player_id": 0,
                        "action": "Fold",
                        "amount": 0.0,
                        "is_allin": False,
                    },
                ],
            }
        ],
        "pots": [
            {
                "number": 0,
                "amount": 2.0,
                "rake": 0.0,
                "player_wins": [{"player_id": 1, "win_amount": 2.0}],
            }
        ],
        "hero_player_id": 1,
    }
}
