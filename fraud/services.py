"""Fraud review: what staff do to a case, and how the analysis opens and updates cases.

Every function is keyword-only and writes one log entry per change, in the same
transaction as the change. Actions are idempotent by state: assigning a case to its
assignee, dismissing a dismissed case or confirming a confirmed one changes nothing and
logs nothing (the REST views add ``Idempotency-Key`` replay on top). Players never learn
of a case: nothing here sends them anything; only a confirmed case's freeze is visible to
them, as a refusal to withdraw or play ("under review").

Confirming with ``freeze`` holds each player's withdrawals and table play through the
wallet (``wallet.restrictions``: checked where money moves) and then takes them off
their tables through the table service (they leave now, or when their running hand ends).
Money corrections are ledger transfers with a reason (``wallet.services.correction_create``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from core.errors import Conflict, InvalidRequest, NotFound
from fraud.models import Case, CaseLogEntry
from staff.log import staff_log_record
from staff.roles import staff_require
from wallet.models import Restriction
from wallet.restrictions import restriction_impose
from wallet.services import correction_create, derived_id

log = logging.getLogger(__name__)

#: A dismissed subject comes back (as a new case) only when its score reaches this
#: multiple of the score it was dismissed at: new evidence, not the same noise.
REOPEN_FACTOR = 1.5
#: A live case's score change logged as "rescored" (smaller moves update it silently).
RESCORE_LOGGED = 0.10


class CaseClosed(Conflict):
    default_code = "case_closed"


def _require_reviewer(user: AbstractBaseUser) -> None:
    staff_require(user, "fraud.change_case")


def _reason(text: str, what: str) -> str:
    text = (text or "").strip()
    if not text:
        raise InvalidRequest(f"{what} needs a reason.", code="reason_required")
    return text


def _locked(case_id: int) -> Case:
    case = Case.objects.select_for_update().filter(pk=case_id).first()
    if case is None:
        raise NotFound(f"No case {case_id}.", code="case_not_found")
    return case


#: The staff log's action for each staff change of a case. A money correction is not
#: here: ``correction_create`` writes its line (``correction.create``, the reason naming
#: the case), one line per change.
_STAFF_ACTIONS = {
    CaseLogEntry.Action.ASSIGNED: "assign",
    CaseLogEntry.Action.NOTED: "note",
    CaseLogEntry.Action.REVIEWING: "review",
    CaseLogEntry.Action.DISMISSED: "dismiss",
    CaseLogEntry.Action.CONFIRMED: "confirm",
    CaseLogEntry.Action.FROZEN: "freeze",
}


def _log(case: Case, action: str, by: AbstractBaseUser | None, text: str = "", **data: Any) -> None:
    """The case's own log line and, for a staff member's change, the staff log's."""
    CaseLogEntry.objects.create(case=case, action=action, actor=by, text=text, data=data)
    if by is not None and action in _STAFF_ACTIONS:
        players = data.get("players") or list(case.players.values_list("pk", flat=True))
        staff_log_record(
            actor=by,
            action=f"case.{_STAFF_ACTIONS[action]}",
            target=f"case:{case.pk}",
            # A case is about two or more players: the staff log names one subject (a
            # player's profile also lists the cases involving them).
            subject_id=players[0] if len(players) == 1 else None,
            reason=text,
            data={**data, "players": players},
        )


def _live(case: Case, doing: str) -> None:
    if case.status not in Case.LIVE:
        raise CaseClosed(
            f"Case {case.pk} is {case.status}: it cannot be {doing}.",
            case=case.pk,
            status=case.status,
        )


# --- staff actions -------------------------------------------------------------------------


def case_assign(*, case_id: int, assignee_id: int | None, by: AbstractBaseUser) -> Case:
    """Gives the case to a reviewer (None: to nobody)."""
    _require_reviewer(by)
    assignee = None
    if assignee_id is not None:
        assignee = get_user_model().objects.filter(pk=assignee_id).first()
        if assignee is None or not assignee.is_staff:
            raise InvalidRequest(
                f"User {assignee_id} is not a staff member.", code="invalid_assignee"
            )
    with transaction.atomic(durable=True):
        case = _locked(case_id)
        _live(case, "assigned")
        if case.assignee_id != assignee_id:
            case.assignee = assignee
            case.save(update_fields=["assignee", "updated_at"])
            _log(case, CaseLogEntry.Action.ASSIGNED, by, assignee=assignee_id)
        return case


