"""The admin tools: ``optimizeIndex``, ``purgeIndex``, ``unlockIndex`` and
``getIndexAdminStatus``. The operations run in the background, one at a time; the destructive ones
need ``confirm: true``."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from pylucene_mcp.basics import errors
from pylucene_mcp.basics.shapes import to_dict
from pylucene_mcp.engine.core.backend import IndexStats, limits
from pylucene_mcp.server.tools.crawler import CrawlerStatus, crawler_status
from pylucene_mcp.server.tools.output import answers, listing, record
from pylucene_mcp.server.tools.registry import Registry
from pylucene_mcp.service.admin import Operation
from pylucene_mcp.service.service import Service

OperationsOut = listing("OperationsOut", "operations", Operation)


# what the index administration app shows
AdminViewOut = record(
    "AdminViewOut", {"stats": IndexStats, "crawler": CrawlerStatus, "operations": [Operation]}
)


def _unconfirmed(tool: str, what: str) -> errors.InvalidRequestError:
    return errors.InvalidRequestError(
        f"{tool} {what}; ask the user first, then call it again with confirm: true"
    )


def register_admin(tools: Registry, svc: Service) -> None:
    """Records the admin tools on ``tools``."""

    def started(kind: Any, **params: Any) -> Operation:
        return svc.admin().start(kind, **params)

    @tools.tool("admin", "Optimize the index", read_only=False, idempotent=True)
    @answers(Operation)
    def optimizeIndex(
        maxSegments: Annotated[int, Field(**limits.SEGMENTS.schema())] = 1,
    ) -> Operation:
        """Merge the index into at most maxSegments segments (faster searches, deleted
        documents dropped for good). Runs in the background: follow it with
        getIndexAdminStatus. Refused while a crawl runs."""
        return started("optimize", max_segments=maxSegments)

    @tools.tool("admin", "Purge the index", read_only=False, destructive=True, idempotent=True)
    @answers(Operation)
    def purgeIndex(confirm: bool = False, fullPurge: bool = False) -> Operation:
        """Delete every document of the index (the folders stay configured; a crawl brings
        them back). fullPurge also removes the index folder and recreates it empty. Needs
        confirm: true; runs in the background."""
        if not confirm:
            raise _unconfirmed("purgeIndex", "deletes every document of the index")
        return started("purge", full=fullPurge)

    @tools.tool("admin", "Unlock the index", read_only=False, destructive=True, idempotent=True)
    @answers(Operation)
    def unlockIndex(confirm: bool = False) -> Operation:
        """Free the index's write lock when the process that held it is gone (a killed
        server). Refused, naming the process, while a live one holds it. Needs confirm: true."""
        if not confirm:
            raise _unconfirmed("unlockIndex", "removes the index's write lock")
        return started("unlock")

    @tools.tool("admin", "Index admin status", read_only=True)
    @answers(OperationsOut)
    def getIndexAdminStatus(
        operationId: Annotated[str | None, Field(**limits.OPERATION_ID_CHARS.schema())] = None,
    ) -> dict[str, Any]:
        """The state (running, done, failed), result or error of an admin operation, or of
        all of this server's run when operationId is left out."""
        admin = svc.admin()
        found = [admin.status(operationId)] if operationId else admin.operations()
        return {"operations": [to_dict(op) for op in found[:20]]}

    @tools.tool("admin", "Index administration", read_only=True, app="index-admin")
    @answers(AdminViewOut)
    def indexAdmin() -> dict[str, Any]:
        """The index at a glance, for a person: statistics, the crawl and its progress, the
        administration operations of this server; hosts with MCP Apps show it as a panel with
        Optimize, Purge and Unlock buttons behind a confirmation."""
        return {
            "stats": to_dict(svc.index().index_stats()),
            "crawler": to_dict(crawler_status(svc)),
            "operations": [to_dict(op) for op in svc.admin().operations()[:20]],
        }
