"""Every id in a path that no row can have (0, -1, 2**63 and beyond, text) answers the typed
404 of an unknown path, on every endpoint and method of the schema and on the pages: never
a 500 from the database (``bigint out of range``), never the view's own work."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator

pytestmark = pytest.mark.django_db

#: No row has these ids: the smallest and largest impossible numbers, a negative, text.
BAD_IDS = ["0", "-1", str(2**63), str(2**64 + 5), "00012", "abc"]
HTTP_METHODS = ("get", "put", "patch", "post", "delete")
_PARAMETER = re.compile(r"\{([^}]+)\}")


def _operations() -> list[Any]:
    """(path, method, {path parameter: whether it is an id}) of every operation with one."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    found = []
    for path, operations in schema["paths"].items():
        for method in HTTP_METHODS:
            parameters = {
                p["name"]: p["schema"].get("type") == "integer"
                or p["schema"].get("format") == "uuid"
                for p in operations.get(method, {}).get("parameters", [])
                if p["in"] == "path"
            }
            if parameters:
                found.append(pytest.param(path, method, parameters, id=f"{method} {path}"))
    return found


@pytest.fixture
def staff_client(auth_client: Any, make_user: Any) -> Any:
    """An admin staff member's token: no 401/403 can hide what the path does."""
    return auth_client(make_user(role="admin"))


def test_the_schema_walk_covers_the_ids_of_every_app() -> None:
    paths = {operation.values[0] for operation in _operations()}
    for expected in (
        "/api/v1/tables/{table_id}/sit-out/",
        "/api/v1/hands/{hand_id}/",
        "/api/v1/exports/{job_id}/download/",
        "/api/v1/wallet/withdrawals/{id}/approve/",
        "/api/v1/fraud/cases/{case_id}/review/",
    ):
        assert expected in paths, sorted(paths)


@pytest.mark.parametrize(("path", "method", "parameters"), _operations())
def test_an_impossible_id_in_any_api_path_answers_the_typed_404(
    staff_client: Any, path: str, method: str, parameters: dict[str, bool]
) -> None:
    for parameter, is_id in parameters.items():
        for bad in BAD_IDS:
            url = path.replace("{" + parameter + "}", bad)
            url = _PARAMETER.sub("1", url)  # any other parameter: a possible id
            response = getattr(staff_client, method)(
                url, {}, format="json", HTTP_IDEMPOTENCY_KEY=uuid.uuid4().hex
            )
            assert response.status_code == 404, (method, url, response.content[:300])
            body = response.json()
            assert set(body) == {"code", "message", "extra"}, body
            # An id that cannot exist is no route at all; a name (a gateway) is the view's.
            if is_id:
                assert body["code"] == "not_found", (method, url, body)


@pytest.mark.parametrize(
    "page", ["/tables/{}/", "/hands/{}/", "/staff/players/{}/", "/staff/hands/{}/"]
)
def test_an_impossible_id_in_a_page_address_answers_404(
    client: Any, make_user: Any, page: str
) -> None:
    client.force_login(make_user(role="admin"))
    for bad in BAD_IDS:
        for method in ("get", "post"):
            response = getattr(client, method)(page.format(bad))
            assert response.status_code == 404, (method, page.format(bad), response.status_code)


def test_path_ids_are_documented_as_the_ids_a_row_can_have() -> None:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    operation = schema["paths"]["/api/v1/tables/{table_id}/sit-out/"]["post"]
    (table_id,) = [p for p in operation["parameters"] if p["in"] == "path"]
    assert table_id["schema"] == {
        "type": "integer",
        "format": "int64",
        "minimum": 1,
        "maximum": 2**63 - 1,
    }


@pytest.mark.parametrize(
    "page",
    [
        "/admin/fraud/case/{}/change/",
        "/admin/fraud/case/{}/act/dismiss/",
        "/admin/handhistory/exportjob/{}/download/",
        "/admin/wallet/restriction/{}/lift/",
    ],
)
def test_an_impossible_id_in_an_admin_address_is_no_error(
    client: Any, make_user: Any, page: str
) -> None:
    client.force_login(make_user(role="admin"))
    for bad in BAD_IDS:
        response = client.get(page.format(bad))
        # The admin's own answer to an unknown object: back to the index, or 404.
        assert response.status_code in (302, 404), (page.format(bad), response.status_code)
