import pytest

from poker.models import Table

pytestmark = pytest.mark.django_db

BODY = {"name": "High", "variant": "NT", "small_blind": 50, "big_blind": 100,
        "min_buy_in": 2000, "max_buy_in": 20000, "max_seats": 6}  # fmt: skip


def _staff_client(auth_client, make_user):
    return auth_client(make_user(role="admin"))


def test_creating_a_table_twice_with_one_key_gives_one_table(auth_client, make_user):
    staff = _staff_client(auth_client, make_user)
    first = staff.post("/api/v1/tables/", BODY, format="json", HTTP_IDEMPOTENCY_KEY="create-1")
    again = staff.post("/api/v1/tables/", BODY, format="json", HTTP_IDEMPOTENCY_KEY="create-1")
    assert first.status_code == again.status_code == 201
    assert first.json()["id"] == again.json()["id"]
    assert Table.objects.count() == 1


def test_reusing_a_creation_key_for_other_settings_is_refused(auth_client, make_user):
    staff = _staff_client(auth_client, make_user)
    staff.post("/api/v1/tables/", BODY, format="json", HTTP_IDEMPOTENCY_KEY="create-2")
    other = staff.post("/api/v1/tables/", {**BODY, "big_blind": 200, "min_buy_in": 4000},
                       format="json", HTTP_IDEMPOTENCY_KEY="create-2")  # fmt: skip
    assert other.status_code == 409
    assert other.json()["code"] == "idempotency_key_reused"
    assert Table.objects.count() == 1


def test_the_same_key_from_two_staff_members_makes_two_tables(auth_client, make_user):
    for _ in range(2):
        response = _staff_client(auth_client, make_user).post(
            "/api/v1/tables/", BODY, format="json", HTTP_IDEMPOTENCY_KEY="shared"
        )
        assert response.status_code == 201
    assert Table.objects.count() == 2
