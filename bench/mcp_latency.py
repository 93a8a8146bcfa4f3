"""Round trips through the MCP server, beside the bare SQL call: recall and remember, over stdio
and streamable HTTP, p50/p99 in milliseconds. The server's own cost is the difference.

recall: the same 200 LoCoMo questions on every path, their embeddings cached by a warm-up pass
first, so every path does the same SQL work. remember: distinct LoCoMo turns on each path (each
one embedded), so the paths do comparable, not identical, work.
Run by `make bench` (bench/run.py), or alone against any deployed database: python bench/mcp_latency.py
"""

import contextlib
import os
import pathlib
import socket
import subprocess
import sys
import time

import anyio
import httpx2
import psycopg
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from scale import pct, turns_and_questions

STASH = str(pathlib.Path(__file__).resolve().parents[1] / ".venv" / "bin" / "stash")
NS = "/bench/mcp"
N = 200
PG_ENV = {k: v for k, v in os.environ.items() if k.startswith("PG")}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def http_server(**env: str):
    """`stash mcp --transport http` on a free port, with extra environment; yields its /mcp URL."""
    port = free_port()
    proc = subprocess.Popen(
        [STASH, "mcp", "--transport", "http", "--port", str(port)],
        env={"PATH": os.environ["PATH"], **PG_ENV, **env},
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(300):
            with contextlib.suppress(httpx2.HTTPError):
                if httpx2.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(10)


async def through_mcp(target, questions, turns) -> tuple[list[float], list[float]]:
    async with Client(target) as client:
        await client.call_tool("recall", {"query": "warm up", "namespaces": [NS]})  # pool, model
        recall, remember = [], []
        for q in questions:
            t = time.perf_counter()
            r = await client.call_tool("recall", {"query": q, "namespaces": [NS], "limit": 10})
            recall.append((time.perf_counter() - t) * 1000)
            assert not r.is_error, r.content
        for text in turns:
            t = time.perf_counter()
            r = await client.call_tool("remember", {"namespace": NS, "content": text})
            remember.append((time.perf_counter() - t) * 1000)
            assert not r.is_error, r.content
    return recall, remember


async def server_side(questions) -> tuple[list[float], list[float]]:
    """The server's own work, no transport or client: StashServer.call_tool against the bare
    statement on the same async connection pool."""
    from stash_mcp.server import Config, StashServer

    server = StashServer(Config.from_env(transport="stdio"))
    tool_ms, bare_ms = [], []
    async with server.pool:
        for q in questions:
            args = {"query": q, "namespaces": [NS], "limit": 10}
            t = time.perf_counter()
            await server.call_tool("recall", args)
            tool_ms.append((time.perf_counter() - t) * 1000)
            async with server.pool.connection() as conn:
                t = time.perf_counter()
                await (await conn.execute("select * from stash.recall(%s, %s, 10)", (q, [NS]))).fetchall()
                bare_ms.append((time.perf_counter() - t) * 1000)
    return tool_ms, bare_ms


def through_sql(conn, questions, turns) -> tuple[list[float], list[float]]:
    recall, remember = [], []
    for q in questions:
        t = time.perf_counter()
        conn.execute("select * from stash.recall(%s, %s, 10)", (q, [NS])).fetchall()
        recall.append((time.perf_counter() - t) * 1000)
    for text in turns:
        t = time.perf_counter()
        conn.execute("select stash.remember(%s, %s)", (NS, text)).fetchone()
        remember.append((time.perf_counter() - t) * 1000)
    return recall, remember


def run():
    turns, questions = turns_and_questions()
    questions = questions[:N]
    with psycopg.connect(autocommit=True) as conn:
        if conn.execute("select 1 from stash.namespaces where path = %s", (NS,)).fetchone():
            conn.execute("select stash.purge(namespace => %s)", (NS,))
        conn.execute("select stash.create_namespace(%s)", (NS,))
        conn.execute("select stash.remember_many(%s, %s)", (NS, turns[:1000]))
        conn.execute("vacuum analyze stash.episodes")  # a fresh cluster has no statistics yet
        for q in questions:  # cache every query embedding: recall then does the same work everywhere
            conn.execute("select * from stash.recall(%s, %s, 10)", (q, [NS])).fetchall()
        results = {"SQL (psycopg)": through_sql(conn, questions, turns[1000 : 1000 + N])}
    results["MCP stdio"] = anyio.run(
        through_mcp,
        StdioServerParameters(command=STASH, args=["mcp"], env=PG_ENV),
        questions,
        turns[1000 + N : 1000 + 2 * N],
    )
    with http_server() as url:
        results["MCP streamable HTTP"] = anyio.run(
            through_mcp, url, questions, turns[1000 + 2 * N : 1000 + 3 * N]
        )
    rows = []
    base_recall, base_remember = (pct(v, 50) for v in results["SQL (psycopg)"])
    for path, (recall, remember) in results.items():
        rows.append(
            (
                f"recall k=10, cached query embedding, {path}: p50 / p99",
                f"{pct(recall, 50):.1f} / {pct(recall, 99):.1f}",
                "ms",
            )
        )
        rows.append(
            (
                f"remember (embeds the episode), {path}: p50 / p99",
                f"{pct(remember, 50):.1f} / {pct(remember, 99):.1f}",
                "ms",
            )
        )
        if path != "SQL (psycopg)":
            rows.append(
                (
                    f"{path} minus SQL at p50 (client SDK + transport + server): recall / remember",
                    f"{pct(recall, 50) - base_recall:.1f} / {pct(remember, 50) - base_remember:.1f}",
                    "ms",
                )
            )
    tool_ms, bare_ms = anyio.run(server_side, questions)
    rows.append(
        (
            "recall in-process: StashServer.call_tool / the bare statement, p50",
            f"{pct(tool_ms, 50):.1f} / {pct(bare_ms, 50):.1f}",
            "ms",
        )
    )
    with psycopg.connect(autocommit=True) as conn:
        conn.execute("select stash.purge(namespace => %s)", (NS,))
    return rows


if __name__ == "__main__":
    print("| benchmark | value | unit |\n|---|---:|---|")
    for name, value, unit in run():
        print(f"| {name} | {value} | {unit} |", flush=True)
    sys.exit(0)
