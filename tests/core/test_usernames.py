"""One name per person to the eye: usernames are unique without regard to case and after
NFKC normalisation, mixed-script look-alikes are refused, on the API and the sign-up page,
and the database itself refuses a second account under the same key (a race cannot
create two). The migration that adds that index reports existing clashes and renames
nobody."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.db.models.signals import post_save
from django.test import Client

from core.models import UsernameSkeleton
from core.signals import username_skeleton_keep

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


@contextlib.contextmanager
def skeletons_unkept() -> Iterator[None]:
    """Accounts made while core's tables are unapplied (no skeleton table to write)."""
    user_model = get_user_model()
    post_save.disconnect(sender=user_model, dispatch_uid="username_skeleton")
    try:
        yield
    finally:
        post_save.connect(
            username_skeleton_keep, sender=user_model, dispatch_uid="username_skeleton"
        )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("existing", "newcomer"),
    [
        ("coco", "\u0441\u043e\u0441\u043e"),  # wholly Cyrillic
        ("paypal", "paypa1"),
        ("bob0", "BOBO"),
        ("\u0430\u0441\u0435", "ace"),  # a Cyrillic name first, the Latin one after
    ],
)
def test_a_name_in_any_script_that_looks_like_a_taken_one_is_taken(
    api_client, make_user, existing, newcomer
) -> None:
    make_user(existing)
    response = _register(api_client, newcomer)
    assert response.status_code == 409, response.content[:300]
    body = response.json()
    assert body["code"] == "username_taken" and "looks the same" in body["message"]
    assert get_user_model().objects.count() == 1


@pytest.mark.django_db
def test_the_database_refuses_a_look_alike_made_around_the_check(make_user) -> None:
    make_user("coco")
    with pytest.raises(IntegrityError), transaction.atomic():
        get_user_model().objects.create_user(username="\u0441\u043e\u0441\u043e")


@pytest.mark.django_db
def test_a_renamed_account_is_held_to_its_new_look(make_user) -> None:
    make_user("coco")
    other = make_user("dora")
    other.username = "\u0441\u043e\u0441\u043e"
    with pytest.raises(IntegrityError), transaction.atomic():
        other.save()
    other.username = "dorothy"
    other.save()
    assert UsernameSkeleton.objects.get(user=other).skeleton == "dorothy"


@pytest.mark.django_db(transaction=True)
def test_the_skeleton_migration_reports_look_alikes_and_renames_nobody(capsys) -> None:
    users = get_user_model().objects
    call_command("migrate", "core", "0002", verbosity=0)
    try:
        with skeletons_unkept():
            latin = users.create_user(username="coco")
            cyrillic = users.create_user(username="\u0441\u043e\u0441\u043e")
            alone = users.create_user(username="dan")
        capsys.readouterr()
        call_command("migrate", "core", verbosity=0)
        report = capsys.readouterr().out
    finally:
        call_command("migrate", verbosity=0)
    assert "look-alike" in report and repr(cyrillic.username) in report, report
    assert "'dan'" not in report
    assert users.filter(pk__in=[latin.pk, cyrillic.pk, alone.pk]).count() == 3
    assert set(UsernameSkeleton.objects.values_list("user_id", flat=True)) == {latin.pk, alone.pk}
    with pytest.raises(IntegrityError), transaction.atomic():
        users.create_user(username="c0co")


@pytest.mark.django_db(transaction=True)
def test_the_migration_reports_existing_clashes_and_renames_nobody(capsys) -> None:
    users = get_user_model().objects
    call_command("migrate", "core", "zero", verbosity=0)
    try:
        with skeletons_unkept():
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
