"""PHH: golden replays of real hands, exact decimal amounts, the writer and the CLI."""

from __future__ import annotations

import io
import json
import random
from decimal import Decimal
from pathlib import Path

import pytest

from poker.engine.deck import FairDeck
from poker.engine.game import HandConfig, start_hand
from poker.engine.phh import PhhError, dumps, load, loads, replay_hand, to_file_units
from poker.engine.phh_cli import main
from tests.poker.engine.engine_helpers import random_hand

PHH = Path(__file__).resolve().parents[3] / ".." / "shared" / "phh"

# Finishing stacks of the famous hands (they record none), as computed by pokerkit 0.6.
FAMOUS = {
    "antonius-blom-2009.phh": (Decimal("1937923.75"), 0),
    "dwan-ivey-2009.phh": (572100, 1997500, 1109500),
    "phua-xuan-2019.phh": (489000, 226000, 684000, 400000, 0, 198000),
}


def shared(name: str) -> Path:
    folder = PHH / name
    assert folder.is_dir(), (
        f"golden hand histories missing: {folder.resolve()} (the repository expects the "
        "shared/ folder beside it)"
    )
    return folder


def test_every_pluribus_hand_replays_to_its_exact_finishing_stacks() -> None:
    files = sorted(shared("pluribus-sample").glob("*.phh"))
    assert len(files) == 80
    wrong = []
    for path in files:
        hand = load(path)
        state, _ = replay_hand(hand)
        if state.stacks != hand.finishing_stacks:
            wrong.append((path.name, state.stacks, hand.finishing_stacks))
    assert not wrong


def test_famous_hands_replay_to_the_stacks_pokerkit_computes() -> None:
    for path in sorted(shared("famous").glob("*.phh")):
        hand = load(path)
        state, _ = replay_hand(hand)
        stacks = tuple(to_file_units(s, hand.scale) for s in state.stacks)
        assert stacks == FAMOUS[path.name], path.name


def test_famous_hands_match_pokerkit_live() -> None:
    import pokerkit

    for path in sorted(shared("famous").glob("*.phh")):
        states = list(pokerkit.HandHistory.loads(path.read_text()))
        assert tuple(states[-1].stacks) == FAMOUS[path.name]


def test_decimal_amounts_are_scaled_exactly_to_integer_chips() -> None:
    hand = load(shared("famous") / "antonius-blom-2009.phh")
    assert hand.scale == 100
    assert hand.config.starting_stacks == (125945025, 67847350)
    assert hand.config.blinds_or_straddles == (50000, 100000)


def test_unknown_hole_cards_are_allowed_for_players_who_never_show() -> None:
    state, _ = replay_hand(load(shared("famous") / "dwan-ivey-2009.phh"))
    assert state.hole_cards[1] == (-1, -1)
    assert state.is_over


def test_players_show_before_the_run_out_when_all_in() -> None:
    hand = load(shared("famous") / "antonius-blom-2009.phh")
    _, events = replay_hand(hand)
    names = [type(e).__name__ for e in events]
    assert names.index("CardsShown") < max(i for i, n in enumerate(names) if n == "BoardDealt")


@pytest.mark.parametrize("variant", ["NT", "FT", "PO", "NS"])
def test_written_hands_read_back_and_replay_to_the_same_stacks(variant: str) -> None:
    rng = random.Random(variant)
    for _ in range(25):
        n = rng.randint(2, 6)
        cfg = HandConfig(
            variant=variant,
            starting_stacks=tuple(rng.randint(50, 2000) for _ in range(n)),
            blinds_or_straddles=(5, 10) + (0,) * (n - 2),
            antes=tuple(rng.choice((0, 1)) for _ in range(n)),
            min_bet=10 if variant != "FT" else 0,
            small_bet=10 if variant == "FT" else 0,
            big_bet=20 if variant == "FT" else 0,
        )
        state, events = start_hand(cfg, FairDeck())
        state, events = random_hand(state, rng, events)
        text = dumps(events)
        hand = loads(text)
        assert hand.config == cfg
        replayed, again = replay_hand(hand)
        assert replayed.stacks == state.stacks == hand.finishing_stacks
        assert dumps(again) == text


def test_a_public_export_hides_hole_cards_never_shown() -> None:
    hand = load(shared("pluribus-sample") / "0.phh")
    _, events = replay_hand(hand)
    text = dumps(events, hide_unshown=True)
    assert "d dh p1 ????" in text and "3c9s" not in text
    assert replay_hand(loads(text))[0].stacks == hand.finishing_stacks


def test_written_amounts_keep_the_file_units() -> None:
    hand = load(shared("famous") / "antonius-blom-2009.phh")
    _, events = replay_hand(hand)
    text = dumps(events, scale=hand.scale)
    assert "starting_stacks = [1259450.25, 678473.5]" in text
    assert "finishing_stacks = [1937923.75, 0]" in text
    assert replay_hand(loads(text))[0].stacks == replay_hand(hand)[0].stacks


def test_bad_hand_histories_raise_typed_errors() -> None:
    with pytest.raises(PhhError) as info:
        loads('variant = "XX"')
    assert info.value.code == "phh_unsupported_variant"
    text = (shared("pluribus-sample") / "0.phh").read_text().replace("'p3 f'", "'p4 f'")
    with pytest.raises(PhhError) as info:
        replay_hand(loads(text))
    assert info.value.code == "not_your_turn" and "p4 f" in info.value.message


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), out=out, err=err)
    return status, out.getvalue(), err.getvalue()


def test_cli_prints_one_json_object_per_hand_in_file_units() -> None:
    status, out, _ = run_cli("--json", str(shared("famous")))
    assert status == 0
    lines = [json.loads(line, parse_float=Decimal) for line in out.splitlines()]
    assert [Path(x["path"]).name for x in lines] == sorted(FAMOUS)
    assert lines[0]["finishing_stacks"] == [Decimal("1937923.75"), 0]


def test_cli_check_passes_on_the_pluribus_sample() -> None:
    status, out, err = run_cli("--json", "--check", str(shared("pluribus-sample")))
    assert status == 0
    assert all(json.loads(line)["match"] for line in out.splitlines())
    assert err.startswith("80 hands: 80 matched, 0 mismatched, 0 errors")


def test_cli_check_fails_on_a_mismatch_and_on_errors(tmp_path: Path) -> None:
    good = (shared("pluribus-sample") / "0.phh").read_text()
    (tmp_path / "a.phh").write_text(good.replace("10150", "10151"))
    status, out, _ = run_cli("--check", str(tmp_path))
    assert status == 1 and "MISMATCH" in out
    (tmp_path / "a.phh").write_text(good.replace("'p3 f'", "'p3 x'"))
    status, out, _ = run_cli("--json", str(tmp_path))
    assert status == 1 and "error" in json.loads(out)
