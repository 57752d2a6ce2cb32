"""A request the server refuses, with the HTTP status and the stable code the page reads
(docs/serve.md lists the codes). Every part of the server raises it; the web layer answers it
as `{"error": ..., "code": ..., "field": ...}`."""

from __future__ import annotations

from timekeeper.errors import TimekeeperError, Words


class Refused(TimekeeperError):
    """A request the server refuses: `status`, a stable `code` for the page, the `field` at fault
    (None when it is the request as a whole), and when to try again (a full queue)."""

    def __init__(self, detail: str | Words, *, status: int = 400, code: str = "invalid_field", field: str | None = None,
                 retry_after_s: int | None = None) -> None:
        super().__init__(detail)
        self.status, self.code, self.field, self.retry_after_s = status, code, field, retry_after_s
