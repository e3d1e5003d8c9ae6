"""Dashboard configuration, read from ``COMPANION_*`` environment variables."""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from companion.errors import InputError
from companion.web.token_file import check_token, new_token, read_token


@dataclass(frozen=True)
class WebConfig:
    """``operator_token`` unlocks the operator actions (header or PIN login); ``public_url``
    is what the QR code points at (phones cannot reach 127.0.0.1); ``token_file`` is where the
    token was read from, when it was (it is then not printed at every start)."""

    operator_token: str
    secret_key: str
    public_url: str | None = None
    sse_heartbeat_s: float = 15.0
    token_file: Path | None = None

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
            raise InputError(
                f"expected a number of seconds, got {heartbeat!r}",
                field="COMPANION_SSE_HEARTBEAT_S",
            ) from None
        return cls(
            operator_token=token,
            secret_key=env.get("COMPANION_SECRET_KEY") or secrets.token_hex(32),
            public_url=env.get("COMPANION_PUBLIC_URL") or None,
            sse_heartbeat_s=heartbeat_s,
            token_file=token_file,
        )

    def token_note(self) -> str:
        """The token as the terminal (or the service's journal) shows it: a token kept in a
        file is named by its file, not printed at every start."""
        if self.token_file is not None:
            return f"kept in {self.token_file} (companion token show)"
        return self.operator_token
