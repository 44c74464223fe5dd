"""A password hasher for the test process only.

Django's PBKDF2 costs about half a second a password on this machine: the cost that slows
an attacker who guesses. The suite creates thousands of users, so its own process hashes
with one iteration under the same algorithm name. The servers the tests start keep
Django's hashers: they verify these hashes (the iteration count is stored in the hash) and
upgrade a hash to the full count at its first login, as they would for any old hash.
"""

from __future__ import annotations

from django.contrib.auth.hashers import PBKDF2PasswordHasher


class OneIterationPBKDF2(PBKDF2PasswordHasher):
    iterations = 1
