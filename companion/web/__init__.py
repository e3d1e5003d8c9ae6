"""The dashboard: a Flask app showing the validated table live, with a small JSON API."""

from companion.web.app import Services, create_app

__all__ = ["Services", "create_app"]
