import pytest

pytestmark = pytest.mark.django_db


def test_register_creates_account_and_token_works(api_client):
    response = api_client.post(
        "/api/v1/auth/register/",
        {"username": "alice", "password": "Tr1cky-horse-88"},
        format="json",
    )
    assert response.status_code == 201, response.content
    assert response.json()["username"] == "alice"

    response = api_client.post(
        "/api/v1/auth/token/", {"username": "alice", "password": "Tr1cky-horse-88"}, format="json"
    )
    assert response.status_code == 200
    token = response.json()["token"]
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    me = api_client.get("/api/v1/auth/me/")
    assert me.status_code == 200
    assert me.json()["username"] == "alice"


def test_register_rejects_weak_password_with_clear_json_error(api_client):
    response = api_client.post(
        "/api/v1/auth/register/", {"username": "bob", "password": "123"}, format="json"
    )
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_password"
    assert "too short" in body["message"]
    assert set(body) == {"code", "message", "extra"}


def test_register_refuses_taken_username(api_client, make_user):
    make_user("carol")
    response = api_client.post(
        "/api/v1/auth/register/",
        {"username": "carol", "password": "Tr1cky-horse-88"},
        format="json",
    )
    assert response.status_code == 409
    assert response.json()["code"] == "username_taken"


def test_register_refuses_invalid_username(api_client):
    response = api_client.post(
        "/api/v1/auth/register/",
        {"username": "no spaces!", "password": "Tr1cky-horse-88"},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_username"


def test_register_reports_missing_fields(api_client):
    response = api_client.post("/api/v1/auth/register/", {}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid"
    assert set(body["extra"]["fields"]) == {"username", "password"}


def test_token_refuses_wrong_password(api_client, make_user):
    make_user("dave")
    response = api_client.post(
        "/api/v1/auth/token/", {"username": "dave", "password": "wrong"}, format="json"
    )
    assert response.status_code == 401
    assert response.json()["code"] == "invalid_credentials"


def test_malformed_json_is_a_typed_400(api_client):
    response = api_client.post(
        "/api/v1/auth/token/", data="{not json", content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["code"] == "malformed_request"


def test_bad_token_is_401_with_code(api_client):
    api_client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    response = api_client.get("/api/v1/auth/me/")
    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"


def test_session_login_reaches_admin(client, make_user):
    staff = make_user("staffer", staff=True)
    staff.is_superuser = True
    staff.save()
    client.force_login(staff)
    assert client.get("/admin/").status_code == 200


def test_anonymous_request_to_protected_endpoint_is_401(api_client):
    response = api_client.get("/api/v1/auth/me/")
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"
