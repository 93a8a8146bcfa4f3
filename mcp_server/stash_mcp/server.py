"""The MCP server: every tool runs exactly one `select * from stash.<tool>(...)`.

Tools, their schemas and descriptions come from the database catalog through stash.api (loaded on
first use, so the server starts even while the database is still coming up). The server adds only
transport: a connection pool, JSON in and out, SQL errors as tool errors, NOTICEs as progress.
"""

from __future__ import annotations

import contextlib
import hmac
import ipaddress
import json
import logging
import os
import sys
from dataclasses import dataclass
from typing import Any

import anyio
import psycopg
import stash
import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.context import Context
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from mcp_types import Tool as MCPTool
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send
from stash import api

from stash_mcp.instructions import INSTRUCTIONS

log = logging.getLogger("stash_mcp")

TRANSPORTS = ("stdio", "http", "sse")


@dataclass(frozen=True)
class Config:
    conninfo: str
    role: str | None
    transport: str
    host: str
    port: int
    token: str | None
    pool_size: int

    @classmethod
    def from_env(cls, **overrides: Any) -> Config:
        env = os.environ
        values = dict(
            conninfo=api.conninfo(),
            role=env.get("STASH_ROLE") or None,
            transport=env.get("STASH_MCP_TRANSPORT", "stdio"),
            host=env.get("STASH_MCP_HOST", "127.0.0.1"),
            port=int(env.get("STASH_MCP_PORT", "8765")),
            token=env.get("STASH_MCP_TOKEN") or None,
            pool_size=int(env.get("STASH_MCP_POOL_SIZE", "4")),
        )
        values.update({k: v for k, v in overrides.items() if v is not None})
        config = cls(**values)
        if config.transport not in TRANSPORTS:
            raise ValueError(f"transport must be one of {', '.join(TRANSPORTS)}, not {config.transport!r}")
        if not 1 <= config.pool_size <= 64:
            raise ValueError("STASH_MCP_POOL_SIZE must be between 1 and 64")
        if config.transport != "stdio" and not config.token and not is_loopback(config.host):
            raise ValueError(
                f"refusing to serve on {config.host} without a token: set STASH_MCP_TOKEN "
                "(clients send it as 'Authorization: Bearer <token>') or bind 127.0.0.1"
            )
        return config


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class StashServer(MCPServer):
    """MCPServer with its tool registry replaced by the database's catalog."""

    def __init__(self, config: Config):
        super().__init__(
            name="stash", version=stash.__version__, instructions=INSTRUCTIONS, log_level="WARNING"
        )
        self.config = config
        self.pool = AsyncConnectionPool(
            config.conninfo,
            min_size=1,
            max_size=config.pool_size,
            open=False,
            timeout=10,
            kwargs={"autocommit": True, "application_name": "stash-mcp"},
            configure=self._configure,
            check=AsyncConnectionPool.check_connection,
        )
        self._tools: dict[str, api.Tool] | None = None
        self.custom_route("/healthz", methods=["GET"])(self._healthz)
        self.custom_route("/readyz", methods=["GET"])(self._readyz)

    async def _configure(self, conn: psycopg.AsyncConnection) -> None:
        statement = api.set_role_statement()
        if statement is not None:
            await conn.execute(statement)

    async def catalog(self) -> dict[str, api.Tool]:
        if self._tools is None:
            async with self.pool.connection() as conn:
                self._tools = await api.load_catalog_async(conn)
        return self._tools

    async def list_tools(self) -> list[MCPTool]:
        return [
            MCPTool(
                name=t.name,
                title=t.spec.title,
                description=t.description,
                input_schema=t.input_schema,
                annotations=ToolAnnotations(
                    title=t.spec.title,
                    read_only_hint=t.read_only,
                    destructive_hint=t.destructive,
                    idempotent_hint=t.idempotent,
                    open_world_hint=False,
                ),
            )
            for t in (await self.catalog()).values()
        ]

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context | None = None
    ) -> CallToolResult:
        try:
            tools = await self.catalog()
        except (psycopg.Error, RuntimeError) as e:
            return error_result(api.sql_error(e) if isinstance(e, psycopg.Error) else str(e))
        tool = tools.get(name)
        if tool is None:
            return error_result(f"unknown tool {name!r}; tools/list shows the tools there are")
        try:
            args = tool.arguments(arguments, origin="mcp")
        except api.ArgumentError as e:
            return error_result(str(e), sqlstate=e.sqlstate)
        query, params = tool.statement(args)
        warnings: list[str] = []
        try:
            async with self.pool.connection() as conn:
                rows = await run_with_notices(conn, query, params, context, warnings)
        except psycopg.Error as e:
            return error_result(
                api.sql_error(e), sqlstate=getattr(getattr(e, "diag", None), "sqlstate", None)
            )
        result = tool.shape(rows, args)
        content = [TextContent(type="text", text=json.dumps(result, ensure_ascii=False))]
        content += [TextContent(type="text", text=f"warning: {w}") for w in warnings]
        return CallToolResult(content=content, structured_content=result)

    async def _healthz(self, request: Request) -> Response:
        return PlainTextResponse("ok")

    async def _readyz(self, request: Request) -> Response:
        try:
            async with self.pool.connection(timeout=2) as conn:
                cur = await conn.execute("select value ->> 0 from stash.settings where key = 'code.version'")
                row = await cur.fetchone()
        except Exception as e:  # any failure means "not ready"; the reason goes to the prober
            return JSONResponse({"ready": False, "reason": api.sql_error(e)}, status_code=503)
        if row is None:
            return JSONResponse({"ready": False, "reason": "schema stash is not deployed"}, status_code=503)
        return JSONResponse({"ready": True, "code_version": row[0]})


