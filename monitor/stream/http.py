"""The worker's HTTP surface, private by default.

Conversation text is personal data. `/conversations/{id}` shows a conversation's recent
scores and certificates (with the sentences they quote), so it can require a bearer token
(`SKG_API_TOKEN`); `/metrics` and `/healthz` carry no conversation content and stay open
for Prometheus and probes. Faust's built-in views are switched off: `/table/...` would
serve the stored state (every sentence of a conversation) and `/router/...` the hosts and
partition assignments, to anyone who can reach the port; `/stats`, `/graph` and
`/assignment` describe the internals. The server binds 127.0.0.1 unless told otherwise
(`SKG_WEB_BIND`).
"""

from __future__ import annotations

import functools
import hmac
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from faust.web import Request, Response, View
from pydantic import SecretStr

from monitor.engine.state import ConversationState, StateDecodeError

if TYPE_CHECKING:
    from monitor.stream.app import Monitor

#: faust.App settings that switch off every built-in view (only our pages remain).
PRIVATE_WEB: dict[str, bool] = {
    "web_router_enabled": False,
    "web_tables_enabled": False,
    "web_stats_enabled": False,
    "web_graph_enabled": False,
    "web_metrics_enabled": False,
}

Handler = Callable[..., Awaitable[Response]]


def token_matches(header: str | None, token: str) -> bool:
    """`Authorization: Bearer <token>`, compared in constant time. The scheme is
    case-insensitive (RFC 7235 section 2.1: `bearer` and `BEARER` are `Bearer`)."""
    if not header:
        return False
    scheme, _, credentials = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not credentials.strip():
        return False
    return hmac.compare_digest(credentials.strip().encode("utf-8", "surrogateescape"),
                               token.encode("utf-8"))


def require_token(token: SecretStr | None) -> Callable[[Handler], Handler]:
    """A page decorator: 401 without the bearer token, when a token is configured.

    Put it outside `app.table_route`: the request is checked where it arrives, and Faust
    forwards its headers (the token included) to the worker that owns the key.
    """

    def decorate(handler: Handler) -> Handler:
        if token is None or not token.get_secret_value():
            return handler
        secret = token.get_secret_value()

        @functools.wraps(handler)
        async def checked(web: View, request: Request, *args: Any, **kwargs: Any) -> Response:
            if not token_matches(request.headers.get("Authorization"), secret):
                return web.json({"error": "unauthorized"}, status=401,
                                 headers={"WWW-Authenticate": 'Bearer realm="skg-monitor"'})
            return await handler(web, request, *args, **kwargs)

        return checked

    return decorate


def add_conversation_page(monitor: Monitor, path: str, name: str,
                          respond: Callable[[View, ConversationState], Response]) -> None:
    """A page about one conversation, `{conversation_id}` in its `path`: the bearer token is
    checked where the request arrives, Faust routes it to the worker that owns the
    conversation, and that worker reads its stored state: 409 if it cannot be read (the
    conversation is quarantined), 404 if it is unknown, else `respond(web, state)`."""
    app = monitor.app

    @app.page(path, name=name)
    @require_token(monitor.settings.api_token)
    @app.table_route(table=monitor.table, match_info="conversation_id")
    async def conversation_page(web: View, request: Request,
                                conversation_id: str) -> Response:
        try:
            state = monitor.stored_state(conversation_id)
        except StateDecodeError as exc:
            return web.json(monitor.unreadable_view(conversation_id, exc), status=409)
        if state is None:
            return web.json({"error": "unknown conversation",
                             "conversation_id": conversation_id}, status=404)
        return respond(web, state)
