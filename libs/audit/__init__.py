"""The portable audit of a finished game's exported log: pure, nothing but the document and the published rules.

``audit(document)`` checks an export (``docs/audit.md``): the hash chain, the seed against its commitment,
a replay of every move with the named rule version, the final outcome, and lists every move the computer
made after a think time ran out; last, the table's signature of every event (``libs.audit.signatures``). It
reads no service and does no I/O, so anyone can run it on their own machine (``speed audit FILE``).
"""

from libs.audit.document import EXPORT_FORMAT, UnusableDocument
from libs.audit.report import AuditReport, Difference, TimeoutMove
from libs.audit.signatures import audit

__all__ = ["EXPORT_FORMAT", "AuditReport", "Difference", "TimeoutMove", "UnusableDocument", "audit"]