def case_note(*, case_id: int, text: str, by: AbstractBaseUser) -> Case:
    """Adds a reviewer's note to the case's log (any status: notes explain decisions)."""
    _require_reviewer(by)
    text = (text or "").strip()
    if not text:
        raise InvalidRequest("A note cannot be empty.", code="note_required")
    with transaction.atomic(durable=True):
        case = _locked(case_id)
        _log(case, CaseLogEntry.Action.NOTED, by, text)
        return case


def case_review(*, case_id: int, by: AbstractBaseUser) -> Case:
    """Starts the review: open -> reviewing, assigned to ``by`` when nobody has it."""
    _require_reviewer(by)
    with transaction.atomic(durable=True):
        case = _locked(case_id)
        _live(case, "reviewed")
        if case.status == Case.Status.OPEN:
            case.status = Case.Status.REVIEWING
            if case.assignee_id is None:
                case.assignee = by  # type: ignore[assignment]  # the key is typed as the concrete user model; services take any signed-in user
            case.save(update_fields=["status", "assignee", "updated_at"])
            _log(case, CaseLogEntry.Action.REVIEWING, by, assignee=case.assignee_id)
        return case


def case_dismiss(*, case_id: int, reason: str, by: AbstractBaseUser) -> Case:
    """Closes the case as not fraud; the subject returns only with much stronger evidence."""
    _require_reviewer(by)
    reason = _reason(reason, "Dismissing a case")
    with transaction.atomic(durable=True):
        case = _locked(case_id)
        if case.status == Case.Status.DISMISSED:
            return case
        _live(case, "dismissed")
        case.status = Case.Status.DISMISSED
        case.dismissed_score = case.score
        case.save(update_fields=["status", "dismissed_score", "updated_at"])
        _log(case, CaseLogEntry.Action.DISMISSED, by, reason, score=case.score)
        return case


def case_confirm(*, case_id: int, reason: str, freeze: bool, by: AbstractBaseUser) -> Case:
    """Closes the case as fraud; with ``freeze``, holds every player's withdrawals and table
    play and takes them off their tables. Confirming again may add the freeze."""
    _require_reviewer(by)
    reason = _reason(reason, "Confirming a case")
    with transaction.atomic(durable=True):
        case = _locked(case_id)
        if case.status != Case.Status.CONFIRMED:
            _live(case, "confirmed")
            case.status = Case.Status.CONFIRMED
            case.save(update_fields=["status", "updated_at"])
            _log(case, CaseLogEntry.Action.CONFIRMED, by, reason, score=case.score)
        player_ids = sorted(case.players.values_list("pk", flat=True))
        frozen = []
        if freeze:
            source = f"fraud_case:{case.pk}"
            for player_id in player_ids:
                _, created = restriction_impose(
                    user_id=player_id,
                    kind=Restriction.Kind.FRAUD_FREEZE,
                    source=source,
                    reason=f"Fraud case {case.pk} confirmed: {reason}",
                    by=by,
                )
                if created:
                    frozen.append(player_id)
            if frozen:
                _log(case, CaseLogEntry.Action.FROZEN, by, reason, players=frozen)
    if freeze:
        _unseat(player_ids, case_id=case.pk, by=by)
    return case


def _unseat(player_ids: Sequence[int], *, case_id: int, by: AbstractBaseUser) -> None:
    """Takes frozen players off their tables through the table service (each leave its own
    command; one that fails is logged, and the freeze still refuses their buy-ins)."""
    from poker.commands.seating import table_leave
    from poker.commands.staff import staff_actor
    from poker.models import Seat

    seats = Seat.objects.filter(player_id__in=player_ids).values_list("table_id", "player_id")
    for table_id, player_id in seats:
        try:
            table_leave(
                table_id=table_id,
                player_id=player_id,
                key=f"fraud-freeze:{case_id}:{table_id}:{player_id}",
                actor=staff_actor(by.pk),
            )
        except Exception:  # the freeze holds either way; staff see the seat in the admin
            log.exception(
                "fraud case %s: could not unseat player %s at table %s",
                case_id,
                player_id,
                table_id,
            )


