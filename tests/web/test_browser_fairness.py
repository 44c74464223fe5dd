"""fairness.js in headless Chromium: its poker-deck-v1 deals the same decks as the engine's
``shuffle_deck``, and the /fairness/?hand=<id> panel verifies a hand where everyone showed
(and keeps the seed of a folded hand secret, saying why).

Uses the browser set-up of ``test_browser_table`` (``manage.py serve`` on the test database).
"""

import json

import pytest

from handhistory.exports.records import hand_records
from poker.commands.play import table_act
from poker.engine.cards import format_card
from poker.engine.deck import commitment, shuffle_deck
from poker.engine.privacy import seed_may_be_public
from poker.engine.variants import get_variant
from poker.fairness import client_seed_set
from poker.models import Table
from poker.selectors import table_view
from tests.poker import conftest as poker_fixtures
from tests.support.browser import DESKTOP, PASSWORD, TIMEOUT_MS, browser_session
from tests.support.fairness import example, fold_current_hand, sit
from tests.support.poker import actor_for, key
from tests.support.server import Server

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

player = poker_fixtures.player
table = poker_fixtures.table

#: (seed, variant, client seeds, nonce): empty and several client seeds, non-ASCII text
#: (UTF-8 lengths), a nonce above 2**32, and the 36-card short deck.
VECTORS = [
    (bytes(32), "NT", [], 0),
    (bytes(range(32)), "NT", ["alice", "", "bob's seed ~!"], 7),
    (bytes(range(100, 116)), "NS", ["ünïcödé ♠", "x" * 64], 2**40 + 5),
    (bytes([255] * 32), "PO", ["a", "bc"], 4_294_967_297),
]


def _play_to_showdown(t, users):
    """Checks or calls until a hand ends where every player dealt in showed; its id."""
    by_id = {u.pk: u for u in users}
    for _ in range(40):
        hand_id = Table.objects.get(pk=t.pk).current_hand_id
        while Table.objects.get(pk=t.pk).current_hand_id == hand_id:
            view = table_view(table_id=t.pk, viewer_id=None)
            pid = next(s["user_id"] for s in view["seats"]
                       if s["seat"] == view["hand"]["actor_seat"])  # fmt: skip
            legal = table_view(table_id=t.pk, viewer_id=pid)["you"]["legal_actions"]["actions"]
            table_act(table_id=t.pk, player_id=pid, key=key(), actor=actor_for(by_id[pid]),
                      action="check" if "check" in legal else "call")  # fmt: skip
        (record,) = hand_records([hand_id])
        if seed_may_be_public(record.events):
            return hand_id
    raise AssertionError("no hand reached a showdown where everyone showed")


def _open(browser, base, user, path, errors):
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{base}/login/?next={path}")
    page.get_by_test_id("login-username").fill(user.username)
    page.get_by_test_id("login-password").fill(PASSWORD)
    page.get_by_test_id("login-submit").click()
    page.wait_for_url(f"{base}{path}")
    return page


def test_fairness_js_verifies_deals_like_the_engine(table, player, monkeypatch):
    from playwright.sync_api import expect

    t = table()
    users = [player(), player()]
    client_seed_set(player_id=users[0].pk, seed="the browser test")
    sit(t, users)
    shown = _play_to_showdown(t, users)
    folded = fold_current_hand(t)
    server, errors = Server(), []
    with browser_session(server, monkeypatch) as (browser, pages):
        base = f"http://127.0.0.1:{server.port}"
        page = _open(browser, base, users[0], f"/fairness/?hand={shown}", errors)
        pages.append(page)

        # The page's deferred scripts may still be loading on a busy machine.
        page.wait_for_function("() => window.pokerDeckV1 !== undefined")
        documented = example()
        vectors = [*VECTORS, (bytes.fromhex(documented["server_seed"]), "NS",
                              json.loads(documented["client_seeds"]), 0)]  # fmt: skip
        for seed, variant, client_seeds, nonce in vectors:
            cards = list(get_variant(variant).deck)
            got = page.evaluate(
                "([s, c, cs, n]) => window.pokerDeckV1.shuffle(s, c, cs, n)",
                [seed.hex(), cards, client_seeds, nonce],
            )
            assert got == list(shuffle_deck(seed, cards, client_seeds, nonce)), variant
            assert page.evaluate("(s) => window.pokerDeckV1.commitment(s)", seed.hex()) == (
                commitment(seed)
            )

        panel = page.get_by_test_id("fairness-panel")
        expect(panel.get_by_test_id("fairness-client-seeds")).to_contain_text("the browser test")
        panel.get_by_test_id("fairness-verify").click()
        expect(panel.get_by_test_id("fairness-verdict")).to_contain_text("Verified")
        expect(panel.get_by_test_id("fairness-verdict")).to_contain_text("in your browser")
        assert page.evaluate(
            "[...document.styleSheets].some(s => (s.href || '').endsWith('/fairness.css')"
            " && s.cssRules.length > 0)"
        ), "fairness.js links its stylesheet, so any page that mounts the panel styles it"

        # The same check through the form, with the endpoint standing in for WebCrypto.
        seed, variant, client_seeds, nonce = VECTORS[2]
        page.add_init_script("Object.defineProperty(window.crypto, 'subtle', {value: undefined})")
        page.goto(f"{base}/fairness/")
        page.get_by_test_id("verify-seed").fill(seed.hex())
        page.get_by_test_id("verify-commitment").fill(commitment(seed))
        page.get_by_test_id("verify-client-seeds").fill("\n".join(client_seeds))
        page.get_by_test_id("verify-nonce").fill(str(nonce))
        page.get_by_test_id("verify-variant").select_option(variant)
        page.get_by_test_id("verify-submit").click()
        verdict = page.get_by_test_id("verify-form-result")
        expect(verdict.get_by_test_id("fairness-verdict")).to_contain_text("checked by the server")
        deck = shuffle_deck(seed, get_variant(variant).deck, client_seeds, nonce)
        expect(verdict.get_by_test_id("fairness-deck")).to_have_text(
            " ".join(format_card(c) for c in deck)
        )

        page = _open(browser, base, users[1], f"/fairness/?hand={folded}", errors)
        pages.append(page)
        panel = page.get_by_test_id("fairness-panel")
        expect(panel.get_by_test_id("fairness-withheld")).to_contain_text("not every player")
        expect(panel.get_by_test_id("fairness-server-seed")).to_have_text("secret")
        assert panel.get_by_test_id("fairness-verify").count() == 0

        page.get_by_test_id("client-seed-input").fill("set in the page")
        page.get_by_test_id("client-seed-save").click()
        expect(page.get_by_test_id("client-seed-status")).to_contain_text("Saved")
    assert errors == []
    from poker.fairness import client_seed_get

    assert client_seed_get(player_id=users[1].pk) == "set in the page"
