"""The withdrawal review pages (``/staff/withdrawals/``): the list of withdrawals waiting,
and one withdrawal's review with approve / reject and a required reason. Thin: a post
calls one service (which checks the permission, the reason and the four-eyes rule)."""

from __future__ import annotations

import uuid

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse

from backoffice.withdrawals import REVIEW_DAYS, withdrawal_review, withdrawals_waiting
from core.errors import DomainError, Forbidden, NotFound
from staff.roles import staff_has, staff_page
from wallet.models import Withdrawal
from wallet.services import withdrawal_approve, withdrawal_reject

#: Reading withdrawals (support and above); deciding them is the service's own check.
VIEW_PERMISSION = "wallet.view_withdrawal"
DECIDE_PERMISSION = "wallet.approve_withdrawal"


class DecisionForm(forms.Form):
    decision = forms.ChoiceField(choices=[("approve", "Approve"), ("reject", "Reject")])
    reason = forms.CharField(max_length=255, widget=forms.Textarea(attrs={"rows": 2}))


@staff_page(VIEW_PERMISSION)
def withdrawals_page(request: HttpRequest) -> HttpResponse:
    return render(request, "backoffice/withdrawals.html", {"waiting": withdrawals_waiting()})


@staff_page(VIEW_PERMISSION)
def withdrawal_page(request: HttpRequest, withdrawal_id: uuid.UUID) -> HttpResponse:
    form = DecisionForm(request.POST or None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            decide = (
                withdrawal_approve
                if form.cleaned_data["decision"] == "approve"
                else withdrawal_reject
            )
            try:
                decided = decide(
                    withdrawal_id=withdrawal_id,
                    staff_user=request.user,  # type: ignore[arg-type]  # request.user may be anonymous in the stubs; the view's guard lets only a signed-in user here
                    reason=form.cleaned_data["reason"],
                )
            except Forbidden as error:
                raise PermissionDenied(error.message) from None
            except NotFound as error:
                raise Http404(error.message) from None
            except DomainError as error:
                form.add_error(None, error.message)
                status = error.status
            else:
                messages.success(request, f"Withdrawal {decided.get_status_display().lower()}.")
                return HttpResponseRedirect(reverse("backoffice:withdrawal", args=[withdrawal_id]))
        else:
            status = 400
    try:
        review = withdrawal_review(withdrawal_id=withdrawal_id)
    except NotFound as error:
        raise Http404(error.message) from None
    withdrawal = review["withdrawal"]
    first_by_me = withdrawal.first_approved_by_id == request.user.pk
    context = {
        "r": review,
        "w": withdrawal,
        "days": REVIEW_DAYS,
        "form": form,
        "can_decide": staff_has(request.user, DECIDE_PERMISSION)
        and withdrawal.status in Withdrawal.OPEN,
        # The first approver may still reject; approving again is the second person's.
        "may_approve": not first_by_me,
    }
    return render(request, "backoffice/withdrawal.html", context, status=status)
