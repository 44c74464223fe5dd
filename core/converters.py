"""The path converter of every id in a URL: ``<id:table_id>``.

Django's ``<int:...>`` takes any run of digits, so ``/tables/9223372036854775808/`` reached
the views and a command's SQL failed on PostgreSQL's ``bigint`` (a 500). An id here is what
a ``BigAutoField`` can hold, 1 to 2**63 - 1, written without leading zeros; anything else
does not match the route, and the answer is the typed 404 of an unknown path.
"""

from __future__ import annotations

#: The largest value of a PostgreSQL ``bigint`` (and of a ``BigAutoField``).
ID_MAX = 2**63 - 1


class IdConverter:
    regex = "[1-9][0-9]{0,18}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if number > ID_MAX:
            raise ValueError(f"id {value} is beyond {ID_MAX}")  # Django: the route does not match
        return number

    def to_url(self, value: int) -> str:
        return str(value)
