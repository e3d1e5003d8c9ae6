"""Dashboard configuration, read from ``COMPANION_*`` environment variables."""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass

from companion.errors import InputError


@dataclass(frozen=True)
class WebConfig:
    """``operator_token`` unlocks the operator actions (header or PIN login); ``public_url``
    is what the QR code points at (phones cannot reach 127.0.0.1)."""

    operator_token: str
    secret_key: str
    public_url: str | None = None
    sse_heartbeat_s: float = 15.0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> WebConfig:
        env = os.environ if env is None else env
        token = env.get("COMPANION_OPERATOR_TOKEN", "").strip()
        if not token:
            token = secrets.token_urlsafe(9)
        if len(token) < 4:
            raise InputError(
                "the operator token or PIN needs at least 4 characters",
                field="COMPANION_OPERATOR_TOKEN",
            )
        heartbeat = env.get("COMPANION_SSE_HEARTBEAT_S", "15")
        try:
            heartbeat_s = float(heartbeat)
        except ValueError:
            raise InputError(
                f"expected a number of seconds, got {heartbeat!r}",
                field="COMPANION_SSE_HEARTBEAT_S",
            ) from None
        return cls(
            operator_token=token,
            secret_key=env.get("COMPANION_SECRET_KEY") or secrets.token_hex(32),
            public_url=env.get("COMPANION_PUBLIC_URL") or None,
            sse_heartbeat_s=heartbeat_s,
        )
