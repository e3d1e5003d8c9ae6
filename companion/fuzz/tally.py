"""What a fuzz run found, per target: inputs sent and failures by kind, with a few examples.

A failure has a *category* (what went wrong in general: a crash, an HTTP 500, an invalid
input accepted, ...) and a *detail* (where: ``check: RecursionError``); the examples kept for
each (category, detail) pair are short enough to paste into a bug report.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

CRASH = "crash"
HTTP_500 = "http 500"
ACCEPTED_INVALID = "accepted invalid"
# Failures that are neither: an operator shut out, a hub not current, an input that hangs.
LOCKED_OUT = "operator locked out"
HUB_STALE = "hub not current"
HANG = "hang"

COLUMNS = (CRASH, HTTP_500, ACCEPTED_INVALID)
SERIOUS = (CRASH, HTTP_500, HANG)
EXAMPLES_PER_KIND = 2
EXAMPLE_CHARS = 300


def shorten(text: str, limit: int = EXAMPLE_CHARS) -> str:
    """One printable line: control characters escaped, the middle of long text cut out."""
    flat = text.encode("unicode_escape", "backslashreplace").decode("ascii")
    if len(flat) <= limit:
        return flat
    half = (limit - 20) // 2
    return f"{flat[:half]}...({len(flat)} chars)...{flat[-half:]}"


@dataclass
class TargetTally:
    """The counts of one target (``cli``, ``http`` or ``mqtt``)."""

    target: str
    sent: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    kinds: Counter[tuple[str, str]] = field(default_factory=Counter)
    examples: dict[tuple[str, str], list[str]] = field(default_factory=dict)

    def found(self, category: str, detail: str, example: str) -> None:
        self.counts[category] += 1
        self.kinds[(category, detail)] += 1
        kept = self.examples.setdefault((category, detail), [])
        if len(kept) < EXAMPLES_PER_KIND:
            kept.append(shorten(example))

    @property
    def serious(self) -> int:
        return sum(self.counts[c] for c in SERIOUS)


@dataclass
class Tally:
    targets: dict[str, TargetTally] = field(default_factory=dict)

    def target(self, name: str) -> TargetTally:
        if name not in self.targets:
            self.targets[name] = TargetTally(name)
        return self.targets[name]

    @property
    def serious(self) -> int:
        return sum(t.serious for t in self.targets.values())

    def render(self) -> str:
        """The final table, then every failure kind with its examples."""
        extra = sorted({c for t in self.targets.values() for c in t.counts if c not in COLUMNS})
        heads = ["target", "inputs", *COLUMNS, *extra]
        rows = [
            [t.target, str(t.sent), *(str(t.counts[c]) for c in (*COLUMNS, *extra))]
            for t in self.targets.values()
        ]
        total = ["total", str(sum(t.sent for t in self.targets.values()))]
        total += [str(sum(t.counts[c] for t in self.targets.values())) for c in (*COLUMNS, *extra)]
        rows.append(total)
        widths = [max(len(r[i]) for r in [heads, *rows]) for i in range(len(heads))]
        lines = [
            "  ".join(
                c.ljust(w) if i == 0 else c.rjust(w)
                for i, (c, w) in enumerate(zip(r, widths, strict=True))
            )
            for r in [heads, *rows]
        ]
        for t in self.targets.values():
            for (category, detail), n in sorted(t.kinds.items(), key=lambda kv: -kv[1]):
                lines.append(f"\n{t.target}: {category}: {detail} (x{n})")
                lines.extend(f"    e.g. {e}" for e in t.examples[(category, detail)])
        return "\n".join(lines)
