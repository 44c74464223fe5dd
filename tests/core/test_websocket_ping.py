"""The ASGI WebSocket route authenticates and answers ping through the real Redis layer."""

import json

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings

from config.asgi import application

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("async_db_cleanup")]


@sync_to_async
def _token_for(username):
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    user = get_user_model().objects.create_user(username=username, password="x-Str0ng-pass!")
    return Token.objects.create(user=user).key


def test_the_channel_layer_under_test_is_redis():
    assert type(get_channel_layer()).__name__ == "RedisPubSubChannelLayer"
    assert settings.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"] == [settings.REDIS_URL]


async def test_authenticated_connection_answers_ping_via_redis_layer():
    key = await _token_for("wsuser")
    communicator = WebsocketCommunicator(application, f"/ws/ping/?token={key}")
    connected, _ = await communicator.connect()
    assert connected
    await communicator.send_to(text_data=json.dumps({"type": "ping", "echo": "hello"}))
    reply = json.loads(await communicator.receive_from(timeout=5))
    assert reply == {"type": "pong", "echo": "hello", "user": "wsuser"}
    await communicator.disconnect()


async def test_token_in_authorization_header_is_accepted():
    key = await _token_for("hdruser")
    communicator = WebsocketCommunicator(
        application, "/ws/ping/", headers=[(b"authorization", f"Token {key}".encode())]
    )
    connected, _ = await communicator.connect()
    assert connected
    await communicator.disconnect()


async def test_anonymous_connection_is_refused():
    communicator = WebsocketCommunicator(application, "/ws/ping/")
    connected, code = await communicator.connect()
    assert not connected
    assert code == 4401


async def test_bad_token_is_refused():
    communicator = WebsocketCommunicator(application, "/ws/ping/?token=nope")
    connected, code = await communicator.connect()
    assert not connected
    assert code == 4401


async def test_cross_site_browser_origin_is_refused():
    key = await _token_for("originuser")
    communicator = WebsocketCommunicator(
        application, f"/ws/ping/?token={key}", headers=[(b"origin", b"https://evil.example")]
    )
    connected, _ = await communicator.connect()
    assert not connected


async def test_malformed_frame_gets_error_and_connection_stays_usable():
    key = await _token_for("badframes")
    communicator = WebsocketCommunicator(application, f"/ws/ping/?token={key}")
    await communicator.connect()
    await communicator.send_to(text_data="{not json")
    error = json.loads(await communicator.receive_from(timeout=5))
    assert error["code"] == "malformed_frame"
    assert set(error) == {"code", "message", "extra"}
    await communicator.send_to(text_data=json.dumps({"type": "dance"}))
    assert json.loads(await communicator.receive_from(timeout=5))["code"] == "unknown_type"
    await communicator.send_to(text_data=json.dumps({"type": "ping"}))
    assert json.loads(await communicator.receive_from(timeout=5))["type"] == "pong"
    await communicator.disconnect()
