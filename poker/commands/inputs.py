"""The checks of a table request before it reaches a table: what is wrong whatever the
table's state (a malformed key, action, amount, chat line or table setting). They run
before the command takes the table, so a malformed request costs no lock and no
statement; what depends on the table (a buy-in in its range, a free seat) is the
command's."""

from __future__ import annotations

from core.errors import InvalidRequest
from core.idempotency import TABLE_KEY_LENGTH, check_key
from ledger.posting import check_amount
from poker.engine.betting import ACTIONS
from poker.models import Variant

CHAT_MAX_LENGTH = 200


def client_key(*, player_id: int | None, key: object) -> None:
    """A player's command needs their idempotency key (the one key rule,
    ``core.idempotency.check_key``, kept in ``TableCommand``); the system's commands have
    none."""
    if player_id is not None or key is not None:
        check_key(key, limit=TABLE_KEY_LENGTH, code="invalid_key")


def act_request(*, action: object, amount: object, version: object) -> None:
    """A betting decision's shape: a known action, a chip amount, the version seen."""
    if version is not None and type(version) is not int:
        raise InvalidRequest(
            f"version must be an integer, got {version!r}.", code="invalid_version"
        )
    if action not in ACTIONS:
        raise InvalidRequest(
            f"Unknown action {action!r}; expected one of {', '.join(ACTIONS)}.",
            code="unknown_action",
        )
    if amount is not None and (type(amount) is not int or amount < 0 or amount >= 2**63):
        raise InvalidRequest(
            f"amount must be a non-negative integer, got {amount!r}.", code="invalid_amount"
        )


def chat_line(text: object) -> str:
    """The chat line as posted: its whitespace folded, refused when empty or too long."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidRequest("Chat text must be a non-empty string.", code="invalid_chat")
    clean = " ".join(text.split())
    if len(clean) > CHAT_MAX_LENGTH:
        raise InvalidRequest(
            f"Chat lines are at most {CHAT_MAX_LENGTH} characters.",
            code="chat_too_long",
            max=CHAT_MAX_LENGTH,
        )
    return clean


def table_settings(
    *,
    variant: str,
    small_blind: int,
    big_blind: int,
    min_buy_in: int,
    max_buy_in: int,
    max_seats: int,
    ante: int,
    rake_bps: int,
    rake_cap: int,
    button_blind: int,
) -> None:
    """A new table's stakes make sense: known variant, chip amounts, small <= big blind,
    2-10 seats, big blind <= min buy-in <= max buy-in, rake 0-100 %."""
    if variant not in Variant.values:
        raise InvalidRequest(f"Unknown variant {variant!r}.", code="invalid_variant")
    for label, value in (
        ("big_blind", big_blind),
        ("min_buy_in", min_buy_in),
        ("max_buy_in", max_buy_in),
    ):
        check_amount(value, name=label)
    for label, value in (
        ("small_blind", small_blind),
        ("ante", ante),
        ("rake_cap", rake_cap),
        ("button_blind", button_blind),
    ):
        if type(value) is not int or value < 0:
            raise InvalidRequest(
                f"{label} must be a non-negative integer.", code="invalid_amount", field=label
            )
    if not small_blind <= big_blind:
        raise InvalidRequest("The small blind cannot exceed the big blind.", code="invalid_stakes")
    if not 2 <= max_seats <= 10:
        raise InvalidRequest("A table has 2 to 10 seats.", code="invalid_seats")
    if max_buy_in < min_buy_in or min_buy_in < big_blind:
        raise InvalidRequest(
            "Buy-in range must satisfy big blind <= min <= max.", code="invalid_buy_in_range"
        )
    if not 0 <= rake_bps <= 10_000:
        raise InvalidRequest("Rake is 0 to 10000 basis points.", code="invalid_rake")
