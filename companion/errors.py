"""Errors that reach the user: each says what is wrong and where."""

from __future__ import annotations


class CompanionError(Exception):
    """Base of every error the command line reports as one plain line."""


class InputError(CompanionError):
    """Malformed user input: a file, a frame, a request.

    ``source`` names the file (or request), ``line`` is 1-based where the input is
    line oriented, and ``field`` is a dotted path to the offending value.
    """

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.message = message
        self.source = source
        self.line = line
        self.field = field
        super().__init__(str(self))

    def located(
        self, *, source: str | None = None, line: int | None = None, field_prefix: str = ""
    ) -> InputError:
        """The same error with a location filled in by an outer reader."""
        field = self.field
        if field_prefix:
            field = f"{field_prefix}.{field}" if field else field_prefix
        return InputError(
            self.message,
            source=self.source or source,
            line=self.line if self.line is not None else line,
            field=field,
        )

    def __str__(self) -> str:
        where = []
        if self.source:
            where.append(self.source if self.line is None else f"{self.source}:{self.line}")
        elif self.line is not None:
            where.append(f"line {self.line}")
        if self.field:
            where.append(f"field '{self.field}'")
        return f"{', '.join(where)}: {self.message}" if where else self.message
