"""What the server's modules share: the process's :class:`~nomic_cards.core.nomic.Nomic`
(made in the app's lifespan) and answers in JSON."""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from nomic_cards.core.nomic import Nomic

#: the headers of every private answer: nothing keeps a copy
PRIVATE = MappingProxyType({"Cache-Control": "no-store"})


def json_response(data: Any, *, status: int = 200,
                  headers: Mapping[str, str] | None = None) -> Response:
    """``data`` as compact UTF-8 JSON."""
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return Response(body, status_code=status, media_type="application/json", headers=headers)


def nomic_of(request: Request) -> Nomic:
    """The Nomic the app serves."""
    nomic: Nomic = request.app.state.nomic
    return nomic
