"""Account services: registration and API tokens."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth import authenticate, get_user_model, password_validation
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from rest_framework.authtoken.models import Token

from core.authentication import token_staff_check
from core.errors import DomainError, InvalidRequest
from core.usernames import username_check, username_taken

#: Called with the new user inside the registration transaction (the wallet registers
#: its play-money grant here), so a user never exists without what goes with it.
REGISTRATION_HOOKS: list[Callable[[AbstractBaseUser], None]] = []


class AuthenticationFailed(DomainError):
    status = 401
    default_code = "invalid_credentials"


def user_register(*, username: str, password: str) -> AbstractBaseUser:
    """Creates a player account after Django's password validators accept the password."""
    user_model = get_user_model()
    candidate = user_model(username=username)
    try:
        user_model.username_validator(username)  # type: ignore[attr-defined]  # AbstractUser's validator; the stubs type the base user model
    except DjangoValidationError as exc:
        raise InvalidRequest(" ".join(exc.messages), code="invalid_username") from None
    username_check(username=username)
    try:
        password_validation.validate_password(password, user=candidate)
    except DjangoValidationError as exc:
        raise InvalidRequest(
            " ".join(exc.messages), code="invalid_password", errors=exc.messages
        ) from None
    try:
        with transaction.atomic():
            user = user_model.objects.create_user(username=username, password=password)
            for hook in REGISTRATION_HOOKS:
                hook(user)
    except IntegrityError:  # a sign-up under the same key won the race (the unique index)
        raise username_taken(username) from None
    return user


def token_obtain(*, username: str, password: str) -> str:
    """The API token for valid credentials (created on first use)."""
    user = authenticate(username=username, password=password)
    if user is None or not user.is_active:
        raise AuthenticationFailed("Invalid username or password.")
    token_staff_check(user=user)
    token, _ = Token.objects.get_or_create(user=user)
    return token.key
