"""Dashboard configuration, read from ``COMPANION_*`` environment variables."""

from __future__ import annotations

import math
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from companion.errors import InputError
from companion.web.token_file import check_token, new_token, read_token

MIN_BODY_BYTES = 4 * 1024
"""The smallest body limit that still takes a corrected board from the dashboard's form."""
MAX_BODY_BYTES = 1024 * 1024 * 1024


@dataclass(frozen=True)
class WebConfig:
    """``operator_token`` unlocks the operator actions (header or PIN login); ``public_url``
    is what the QR code points at (phones cannot reach 127.0.0.1); ``token_file`` is where the
    token was read from, when it was (it is then not printed at every start);
    ``max_body_bytes`` bounds every request body, refused with 413 before it is read."""

    operator_token: str
    secret_key: str
    public_url: str | None = None
    sse_heartbeat_s: float = 15.0
    token_file: Path | None = None
    max_body_bytes: int = 64 * 1024

    @classmethod
    def from_env(
        cls, env: Mapping[str, str] | None = None, *, token_file: Path | None = None
    ) -> WebConfig:
        """``COMPANION_OPERATOR_TOKEN`` wins, then ``token_file``, else a new random token."""
        env = os.environ if env is None else env
        token = env.get("COMPANION_OPERATOR_TOKEN", "").strip()
        if token:
            check_token(token, field="COMPANION_OPERATOR_TOKEN")
            token_file = None
        elif token_file is not None:
            token = read_token(token_file)
        else:
            token = new_token()
        heartbeat = env.get("COMPANION_SSE_HEARTBEAT_S", "15")
        try:
            heartbeat_s = float(heartbeat)
        except ValueError:
            heartbeat_s = math.nan
        if not 0 < heartbeat_s <= 3600:
            raise InputError(
                f"expected a number of seconds from 0 to 3600, got {heartbeat[:20]!r}",
                field="COMPANION_SSE_HEARTBEAT_S",
            )
        max_body = env.get("COMPANION_MAX_BODY_BYTES", str(cls.max_body_bytes)).strip()
        if not (max_body.isdecimal() and len(max_body) <= 10) or not (
            MIN_BODY_BYTES <= int(max_body) <= MAX_BODY_BYTES
        ):
            raise InputError(
                f"expected a whole number of bytes from {MIN_BODY_BYTES} to {MAX_BODY_BYTES}, "
                f"got {max_body[:20]!r}",
                field="COMPANION_MAX_BODY_BYTES",
            )
        return cls(
            operator_token=token,
            secret_key=env.get("COMPANION_SECRET_KEY") or secrets.token_hex(32),
            public_url=env.get("COMPANION_PUBLIC_URL") or None,
            sse_heartbeat_s=heartbeat_s,
            token_file=token_file,
            max_body_bytes=int(max_body),
        )

    def token_note(self) -> str:
        """The token as the terminal (or the service's journal) shows it: a token kept in a
        file is named by its file, not printed at every start."""
        if self.token_file is not None:
            return f"kept in {self.token_file} (companion token show)"
        return self.operator_token