def case_correct(
    *,
    case_id: int,
    from_user_id: int,
    to_user_id: int,
    amount: object,
    currency: str,
    reason: str,
    key: str,
    by: AbstractBaseUser,
) -> Case:
    """Moves money back from a colluder to a victim as a ledger transfer with the reason,
    recorded on the case; idempotent by ``key`` (the same key never moves money twice)."""
    _require_reviewer(by)
    reason = _reason(reason, "A money correction")
    with transaction.atomic(durable=True):
        case = _locked(case_id)
        if case.status != Case.Status.CONFIRMED:
            raise CaseClosed(
                f"Case {case.pk} is {case.status}: only a confirmed case corrects money.",
                code="case_not_confirmed",
                case=case.pk,
                status=case.status,
            )
        if from_user_id not in set(case.players.values_list("pk", flat=True)):
            raise InvalidRequest(
                f"User {from_user_id} is not a player of case {case.pk}.", code="not_in_case"
            )
    correction_id = derived_id("fraud-correction", case_id, key)
    correction = correction_create(
        staff_user=by,
        from_user_id=from_user_id,
        to_user_id=to_user_id,
        amount=amount,
        currency=currency,
        reason=f"Fraud case {case_id}: {reason}",
        correction_id=correction_id,
    )
    with transaction.atomic(durable=True):
        case = _locked(case_id)
        already = case.log.filter(
            action=CaseLogEntry.Action.CORRECTED, data__correction=str(correction_id)
        ).exists()
        if not already:
            _log(
                case,
                CaseLogEntry.Action.CORRECTED,
                by,
                reason,
                correction=str(correction_id),
                transfer=str(correction.transfer_id),
                amount=correction.amount,
                currency=correction.currency,
                from_user=from_user_id,
                to_user=to_user_id,
            )
        return case


# --- the analysis ------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Suspicion:
    """What the analysis says of one pair or ring, for :func:`cases_sync`."""

    players: tuple[int, ...]
    kinds: tuple[str, ...]
    score: float
    ring: bool = False
    hands_together: int = 0
    features: dict[str, Any] = field(default_factory=dict)
    evidence: list[dict[str, Any]] = field(default_factory=list)
    chip_flow: list[dict[str, Any]] = field(default_factory=list)
    pairs: list[dict[str, Any]] = field(default_factory=list)
    context: dict[str, Any] = field(default_factory=dict)

    @property
    def subject(self) -> str:
        ids = "-".join(str(p) for p in sorted(set(self.players)))
        return f"{'ring' if self.ring else 'pair'}:{ids}"


@dataclass(frozen=True, kw_only=True)
class SyncResult:
    opened: int
    updated: int
    skipped: int


def cases_sync(*, suspicions: Iterable[Suspicion]) -> SyncResult:
    """Opens a case for each new suspicion and updates the live case of a known one.

    A confirmed subject is not reopened (it was acted on); a dismissed one comes back as
    a new case only at ``REOPEN_FACTOR`` times the score it was dismissed at.
    """
    opened = updated = skipped = 0
    with transaction.atomic(durable=True):
        for s in suspicions:
            if len(set(s.players)) < 2 or not s.kinds:
                raise InvalidRequest(f"A suspicion needs two players and a kind: {s!r}.")
            live = Case.objects.select_for_update().filter(subject=s.subject, status__in=Case.LIVE)
            case = live.first()
            if case is not None:
                _rescore(case, s)
                updated += 1
                continue
            if _settled(s):
                skipped += 1
                continue
            case = Case.objects.create(subject=s.subject, **_fields(s))
            case.players.set(sorted(set(s.players)))
            _log(case, CaseLogEntry.Action.OPENED, None, score=s.score, kinds=list(s.kinds))
            opened += 1
    return SyncResult(opened=opened, updated=updated, skipped=skipped)


def _fields(s: Suspicion) -> dict[str, Any]:
    return {
        "kinds": list(s.kinds),
        "score": s.score,
        "hands_together": s.hands_together,
        "features": s.features,
        "evidence": s.evidence,
        "chip_flow": s.chip_flow,
        "pairs": s.pairs,
        "context": s.context,
    }


def _rescore(case: Case, s: Suspicion) -> None:
    before, kinds_before = case.score, list(case.kinds)
    for name, value in _fields(s).items():
        setattr(case, name, value)
    case.save()
    moved = abs(s.score - before) >= RESCORE_LOGGED * max(abs(before), 1e-9)
    if moved or kinds_before != list(s.kinds):
        _log(
            case,
            CaseLogEntry.Action.RESCORED,
            None,
            score=s.score,
            before=before,
            kinds=list(s.kinds),
        )


def _settled(s: Suspicion) -> bool:
    """Whether staff already decided this subject and the evidence is not much stronger."""
    last = Case.objects.filter(subject=s.subject).order_by("-id").first()
    if last is None:
        return False
    if last.status == Case.Status.CONFIRMED:
        return True
    return s.score < REOPEN_FACTOR * (last.dismissed_score or 0.0)
