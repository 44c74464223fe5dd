"""Production security: ``check --deploy`` is clean with the documented production
environment, and every page sends a Content-Security-Policy that allows no inline script.

(That the web table and the API docs actually work under that policy is checked in a real
browser: tests/web/test_browser_csp.py.)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]

# The README's Production section, and nothing else: no switch of the test environment
# (with_services turns the https redirect off for the plain-http suite) may leak in.
_PASSTHROUGH = ("PATH", "HOME", "LANG", "PYTHONPATH", "VIRTUAL_ENV")


def _production_env() -> dict[str, str]:
    db = settings.DATABASES["default"]
    env = {k: os.environ[k] for k in _PASSTHROUGH if k in os.environ}
    env.update(
        DEBUG="0",
        SECRET_KEY="a-long-random-production-secret-" + "Qx7vT2kLm9pZ4rW8sY3nB6cD1fG5hJ0e",
        ALLOWED_HOSTS="poker.example.com",
        CSRF_TRUSTED_ORIGINS="https://poker.example.com",
        DATABASE_URL=f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        REDIS_URL=settings.REDIS_URL,
    )
    return env


def test_check_deploy_passes_with_no_warning_in_the_documented_production_environment():
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=_production_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "no issues" in output, output


def test_production_redirects_plain_http_to_https_but_not_the_health_probe():
    code = (
        "from django.conf import settings as s; "
        "print(s.SECURE_SSL_REDIRECT, s.SECURE_REDIRECT_EXEMPT, s.SECURE_HSTS_SECONDS)"
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=ROOT,
        env=_production_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[-2] == "True ['^healthz$'] 31536000"


def _policy(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    directives = {}
    for part in header.split(";"):
        name, *values = part.split()
        directives[name] = values
    return directives


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/login/", "/api/docs/"])
def test_every_page_sends_a_content_security_policy_without_inline_scripts(client, path):
    response = client.get(path)
    assert response.status_code == 200
    policy = _policy(response)
    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]


@pytest.mark.django_db
def test_the_table_page_sends_the_content_security_policy(client):
    from poker.commands.seating import table_create

    table = table_create(
        name="CSP", variant="NT", small_blind=50, big_blind=100, min_buy_in=2_000,
        max_buy_in=20_000, max_seats=6,
    )  # fmt: skip
    response = client.get(f"/tables/{table.pk}/")
    assert response.status_code == 200
    assert _policy(response)["script-src"] == ["'self'"]
