"""Emptying the database after a transactional test, in a fraction of Django's time.

Django's ``TransactionTestCase`` runs ``flush`` after each test: TRUNCATE of every table,
then ``post_migrate`` again, which rebuilds the content types, the permissions and the
staff roles (``staff.apps``) -- about a second a test here, most of it ``post_migrate``,
and with hundreds of such tests the largest single cost of the suite.

:func:`empty_database` truncates only the tables that hold rows and keeps the tables
``post_migrate`` fills (:data:`REBUILT_TABLES`) when the test left them exactly as they
were before it (the same rows: a fingerprint of their contents). When it cannot (a test
changed a role's permissions, say), Django's flush runs as before. Either way the next
test starts from the same database: empty, with the content types, permissions, roles and
tournament structure templates ``post_migrate`` makes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connections
from django.test import TransactionTestCase

#: The tables ``post_migrate`` fills after a flush (the staff roles, the shipped structure
#: templates of tournaments).
REBUILT_TABLES = (
    "django_content_type",
    "auth_permission",
    "auth_group",
    "auth_group_permissions",
    "tournaments_structuretemplate",
)

#: Per database alias: the fingerprint of REBUILT_TABLES as the tests may find them.
_expected: dict[str, list[tuple[str, str]]] = {}


def _fingerprint(connection: Any) -> list[tuple[str, str]]:
    qn = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(
            " UNION ALL ".join(
                f"SELECT '{t}', md5(coalesce(string_agg(r::text, ',' ORDER BY r::text), ''))"
                f" FROM {qn(t)} r"
                for t in REBUILT_TABLES
            )
        )
        return cursor.fetchall()


def empty_database(alias: str) -> bool:
    """Truncates every table of ``alias`` that holds rows, but those of REBUILT_TABLES;
    False (nothing done) when those changed since the test began."""
    connection = connections[alias]
    if connection.vendor != "postgresql" or _fingerprint(connection) != _expected.get(alias):
        return False
    _truncate(connection, _holding(connection) - set(REBUILT_TABLES))
    return True


def _truncate(connection: Any, tables: set[str]) -> None:
    if tables:
        qn = connection.ops.quote_name
        with connection.cursor() as cursor:
            cursor.execute(f"TRUNCATE {', '.join(qn(t) for t in sorted(tables))} CASCADE")


def _holding(connection: Any) -> set[str]:
    """The tables of ``connection`` that hold rows."""
    qn = connection.ops.quote_name
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join(f"EXISTS (SELECT 1 FROM {qn(t)})" for t in tables))
        return {t for t, has_rows in zip(tables, cursor.fetchone(), strict=True) if has_rows}


@contextmanager
def module_data(alias: str = "default") -> Iterator[None]:
    """Around a module-scoped fixture that commits its data: afterwards the tables that
    were empty before it are emptied, sequences kept (an id is never given twice in a run:
    the table service keeps working sets by table id in memory), and nothing else: no
    flush, no ``post_migrate`` (PostgreSQL, as the suite)."""
    connection = connections[alias]
    before = _holding(connection)
    yield
    _truncate(connection, _holding(connection) - before)
    _expected[alias] = _fingerprint(connection)


def install() -> None:
    """Makes every plain transactional test (no ``available_apps``, no serialized
    rollback, no sequence reset) end with :func:`empty_database`, and Django's flush
    only where that declines."""
    django_setup = TransactionTestCase.__dict__["_fixture_setup"].__func__  # a classmethod
    django_teardown = TransactionTestCase._fixture_teardown

    def plain(case: TransactionTestCase | type[TransactionTestCase]) -> bool:
        return (
            case.available_apps is None
            and not case.serialized_rollback
            and not case.reset_sequences
        )

    def _fixture_setup(case: type[TransactionTestCase]) -> None:
        django_setup(case)
        if plain(case):
            for alias in case._databases_names(include_mirrors=False):
                if alias not in _expected and connections[alias].vendor == "postgresql":
                    _expected[alias] = _fingerprint(connections[alias])

    def _fixture_teardown(case: TransactionTestCase) -> None:
        aliases = case._databases_names(include_mirrors=False)
        if plain(case) and all(empty_database(alias) for alias in aliases):
            return
        django_teardown(case)
        # post_migrate made the rebuilt tables anew: that is what the next tests find.
        for alias in aliases:
            if connections[alias].vendor == "postgresql":
                _expected[alias] = _fingerprint(connections[alias])

    TransactionTestCase._fixture_setup = classmethod(_fixture_setup)  # type: ignore[method-assign]  # the one patch of Django here: see the module docstring
    TransactionTestCase._fixture_teardown = _fixture_teardown  # type: ignore[method-assign]  # likewise
