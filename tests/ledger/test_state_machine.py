"""Hypothesis drives random deposits, holds, posts, voids, transfers and retries against
the ledger and an in-memory model: they always agree and the audit stays clean."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, rule

from ledger.audit import ledger_audit
from ledger.errors import HoldAlreadyResolved, InsufficientFunds, LedgerError, TransferConflict
from ledger.models import Account, Transfer
from ledger.posting import PendingResolution, TransferRequest
from ledger.services import ledger_post_transfers
from tests.support.ledger import new_account

ACCOUNTS = 4
amounts = st.integers(min_value=1, max_value=400)


class LedgerMachine(RuleBasedStateMachine):
    holds = Bundle("holds")
    done = Bundle("done")

    def __init__(self) -> None:
        super().__init__()
        self.issuer = new_account(must_not_overdraw=False)
        self.accounts = [new_account() for _ in range(ACCOUNTS)]
        self.balance = {a.pk: 0 for a in [self.issuer, *self.accounts]}
        self.held = dict.fromkeys(self.balance, 0)
        self.pending: dict[uuid.UUID, tuple[int, int, int]] = {}
        self.resolved: set[uuid.UUID] = set()

    def _post(self, legs):
        return ledger_post_transfers(transfers=legs)

    def _leg(self, debit, credit, amount, **kw):
        return TransferRequest(
            id=kw.pop("id", uuid.uuid4()), debit_account_id=debit, credit_account_id=credit,
            amount=amount, currency="EUR", code="sm", **kw,
        )  # fmt: skip

    def _available(self, pk):
        return self.balance[pk] - self.held[pk]

    @rule(target=done, who=st.integers(0, ACCOUNTS - 1), amount=amounts)
    def deposit(self, who, amount):
        leg = self._leg(self.issuer.pk, self.accounts[who].pk, amount)
        self._post([leg])
        self.balance[self.issuer.pk] -= amount
        self.balance[self.accounts[who].pk] += amount
        return leg

    @rule(
        src=st.integers(0, ACCOUNTS - 1),
        dst=st.integers(0, ACCOUNTS - 1),
        amounts=st.lists(amounts, min_size=1, max_size=3),
    )
    def linked_transfers(self, src, dst, amounts):
        if src == dst:
            return
        debit, credit = self.accounts[src].pk, self.accounts[dst].pk
        legs = [self._leg(debit, credit, a) for a in amounts]
        if self._available(debit) < sum(amounts):
            with pytest.raises(InsufficientFunds):
                self._post(legs)
            return
        self._post(legs)
        self.balance[debit] -= sum(amounts)
        self.balance[credit] += sum(amounts)

    @rule(target=holds, src=st.integers(0, ACCOUNTS - 1), amount=amounts)
    def hold(self, src, amount):
        debit, credit = self.accounts[src].pk, self.accounts[(src + 1) % ACCOUNTS].pk
        leg = self._leg(debit, credit, amount, pending=True)
        if self._available(debit) < amount:
            with pytest.raises(InsufficientFunds):
                self._post([leg])
            return None
        self._post([leg])
        self.held[debit] += amount
        self.pending[leg.id] = (debit, credit, amount)
        return leg.id

    @rule(hold=holds, void=st.booleans(), part=st.floats(0.01, 1.0))
    def resolve(self, hold, void, part):
        if hold is None:
            return
        debit, credit, amount = self.pending[hold]
        posted = max(1, int(amount * part))
        request = PendingResolution(
            id=uuid.uuid4(), pending_id=hold, void=void, amount=None if void else posted
        )
        if hold in self.resolved:
            with pytest.raises(HoldAlreadyResolved):
                self._post([request])
            return
        self._post([request])
        self.resolved.add(hold)
        self.held[debit] -= amount
        if not void:
            self.balance[debit] -= posted
            self.balance[credit] += posted

    @rule(leg=done)
    def retry_is_a_replay(self, leg):
        assert self._post([leg]).replayed

    @rule(leg=done, extra=amounts)
    def reuse_with_other_content_is_a_conflict(self, leg, extra):
        changed = self._leg(
            leg.debit_account_id, leg.credit_account_id, leg.amount + extra, id=leg.id
        )
        with pytest.raises(TransferConflict):
            self._post([changed])

    @rule(src=st.integers(0, ACCOUNTS - 1), amount=st.sampled_from([0, -1, 2**63, "5", 5.0]))
    def bad_input_writes_nothing(self, src, amount):
        before = Transfer.objects.count()
        with pytest.raises(LedgerError):
            self._post([self._leg(self.accounts[src].pk, self.issuer.pk, amount)])
        assert Transfer.objects.count() == before

    @invariant()
    def model_and_ledger_agree(self):
        stored = {
            a.pk: (a.balance, a.held) for a in Account.objects.filter(pk__in=list(self.balance))
        }
        assert stored == {pk: (self.balance[pk], self.held[pk]) for pk in self.balance}

    def teardown(self):
        report = ledger_audit()
        assert report.ok, report.render()


LedgerMachine.TestCase.settings = settings(
    max_examples=25,
    stateful_step_count=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@pytest.mark.django_db
def test_the_ledger_agrees_with_an_in_memory_model():
    LedgerMachine.TestCase().runTest()