async def run_with_notices(conn, query, params, context: Context | None, warnings: list[str]) -> list[dict]:
    """Run one statement; relay its NOTICEs as MCP progress (consolidate reports each stage), keep
    its WARNINGs for the result. Cancelling the request cancels the query (psycopg does that)."""
    send, receive = anyio.create_memory_object_stream[str](1000)

    def on_notice(diag: psycopg.errors.Diagnostic) -> None:
        if diag.severity_nonlocalized == "WARNING":
            warnings.append(diag.message_primary or "")
        elif diag.severity_nonlocalized == "NOTICE":
            # A client that cannot keep up misses progress messages, not results.
            with contextlib.suppress(anyio.WouldBlock):
                send.send_nowait(diag.message_primary or "")

    async def relay() -> None:
        done = 0
        async with receive:
            async for message in receive:
                done += 1
                if context is not None:
                    await context.report_progress(done, None, message)

    rows: list[dict] = []
    failure: psycopg.Error | None = None
    conn.add_notice_handler(on_notice)
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(relay)
            try:
                async with conn.cursor(row_factory=dict_row) as cur:
                    await cur.execute(query, params)
                    rows = await cur.fetchall()
            except psycopg.Error as e:
                failure = e  # raised below, outside the task group (which would wrap it in a group)
            finally:
                send.close()
    finally:
        conn.remove_notice_handler(on_notice)
    if failure is not None:
        raise failure
    return rows


def error_result(message: str, sqlstate: str | None = None) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=message)],
        structured_content={"error": message, "sqlstate": sqlstate},
        is_error=True,
    )


class BearerToken:
    """Requires 'Authorization: Bearer <token>' on everything but the health checks."""

    OPEN = ("/healthz", "/readyz")

    def __init__(self, app: ASGIApp, token: str):
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] not in self.OPEN:
            given = dict(scope["headers"]).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                response = PlainTextResponse(
                    "missing or wrong bearer token", status_code=401, headers={"WWW-Authenticate": "Bearer"}
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def http_app(server: StashServer) -> ASGIApp:
    config = server.config
    if config.transport == "sse":
        app = server.sse_app(host=config.host)
    else:
        app = server.streamable_http_app(host=config.host)
    return BearerToken(app, config.token) if config.token else app


async def serve(config: Config) -> None:
    server = StashServer(config)
    async with server.pool:
        if config.transport == "stdio":
            await server.run_stdio_async()
            return
        where = f"http://{config.host}:{config.port}/{'sse' if config.transport == 'sse' else 'mcp'}"
        print(f"stash: MCP server ({config.transport}) on {where}", file=sys.stderr, flush=True)
        print(
            f"stash: health checks on http://{config.host}:{config.port}/healthz and /readyz", file=sys.stderr
        )
        uv = uvicorn.Config(http_app(server), host=config.host, port=config.port, log_level="warning")
        await uvicorn.Server(uv).serve()


def main(**overrides: Any) -> int:
    try:
        config = Config.from_env(**overrides)
    except ValueError as e:
        print(f"stash mcp: {e}", file=sys.stderr)
        return 2
    with contextlib.suppress(KeyboardInterrupt):
        anyio.run(serve, config)
    return 0
