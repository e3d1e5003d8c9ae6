"""The dashboard: a Flask app showing the validated table live, with a small JSON API."""

from companion.web.app import create_app
from companion.web.services import Services

__all__ = ["Services", "create_app"]
