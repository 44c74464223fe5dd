"""One name per person to the eye: usernames are unique without regard to case and after
NFKC normalisation, mixed-script look-alikes are refused, on the API and the sign-up page,
and the database itself refuses a second account under the same key (a race cannot
create two). The migration that adds that index reports existing clashes and renames
nobody."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.test import Client

PASSWORD = "Tr1cky-horse-88"


def _register(api_client: Any, username: str) -> Any:
    return api_client.post(
        "/api/v1/auth/register/", {"username": username, "password": PASSWORD}, format="json"
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("existing", "newcomer"),
    [
        ("alice", "Alice"),
        ("Bob", "BOB"),
        ("carol", "\uff23\uff21\uff32\uff2f\uff2c"),
        ("ǆemal", "ǅemal"),
    ],
)
def test_a_username_differing_only_by_case_or_width_is_taken(
    api_client, make_user, existing, newcomer
) -> None:
    make_user(existing)
    response = _register(api_client, newcomer)
    assert response.status_code == 409, response.content[:300]
    assert response.json()["code"] == "username_taken"
    assert get_user_model().objects.count() == 1


@pytest.mark.django_db
# A Cyrillic a in paypal, a Cyrillic A in Alice, a Greek alpha in alpha.
@pytest.mark.parametrize("lookalike", ["p\u0430ypal", "\u0410lice", "\u03b1lpha"])
def test_a_username_mixing_scripts_with_look_alike_characters_is_refused(
    api_client, lookalike
) -> None:
    response = _register(api_client, lookalike)
    assert response.status_code == 400, response.content[:300]
    body = response.json()
    assert body["code"] == "invalid_username"
    assert "look" in body["message"]
    assert not get_user_model().objects.exists()


@pytest.mark.django_db
def test_names_in_one_other_script_are_welcome(api_client) -> None:
    assert _register(api_client, "Ирина").status_code == 201
    assert _register(api_client, "Ελένη").status_code == 201


@pytest.mark.django_db
def test_the_sign_up_page_refuses_a_name_taken_in_another_case(make_user) -> None:
    make_user("dave")
    response = Client().post(
        "/signup/", {"username": "Dave", "password": PASSWORD, "confirm": PASSWORD}
    )
    assert response.status_code == 400
    assert "is taken" in response.content.decode()
    assert not get_user_model().objects.filter(username="Dave").exists()


@pytest.mark.django_db
def test_the_database_refuses_a_second_account_under_the_same_key(make_user) -> None:
    make_user("erin")
    with pytest.raises(IntegrityError), transaction.atomic():
        get_user_model().objects.create_user(username="ERIN", password=PASSWORD)


@pytest.mark.django_db(transaction=True)
def test_the_migration_reports_existing_clashes_and_renames_nobody(capsys) -> None:
    users = get_user_model().objects
    call_command("migrate", "core", "zero", verbosity=0)
    try:
        clashing = [users.create_user(username=n) for n in ("frank", "Frank", "FRANK")]
        alone = users.create_user(username="grace")
        capsys.readouterr()
        call_command("migrate", "core", verbosity=0)
        report = capsys.readouterr().out
    finally:
        call_command("migrate", verbosity=0)
    assert "frank" in report and "Frank" in report and "FRANK" in report, report
    assert "grace" not in report
    names = set(users.values_list("username", flat=True))
    assert names >= {"frank", "Frank", "FRANK", "grace"}
    ids = {u.pk for u in clashing} | {alone.pk}
    assert users.filter(pk__in=ids).count() == 4
    # The index holds for everyone else from now on.
    with pytest.raises(IntegrityError), transaction.atomic():
        users.create_user(username="GRACE")
