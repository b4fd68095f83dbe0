"""Check (a): the hash chain holds, numbered 1..N without a gap, each event linked to the one before."""

from __future__ import annotations

from libs.audit.report import Difference
from libs.platform.canonical import NotCanonical, check_canonical
from libs.platform.envelope import GENESIS, Event, compute_hash
from libs.platform.private import DigestMismatch, check_digests


def chain_difference(events: list[Event], game_id: str) -> Difference | None:
    """Return the first place the chain breaks, None if it holds.

    A copy whose other seats' private parts are digests verifies like the whole log: the hash covers the
    redacted form; a private part shown whole must match its digest.
    """
    prev = GENESIS
    for expected_n, event in enumerate(events, start=1):
        if event.n != expected_n:
            reason = (f"Ereignis {expected_n} fehlt (Lücke in der Nummerierung)." if event.n > expected_n
                      else "Die Nummerierung ist nicht fortlaufend (Ereignis doppelt oder vertauscht).")
            return Difference("chain", expected_n, "n", expected_n, event.n, reason)
        if event.game_id != game_id:
            return Difference("chain", event.n, "game_id", game_id, event.game_id,
                              "Das Ereignis gehört zu einer anderen Partie.")
        if event.prev != prev:
            return Difference("chain", event.n, "prev", prev, event.prev,
                              f"Das Ereignis verweist nicht auf den Hash von Ereignis {event.n - 1}.")
        try:
            check_canonical(event.data, "data")
        except NotCanonical as error:
            return Difference("chain", event.n, error.path, "kanonische JSON-Daten", error.problem,
                              "Das Ereignis enthält, was kanonisches JSON nicht kennt (etwa eine Gleitkommazahl "
                              "oder eine zu große ganze Zahl): sein Hash ist nicht nachrechenbar.")
        try:
            recomputed = compute_hash(event)
        except (KeyError, TypeError, AttributeError, ValueError):
            return Difference("chain", event.n, "data", "lesbare private Teile", "unlesbarer privater Teil",
                              "Ein privater Teil des Ereignisses ist unlesbar (ihm fehlen Empfänger oder Digest).")
        if recomputed != event.hash:
            return Difference("chain", event.n, "hash", recomputed, event.hash,
                              "Der Inhalt des Ereignisses passt nicht zu seinem Hash: es wurde nachträglich geändert.")
        try:
            check_digests(event.data)
        except (DigestMismatch, KeyError, TypeError, AttributeError):
            return Difference("chain", event.n, "data", "Wert passend zum Digest", "abweichender Wert",
                              "Ein privater Teil passt nicht zu seinem Digest: er wurde nachträglich geändert.")
        prev = event.hash
    return None
