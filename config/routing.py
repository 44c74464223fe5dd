"""WebSocket routes."""

from django.urls import path

from core.consumers import PingConsumer
from poker.consumers import TableConsumer

websocket_urlpatterns = [
    path("ws/ping/", PingConsumer.as_asgi()),
    path("ws/tables/<int:table_id>/", TableConsumer.as_asgi()),
]
