"""Load: 32 concurrent clients doing a mix of recall (70 %) and remember (30 %) for 60 seconds
against one database, through the MCP server (streamable HTTP, one server process) and directly
through the SQL API (one connection per client). Zero errors expected, and every acknowledged
remember must be in the database afterwards (count check). Reports throughput and p50/p99.

Run by `make bench` (bench/run.py), or alone against a deployed database:
  python bench/load.py [--seconds 60] [--clients 32]
"""

import argparse
import random
import threading
import time
import uuid

import anyio
import psycopg
from mcp import Client
from mcp_latency import http_server
from scale import pct, turns_and_questions

NAMESPACES = [f"/bench/load/n{i}" for i in range(8)]
RECALL_SHARE = 0.7


def setup(turns):
    with psycopg.connect(autocommit=True) as c:
        for ns in NAMESPACES:
            if c.execute("select 1 from stash.namespaces where path = %s", (ns,)).fetchone():
                c.execute("select stash.purge(namespace => %s)", (ns,))
            c.execute("select stash.create_namespace(%s)", (ns,))
        for i, ns in enumerate(NAMESPACES):  # 250 real turns per namespace to recall from
            c.execute("select stash.remember_many(%s, %s)", (ns, turns[i * 250 : (i + 1) * 250]))
        c.execute("vacuum analyze stash.episodes")


class Tally:
    def __init__(self):
        self.lock = threading.Lock()
        self.recall: list[float] = []
        self.remember: list[float] = []
        self.acked: list[int] = []
        self.errors: list[str] = []

    def add(self, kind: str, ms: float, episode: int | None = None):
        with self.lock:
            (self.recall if kind == "recall" else self.remember).append(ms)
            if episode is not None:
                self.acked.append(episode)


def work(rng: random.Random, questions: list[str], tag: str):
    """The next operation: (tool, arguments)."""
    ns = rng.choice(NAMESPACES)
    if rng.random() < RECALL_SHARE:
        return "recall", {"query": rng.choice(questions), "namespaces": [ns], "limit": 10}
    return "remember", {
        "namespace": ns,
        "content": f"{tag} note {uuid.uuid4().hex[:12]}: {rng.choice(questions)}",
    }


async def mcp_client(url, seconds, questions, tag, tally, seed):
    rng = random.Random(seed)
    try:
        async with Client(url) as client:
            # Warm up (session, pool connection, model in its backend) before the clock starts.
            await client.call_tool("recall", {"query": "warm up", "namespaces": [NAMESPACES[0]]})
            stop = time.monotonic() + seconds
            while time.monotonic() < stop:
                tool, args = work(rng, questions, tag)
                t = time.perf_counter()
                result = await client.call_tool(tool, args)
                ms = (time.perf_counter() - t) * 1000
                if result.is_error:
                    tally.errors.append(result.content[0].text)
                    continue
                tally.add(tool, ms, result.structured_content.get("id") if tool == "remember" else None)
    except Exception as e:  # a dropped session is an error of the run, not of the benchmark
        tally.errors.append(repr(e))


def sql_client(seconds, questions, tag, tally, seed, barrier):
    rng = random.Random(seed)
    try:
        with psycopg.connect(autocommit=True) as c:
            c.execute("select stash.embed(array['warm up'])")  # each backend loads the model first
            barrier.wait()
            stop = time.monotonic() + seconds
            while time.monotonic() < stop:
                tool, args = work(rng, questions, tag)
                t = time.perf_counter()
                if tool == "recall":
                    c.execute(
                        "select * from stash.recall(%s, %s, 10)", (args["query"], args["namespaces"])
                    ).fetchall()
                    tally.add(tool, (time.perf_counter() - t) * 1000)
                else:
                    episode = c.execute(
                        "select stash.remember(%s, %s)", (args["namespace"], args["content"])
                    ).fetchone()[0]
                    tally.add(tool, (time.perf_counter() - t) * 1000, episode)
    except (psycopg.Error, threading.BrokenBarrierError) as e:
        tally.errors.append(repr(e))


def check(tally: Tally, tag: str) -> tuple[int, int]:
    with psycopg.connect(autocommit=True) as c:
        present = c.execute(
            "select count(*) from stash.episodes where id = any(%s)", (tally.acked,)
        ).fetchone()[0]
        tagged = c.execute(
            "select count(*) from stash.episodes where content like %s", (f"{tag} note %",)
        ).fetchone()[0]
    return present, tagged


def report(name: str, tally: Tally, seconds: float, tag: str):
    present, tagged = check(tally, tag)
    ops = len(tally.recall) + len(tally.remember)
    return [
        (
            f"{name}: operations/s (recall + remember)",
            f"{ops / seconds:,.0f} ({len(tally.recall) / seconds:,.0f} + "
            f"{len(tally.remember) / seconds:,.0f})",
            "",
        ),
        (f"{name}: recall p50 / p99", f"{pct(tally.recall, 50):.0f} / {pct(tally.recall, 99):.0f}", "ms"),
        (
            f"{name}: remember p50 / p99",
            f"{pct(tally.remember, 50):.0f} / {pct(tally.remember, 99):.0f}",
            "ms",
        ),
        (
            f"{name}: errors",
            str(len(tally.errors)) + (f" (first: {tally.errors[0][:80]})" if tally.errors else ""),
            "",
        ),
        (
            f"{name}: acknowledged remembers present afterwards",
            f"{present} of {len(tally.acked)} ({tagged} stored)",
            "",
        ),
    ]


def run(seconds: float = 60, clients: int = 32, pool_size: int = 8):
    turns, questions = turns_and_questions()
    setup(turns)
    rows = [("load: clients, duration, recall share", f"{clients}, {seconds:.0f} s, {RECALL_SHARE:.0%}", "")]

    tally, tag = Tally(), f"mcp-{uuid.uuid4().hex[:8]}"
    with http_server(STASH_MCP_POOL_SIZE=str(pool_size)) as url:

        async def all_clients():
            async with anyio.create_task_group() as tg:
                for i in range(clients):
                    tg.start_soon(mcp_client, url, seconds, questions, tag, tally, i)

        anyio.run(all_clients)
    rows += report(f"MCP over streamable HTTP, one server, pool of {pool_size}", tally, seconds, tag)

    tally, tag = Tally(), f"sql-{uuid.uuid4().hex[:8]}"
    barrier = threading.Barrier(clients)
    threads = [
        threading.Thread(target=sql_client, args=(seconds, questions, tag, tally, i, barrier))
        for i in range(clients)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    rows += report(f"SQL API, {clients} connections", tally, seconds, tag)
    with psycopg.connect(autocommit=True) as c:
        rows.append(
            (
                "episodes in the database after both runs",
                f"{c.execute('select count(*) from stash.episodes').fetchone()[0]:,}",
                "",
            )
        )
        for ns in NAMESPACES:
            c.execute("select stash.purge(namespace => %s)", (ns,))
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--pool", type=int, default=8)
    a = parser.parse_args()
    print("| benchmark | value | unit |\n|---|---:|---|")
    for name, value, unit in run(a.seconds, a.clients, a.pool):
        print(f"| {name} | {value} | {unit} |", flush=True)
