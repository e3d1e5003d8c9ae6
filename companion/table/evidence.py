"""What a table does with a game log that fails verification: it stops until the operator has
seen the damage, and records that they did.  Shared by the table session of every game.

The log is never rewritten.  An acknowledgement is an event of its own, chained (and keyed)
like any other, naming the broken events and the last event the operator's look covered;
a later edit breaks an event past that point, so it stops the table again.
"""

from __future__ import annotations

from typing import Any

from companion.errors import CompanionError
from companion.table.log import ChainStatus, Event, EventKind, GameLog, Verification

# At most this many broken events are named in an acknowledgement (a log checked with the
# wrong key fails everywhere; the event must stay small enough to publish).
LISTED_BAD_SEQS = 100


class TamperedLog(CompanionError):
    """An action refused because the table's log failed verification and nobody has said
    they saw it yet."""


def unacknowledged(log: GameLog, verification: Verification) -> bool:
    """Whether ``verification`` found damage that no intact acknowledgement covers."""
    if verification.ok:
        return False
    try:
        acks = log.events_of_kind(EventKind.TAMPERING_ACKNOWLEDGED)
    except ValueError:  # an acknowledgement edited into something unreadable
        return True
    through = [
        e.payload["through_seq"]
        for e in acks
        if e.seq not in verification.bad_seqs and isinstance(e.payload.get("through_seq"), int)
    ]
    return not through or max(verification.bad_seqs) > max(through)


def acknowledge(log: GameLog, verification: Verification, game: int | None) -> Event:
    """Logs that the operator saw ``verification``'s damage, up to the log's newest event."""
    head = log.head()
    if head is None or verification.ok:
        raise TamperedLog("the game log is intact: there is nothing to acknowledge")
    payload = {
        "bad_seqs": list(verification.bad_seqs[:LISTED_BAD_SEQS]),
        "bad_events": len(verification.bad_seqs),
        "through_seq": head.seq,
        "reason": verification.reason,
        "by": "operator",
    }
    kind = EventKind.TAMPERING_ACKNOWLEDGED
    return log.append(head.game if game is None else game, kind, payload)


def evidence_view(log: GameLog, verification: Verification, tampered: bool) -> dict[str, Any]:
    """What the pages say of the log: ``chain`` is keyed, unkeyed or tampered."""
    chain = verification.status
    if chain is ChainStatus.KEYED and not log.keyed:
        chain = ChainStatus.UNKEYED
    return {
        "chain": chain.value,
        "acknowledged": not verification.ok and not tampered,
        "bad_seq": verification.bad_seq,
        "reason": verification.reason,
    }
