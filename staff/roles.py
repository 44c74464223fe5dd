"""Staff roles: which group may do what, and the one check every staff change goes through.

Four groups, least privilege first (created by migration ``0002_staff_roles``):

* ``support``: reads players, tables, hands, the ledger and the wallet's records, the
  staff log and the reports (view permissions only);
* ``finance``: support + approve/reject withdrawals, staff adjustments and corrections;
* ``risk``: support + fraud cases (view, act: assign, review, dismiss, confirm, freeze,
  correct money through a correction), lifting holds on accounts, setting a player's
  KYC status and watching a live table with every card (``poker.full_view``);
* ``admin``: every permission (kept whole after later migrations, see ``apps.py``).

A service that staff call checks the permission itself with :func:`staff_require` before
it writes anything, so the admin, the REST API and the staff pages cannot disagree about
who may do what. Superusers pass every check (Django's ``has_perm``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import wraps
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from rest_framework.permissions import BasePermission

from core.errors import Forbidden

#: ``view_*`` of these apps (and of ``auth.user``): what support reads.
SUPPORT_VIEW_APPS = ("core", "ledger", "wallet", "poker", "handhistory", "staff", "tournaments")

#: Extra permissions per role, as ``app_label.codename``, on top of support's.
FINANCE_PERMISSIONS = (
    "wallet.approve_withdrawal",
    "wallet.add_adjustment",
    "wallet.add_correction",
)
RISK_PERMISSIONS = (
    "fraud.view_case",
    "fraud.view_caselogentry",
    "fraud.view_analysisrun",
    "fraud.change_case",
    "wallet.lift_restriction",
    "wallet.add_kycstatus",
    "wallet.change_kycstatus",
    # A confirmed case's money correction is a wallet correction (``fraud.services.case_correct``).
    "wallet.add_correction",
    # The live staff view of a table with every card (``poker.full_view``).
    "poker.watch_every_card",
)
ROLES = ("support", "finance", "risk", "admin")

#: What each read of the back office needs (the staff pages and reports).
REPORTS_PERMISSION = "staff.view_staffaction"
HAND_FULL_PERMISSION = "handhistory.view_hand"
#: The live every-card view of a running table (risk, admin): ``poker.full_view``.
TABLE_WATCH_PERMISSION = "poker.watch_every_card"


def role_codenames(role: str, available: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
    """The ``(app_label, codename)`` pairs of ``role`` among the ``available`` ones.

    >>> sorted(role_codenames("finance", [("wallet", "view_deposit"), ("wallet", "approve_withdrawal"),
    ...                                  ("fraud", "view_case")]))
    [('wallet', 'approve_withdrawal'), ('wallet', 'view_deposit')]
    """
    available = set(available)
    if role == "admin":
        return available
    support = {
        (app, code)
        for app, code in available
        if code.startswith("view_")
        and (app in SUPPORT_VIEW_APPS or (app, code) == ("auth", "view_user"))
    }
    extra = {"support": (), "finance": FINANCE_PERMISSIONS, "risk": RISK_PERMISSIONS}[role]
    wanted = {(p.split(".")[0], p.split(".")[1]) for p in extra}
    return support | (wanted & available)


def roles_sync(group_model: Any, permission_model: Any) -> None:
    """Creates the role groups and gives each its permissions (adds, never removes).

    Takes the models so the data migration can pass its historical ones.
    """
    by_key = {
        (p.content_type.app_label, p.codename): p
        for p in permission_model.objects.select_related("content_type")
    }
    for role in ROLES:
        group, _ = group_model.objects.get_or_create(name=role)
        group.permissions.add(*(by_key[key] for key in role_codenames(role, by_key)))


def staff_has(user: AbstractBaseUser | AnonymousUser | None, permission: str) -> bool:
    """Whether ``user`` is an active staff member (or a superuser) holding ``permission``."""
    if user is None or not getattr(user, "is_active", False):
        return False
    if getattr(user, "is_superuser", False):
        return True
    return bool(getattr(user, "is_staff", False) and user.has_perm(permission))  # type: ignore[union-attr]  # has_perm is called only after is_active and is_staff were read from the same user


def staff_require(user: AbstractBaseUser | AnonymousUser | None, permission: str) -> None:
    """Raises ``Forbidden`` (``permission_denied``, 403) unless ``user`` is staff with
    ``permission``. Services call it first, before they read or write anything."""
    if not staff_has(user, permission):
        raise Forbidden(
            f"This needs the staff permission {permission!r}.",
            code="permission_denied",
            permission=permission,
        )


def staff_permission(permission: str) -> type[BasePermission]:
    """A DRF permission class: staff holding ``permission`` (403 ``permission_denied``
    to anyone else, as the services answer)."""

    class StaffPermission(BasePermission):
        message = f"This needs the staff permission {permission!r}."

        def has_permission(self, request: Any, view: Any) -> bool:
            return staff_has(request.user, permission)

    return StaffPermission


def staff_page(
    permission: str,
) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """A staff page's guard: anonymous visitors go to the login page, everyone else without
    ``permission`` gets 403 (the two-factor check is ``backoffice.otp.StaffOtpMiddleware``)."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            if not staff_has(request.user, permission):
                raise PermissionDenied(f"This page needs the staff permission {permission!r}.")
            return view(request, *args, **kwargs)

        return guarded

    return decorate
