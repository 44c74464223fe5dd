"""ASGI entry point: HTTP through Django, WebSockets through Channels."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from config.routing import websocket_urlpatterns  # noqa: E402
from core.ws_auth import BrowserOriginValidator, TokenOrSessionAuthStack  # noqa: E402
from core.ws_guard import ChannelLayerGuard  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # The guard turns a channel layer (Redis) outage into a typed close, not a 500.
        "websocket": BrowserOriginValidator(
            ChannelLayerGuard(TokenOrSessionAuthStack(URLRouter(websocket_urlpatterns)))
        ),
    }
)
