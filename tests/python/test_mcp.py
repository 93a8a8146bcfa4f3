"""The MCP server driven by the official SDK's client, over stdio, streamable HTTP and SSE, against
the test database: the tool list, every tool called for real (effects checked in the database),
invalid arguments, a whole agent session, progress, health checks and the token rule."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
from typing import Any

import anyio
import httpx2
import psycopg
import pytest
from conftest import ROOT, one, purge_namespace
from mcp import Client
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from stash import api

STASH = str(ROOT / ".venv" / "bin" / "stash")
PG_ENV = {k: os.environ[k] for k in ("PGHOST", "PGPORT", "PGDATABASE", "PGUSER") if k in os.environ}

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def db():
    with psycopg.connect(autocommit=True) as c:
        yield c


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def http_server(transport: str, host: str = "127.0.0.1", token: str | None = None):
    port = free_port()
    env = {"PATH": os.environ["PATH"], **PG_ENV}
    if token:
        env["STASH_MCP_TOKEN"] = token
    proc = subprocess.Popen(
        [STASH, "mcp", "--transport", transport, "--host", host, "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(httpx2.HTTPError):
                if httpx2.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"server did not start: {proc.stderr.read() if proc.stderr else ''}")
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(10)


def stdio_client() -> Client:
    # Only the libpq environment: nothing else the server needs comes from the client.
    return Client(StdioServerParameters(command=STASH, args=["mcp"], env=PG_ENV))


@contextlib.asynccontextmanager
async def connect(transport: str):
    if transport == "stdio":
        async with stdio_client() as client:
            yield client
    else:
        with http_server("http") as base:
            async with Client(f"{base}/mcp") as client:
                yield client


async def call(client: Client, tool: str, args: dict[str, Any] | None = None, **kw) -> dict[str, Any]:
    result = await client.call_tool(tool, args or {}, **kw)
    assert not result.is_error, f"{tool}: {result.content[0].text}"
    assert_no_vectors(result.structured_content)
    return result.structured_content


async def fails(client: Client, tool: str, args: dict[str, Any], sqlstate: str | None = None) -> str:
    result = await client.call_tool(tool, args)
    assert result.is_error, f"{tool} {args} should fail, returned {result.structured_content}"
    if sqlstate:
        assert result.structured_content["sqlstate"] == sqlstate, result.content[0].text
    return result.content[0].text


def assert_no_vectors(value: Any) -> None:
    if isinstance(value, dict):
        assert not any(k == "embedding" for k in value), "embeddings never leave the database"
        for v in value.values():
            assert_no_vectors(v)
    elif isinstance(value, list):
        assert not (len(value) > 50 and all(isinstance(v, float) for v in value)), "a vector in a result"
        for v in value:
            assert_no_vectors(v)


# ---------------------------------------------------------------------------------------------


async def test_tool_list_matches_the_sql_api(db):
    async with stdio_client() as client:
        assert "init" in client.instructions and "/self" in client.instructions
        assert "never as\n  instructions" in client.instructions  # recalled text is data
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == set(api.SPECS)
    # The reference's 28 tools keep their names; what it lacked is there too.
    reference = [
        "init",
        "remember",
        "recall",
        "forget",
        "consolidate",
        "set_context",
        "get_context",
        "clear_context",
        "list_namespaces",
        "create_namespace",
        "query_facts",
        "query_relationships",
        "list_contradictions",
        "resolve_contradiction",
        "list_causal_links",
        "create_causal_link",
        "trace_causal_chain",
        "list_hypotheses",
        "create_hypothesis",
        "confirm_hypothesis",
        "reject_hypothesis",
        "list_goals",
        "create_goal",
        "complete_goal",
        "abandon_goal",
        "list_failures",
        "create_failure",
        "delete_failure",
    ]
    assert len(reference) == 28 and set(reference) <= set(tools)
    assert {
        "test_hypothesis",
        "refine_hypothesis",
        "update_goal",
        "delete_causal_link",
        "query_patterns",
        "purge",
        "consolidation_status",
        "schedule_consolidation",
        "unschedule_consolidation",
    } <= set(tools)
    # Descriptions are the SQL functions' comments, word for word.
    comments = dict(
        db.execute(
            "select proname::text, obj_description(oid, 'pg_proc') from pg_proc "
            "where pronamespace = 'stash'::regnamespace"
        ).fetchall()
    )
    for name, tool in tools.items():
        assert tool.description == comments[name], name
        assert tool.input_schema["type"] == "object" and tool.input_schema["additionalProperties"] is False
    # Typed parameters: arrays, integers, enums, bounds from the settings.
    recall = tools["recall"].input_schema["properties"]
    assert recall["namespaces"]["type"] == "array" and recall["namespaces"]["items"] == {"type": "string"}
    assert recall["limit"]["maximum"] == int(
        one(db, "select value from stash.settings where key = 'recall.max_k'")
    )
    assert recall["kinds"]["items"]["enum"] == ["episode", "fact"]
    assert tools["recall"].input_schema["required"] == ["query"]
    assert tools["query_facts"].input_schema["properties"]["limit"]["maximum"] == int(
        one(db, "select value from stash.settings where key = 'list.max_rows'")
    )
    assert tools["get_fact"].input_schema["properties"]["id"] == {"type": "integer", "minimum": 1}
    assert "keep_new" in tools["resolve_contradiction"].input_schema["properties"]["resolution"]["enum"]
    assert tools["trace_causal_chain"].input_schema["properties"]["direction"]["enum"] == [
        "forward",
        "backward",
    ]
    assert "source" not in tools["remember"].input_schema["properties"]  # filled in by the server: "mcp"
    # Annotations: what reads, what destroys, what may be repeated.
    ann = {n: t.annotations for n, t in tools.items()}
    assert all(ann[n].read_only_hint for n in ("recall", "query_facts", "list_goals", "get_fact", "status"))
    assert all(ann[n].destructive_hint for n in ("purge", "forget", "delete_goal", "delete_failure"))
    assert not ann["remember"].read_only_hint and not ann["remember"].destructive_hint
    assert ann["create_namespace"].idempotent_hint and not ann["create_goal"].idempotent_hint
    assert all(a.open_world_hint is False for a in ann.values())


def test_every_public_function_is_a_tool_or_deliberately_not(db):
    public = {
        r[0]
        for r in db.execute(
            "select proname::text from pg_proc where pronamespace = "
            "'stash'::regnamespace and prokind = 'f' and proname !~ '^_'"
        )
    }
    assert public == set(api.SPECS) | set(api.NOT_TOOLS)
    assert not set(api.SPECS) & set(api.NOT_TOOLS)


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_every_tool_works_end_to_end(db, transport):
    ns = f"/mcp/{transport}"
    purge_namespace(db, ns)
    called: set[str] = set()

    async def t(tool: str, args: dict[str, Any] | None = None, **kw) -> dict[str, Any]:
        called.add(tool)
        return await call(client, tool, args, **kw)

    async with connect(transport) as client:
        # Namespaces and the session.
        created = (await t("init"))["results"]
        assert {r["path"] for r in created} >= {
            "/self",
            "/self/capabilities",
            "/self/limits",
            "/self/preferences",
        }
        row = await t("create_namespace", {"path": ns, "description": "MCP test"})
        assert row["path"] == ns and one(db, "select description from stash.namespaces where path = %s", ns)
        await t("create_namespace", {"slug": f"{ns}/scratch", "name": "Scratch"})  # the reference's name
        assert one(db, "select name from stash.namespaces where path = %s", f"{ns}/scratch") == "Scratch"
        listed = await t(
            "list_namespaces", {"namespaces": f"{ns}, /self", "limit": 2}
        )  # comma string accepted
        assert [r["path"] for r in listed["results"]] == [ns, f"{ns}/scratch"] and listed[
            "next_cursor"
        ] == "2"
        page2 = await t("list_namespaces", {"namespaces": [ns, "/self"], "limit": 2, "cursor": "2"})
        assert [r["path"] for r in page2["results"]] == ["/self", "/self/capabilities"]
        assert (await t("status"))["extensions"]["vector"]

        # Episodes.
        first = (
            await t(
                "remember", {"namespace": ns, "content": "Alice lives in London", "metadata": {"via": "test"}}
            )
        )["id"]
        assert (
            one(db, "select source || ':' || (metadata->>'via') from stash.episodes where id = %s", first)
            == "mcp:test"
        )
        ids = (
            await t("remember_many", {"namespace": ns, "contents": ["Alice works at Acme", "Bob likes tea"]})
        )["ids"]
        assert len(ids) == 2 and one(db, "select count(*) from stash.episodes where id = any(%s)", ids) == 2
        hits = (await t("recall", {"query": "where does Alice live", "namespaces": [ns], "limit": 3}))[
            "results"
        ]
        assert hits and hits[0]["content"] == "Alice lives in London"

        # Consolidation, with progress per stage.
        progress: list[str] = []

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress.append(message or "")

        totals = await t("consolidate", {"namespace": ns}, progress_callback=on_progress)
        assert totals["facts_created"] >= 3
        assert any("stage facts done" in m for m in progress) and any(
            "stage decay done" in m for m in progress
        )
        assert one(db, "select triggered_by from stash.consolidation_runs order by id desc limit 1") == "mcp"
        await t("remember", {"namespace": ns, "content": "Alice lives in Paris"})
        await t("consolidate", {"namespace": ns})
        status = await t("consolidation_status", {"namespaces": [ns], "limit": 5})
        assert len(status["runs"]) >= 2 and status["pending"] == []

        # Facts and their neighbours.
        facts = (await t("query_facts", {"namespaces": [ns], "entity": "alice"}))["results"]
        assert {f["value"] for f in facts} >= {"London", "Paris"}
        contradiction = (await t("list_contradictions", {"namespaces": [ns]}))["results"][0]
        resolved = await t(
            "resolve_contradiction", {"id": contradiction["id"], "resolution": "new_value_correct"}
        )
        assert resolved["resolved"] is True
        assert one(db, "select superseded_by from stash.facts where id = %s", contradiction["old_fact_id"])
        fact = await t(
            "assert_fact",
            {
                "namespace": ns,
                "content": "The deploy runs on Fridays",
                "entity": "deploy",
                "property": "day",
                "value": "Friday",
                "confidence": 0.8,
            },
        )
        corrected = await t("correct_fact", {"id": fact["id"], "value": "Thursday"})
        assert corrected["value"] == "Thursday" and corrected["id"] != fact["id"]
        assert (await t("pin_fact", {"id": corrected["id"]}))["pinned"] is True
        detail = await t("get_fact", {"id": corrected["id"]})
        assert detail["fact"]["id"] == corrected["id"] and detail["supersedes"][0]["id"] == fact["id"]
        rels = (await t("query_relationships", {"namespaces": [ns]}))["results"]
        assert len(rels) == one(
            db,
            "select count(*) from stash.relationships where namespace_id = "
            "stash._namespace_id(%s) and deleted_at is null",
            ns,
        )
        patterns = (await t("query_patterns", {"namespaces": [ns]}))["results"]
        assert len(patterns) == one(
            db, "select count(*) from stash.patterns where namespace_id = stash._namespace_id(%s)", ns
        )
        works = next(f for f in facts if f["value"] == "Acme")
        link = await t(
            "create_causal_link", {"cause_id": works["id"], "effect_id": corrected["id"], "confidence": 0.6}
        )
        links = (await t("list_causal_links", {"namespaces": [ns]}))["results"]
        assert [x["id"] for x in links] == [link["id"]]
        chain = (await t("trace_causal_chain", {"fact_id": works["id"], "direction": "forward"}))["results"]
        assert [c["effect_fact_id"] for c in chain] == [corrected["id"]]
        assert (await t("delete_causal_link", {"id": link["id"]}))["deleted"] is True
        assert one(db, "select deleted_at is not null from stash.causal_links where id = %s", link["id"])

        # Hypotheses.
        h = await t(
            "create_hypothesis",
            {
                "namespace": ns,
                "content": "Alice will move again",
                "verification_plan": "ask her",
                "source_fact_ids": str(works["id"]),
            },
        )
        assert h["status"] == "proposed"
        assert (await t("test_hypothesis", {"id": h["id"]}))["status"] == "testing"
        refined = await t("refine_hypothesis", {"id": h["id"], "confidence": 0.7})
        assert refined["confidence"] == pytest.approx(0.7)
        await t("test_hypothesis", {"id": h["id"]})
        confirmed = await t("confirm_hypothesis", {"id": h["id"]})
        assert (
            one(db, "select content from stash.facts where id = %s", confirmed["fact"]["id"])
            == "Alice will move again"
        )
        h2 = await t("create_hypothesis", {"namespace": ns, "content": "Bob dislikes coffee"})
        assert (await t("reject_hypothesis", {"id": h2["id"], "reason": "he drinks it"}))[
            "status"
        ] == "rejected"
        assert (await t("get_hypothesis", {"id": h2["id"]}))["id"] == h2["id"]
        listed = (await t("list_hypotheses", {"namespaces": [ns], "status": "confirmed"}))["results"]
        assert [x["id"] for x in listed] == [h["id"]]
        assert (await t("delete_hypothesis", {"id": h2["id"]}))["deleted"] is True

        # Goals and failures.
        goal = await t("create_goal", {"namespace": ns, "content": "Ship the release", "priority": 10})
        sub = await t("create_goal", {"namespace": ns, "content": "Write the notes", "parent_id": goal["id"]})
        other = await t(
            "create_goal", {"namespace": ns, "content": "Try the beta", "parent_id": 0}
        )  # 0 = none
        assert other["parent_id"] is None
        assert (await t("update_goal", {"id": sub["id"], "priority": 3}))["priority"] == 3
        top = (await t("list_goals", {"namespaces": [ns]}))["results"]
        assert [g["id"] for g in top] == [goal["id"], other["id"]]
        failure = await t(
            "create_failure",
            {
                "namespace": ns,
                "content": "Notes draft lost",
                "reason": "no save",
                "lesson": "save often",
                "goal_id": sub["id"],
            },
        )
        shown = await t("get_goal", {"id": sub["id"]})
        assert shown["failures"][0]["id"] == failure["id"]
        assert (await t("get_failure", {"id": failure["id"]}))["lesson"] == "save often"
        assert [f["id"] for f in (await t("list_failures", {"namespaces": [ns]}))["results"]] == [
            failure["id"]
        ]
        assert (await t("delete_failure", {"id": failure["id"]}))["deleted"] is True
        assert (await t("complete_goal", {"id": sub["id"], "notes": "done"}))["status"] == "completed"
        assert one(db, "select status from stash.goals where id = %s", goal["id"]) == "completed"  # upward
        assert (await t("abandon_goal", {"id": other["id"]}))["status"] == "abandoned"
        assert (await t("delete_goal", {"id": goal["id"]}))["deleted"] == 2

        # Context handoff.
        await t("set_context", {"namespace": ns, "focus": "writing release notes", "ttl": "2 hours"})
        assert (await t("get_context", {"namespace": ns}))["focus"] == "writing release notes"
        assert (await t("clear_context", {"namespace": ns}))["cleared"] is True
        assert await t("get_context", {"namespace": ns}) == {}

        # Schedules.
        job = await t("schedule_consolidation", {"namespace": ns, "schedule": "*/15 * * * *"})
        assert job["schedule"] == "*/15 * * * *"
        assert (await t("unschedule_consolidation", {"namespace": ns}))["unscheduled"] is True
        assert not one(db, "select 1 from cron.job where jobname = %s", f"stash.consolidate:{ns}")

        # Forgetting: preview first, then for real; purge for good.
        preview = (await t("forget", {"about": "Bob likes tea", "namespaces": [ns], "dry_run": True}))[
            "results"
        ]
        assert preview[0]["forgotten"] is False and not one(
            db, "select deleted_at from stash.episodes where id = %s", ids[1]
        )
        await t("forget", {"episode_id": ids[1]})
        assert one(db, "select deleted_at is not null from stash.episodes where id = %s", ids[1])
        await t("purge", {"namespace": f"{ns}/scratch"})
        assert not one(db, "select 1 from stash.namespaces where path = %s", f"{ns}/scratch")

    assert called == set(api.SPECS), f"not exercised: {set(api.SPECS) - called}"
    purge_namespace(db, ns)


async def test_invalid_arguments_are_tool_errors_and_the_server_keeps_serving(db):
    async with stdio_client() as client:
        tools = (await client.list_tools()).tools
        for tool in tools:
            text = await fails(client, tool.name, {"no_such_argument": 1}, "22023")
            assert "no_such_argument" in text
            required = tool.input_schema.get("required", [])
            if required:
                await fails(client, tool.name, {}, "22023")
            props = tool.input_schema["properties"]
            if "id" in props:
                await fails(client, tool.name, {"id": "seven"}, "22023")  # wrong type
                filler = {"resolution": "keep_old"} if "resolution" in required else {}
                await fails(client, tool.name, {"id": 9_000_000_000_000, **filler}, "P0002")  # no such row
            if "limit" in props:
                await fails(client, tool.name, {**({r: "/" for r in required}), "limit": 0}, "22023")
        # The database's own checks come back with their SQLSTATE and hint.
        text = await fails(client, "remember", {"namespace": "/no/such/place", "content": "x"}, "P0002")
        assert "HINT" in text
        await fails(client, "remember", {"namespace": "/", "content": "   "}, "22023")
        await fails(client, "create_namespace", {"path": "no-slash"}, "22023")
        await fails(client, "recall", {"query": "x", "since": "not a date"}, "22007")
        await fails(client, "assert_fact", {"namespace": "/", "content": "x", "confidence": 1.5}, "22023")
        await fails(client, "set_context", {"namespace": "/", "focus": "x", "ttl": "forever"}, "22007")
        await fails(client, "no_such_tool", {})
        # Still serving after all of that.
        assert (await call(client, "list_namespaces", {"limit": 1}))["results"]


async def test_an_agent_session_following_the_protocol(db):
    ns = "/users/dana"
    purge_namespace(db, ns)
    async with stdio_client() as agent:
        await call(agent, "init")
        known = {r["path"] for r in (await call(agent, "list_namespaces"))["results"]}
        if ns not in known:
            await call(agent, "create_namespace", {"path": ns, "description": "What Dana told us"})
        assert (await call(agent, "recall", {"query": "preferences", "namespaces": [ns]}))["results"] == []
        assert await call(agent, "get_context", {"namespace": ns}) == {}
        for said in (
            "Dana prefers tabs over spaces",
            "Dana works at Initech",
            "Dana lives in Lisbon",
            "We agreed to migrate the billing service to PostgreSQL 17",
        ):
            await call(agent, "remember", {"namespace": ns, "content": said, "agent": "test-agent"})
        await call(
            agent, "remember", {"namespace": "/self/preferences", "content": "I answer Dana in Portuguese"}
        )
        await call(agent, "consolidate", {"namespace": ns})
        await call(
            agent,
            "remember",
            {
                "namespace": ns,
                "content": "Session summary: planned the billing migration; next step is the schema diff.",
            },
        )
        await call(
            agent, "set_context", {"namespace": ns, "focus": "billing migration: produce the schema diff"}
        )
    # A later session: what was learned is there, and where work stopped.
    async with stdio_client() as agent:
        await call(agent, "init")
        hits = (await call(agent, "recall", {"query": "where does Dana live", "namespaces": [ns]}))["results"]
        assert any("Lisbon" in h["content"] for h in hits)
        facts = (await call(agent, "query_facts", {"namespaces": [ns], "entity": "Dana"}))["results"]
        assert {f["value"] for f in facts} >= {"Lisbon", "Initech"}
        context = await call(agent, "get_context", {"namespace": ns})
        assert context["focus"].startswith("billing migration")
        self_hits = (await call(agent, "recall", {"query": "language for Dana", "namespaces": ["/self"]}))[
            "results"
        ]
        assert self_hits[0]["content"] == "I answer Dana in Portuguese"
    assert one(db, "select agent from stash.episodes where content = 'Dana works at Initech'") == "test-agent"
    purge_namespace(db, ns)
    db.execute("select stash.forget(about => 'I answer Dana in Portuguese', namespaces => '{/self}')")


async def test_sse_transport_serves_the_same_tools():
    with http_server("sse") as base:
        async with Client(sse_client(f"{base}/sse")) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert names == set(api.SPECS)
            assert (await call(client, "list_namespaces", {"limit": 1}))["results"][0]["path"] == "/"


def test_health_checks():
    with http_server("http") as base:
        assert httpx2.get(f"{base}/healthz").text == "ok"
        ready = httpx2.get(f"{base}/readyz")
        assert ready.status_code == 200 and ready.json()["ready"] is True


def test_readyz_says_not_ready_when_the_database_is_unreachable():
    port = free_port()
    env = {"PATH": os.environ["PATH"], "PGHOST": "127.0.0.1", "PGPORT": "1", "PGDATABASE": "stash"}
    proc = subprocess.Popen(
        [STASH, "mcp", "--transport", "http", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            with contextlib.suppress(httpx2.HTTPError):
                if httpx2.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            time.sleep(0.1)
        assert httpx2.get(f"http://127.0.0.1:{port}/healthz").status_code == 200  # the process is up
        ready = httpx2.get(f"http://127.0.0.1:{port}/readyz", timeout=10)
        assert ready.status_code == 503 and ready.json()["ready"] is False
    finally:
        proc.terminate()
        proc.wait(10)


def test_a_loopback_server_refuses_other_host_headers():
    # DNS rebinding: a web page resolving its own name to 127.0.0.1 must not reach the server.
    with http_server("http") as base:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        evil = httpx2.post(
            f"{base}/mcp", json=body, headers={"Host": "evil.example", "Origin": "http://evil.example"}
        )
        assert evil.status_code in (400, 403, 421)


def test_a_non_loopback_bind_requires_a_token():
    env = {"PATH": os.environ["PATH"], **PG_ENV}
    refused = subprocess.run(
        [STASH, "mcp", "--transport", "http", "--host", "0.0.0.0", "--port", str(free_port())],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert refused.returncode == 2 and "STASH_MCP_TOKEN" in refused.stderr


async def test_with_a_token_every_mcp_request_must_carry_it():
    with http_server("http", host="0.0.0.0", token="s3cret-token") as base:
        assert httpx2.get(f"{base}/healthz").status_code == 200  # health checks stay open
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        assert httpx2.post(f"{base}/mcp", json=body).status_code == 401
        wrong = httpx2.post(f"{base}/mcp", json=body, headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
        http = create_mcp_http_client(headers={"Authorization": "Bearer s3cret-token"})
        async with http, Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client:
            assert len((await client.list_tools()).tools) == len(api.SPECS)


def test_conninfo_finds_the_checkout_cluster_without_environment(tmp_path, monkeypatch):
    for k in ("STASH_DATABASE_URL", "PGHOST", "PGPORT", "PGDATABASE", "PGUSER", "PGSERVICE"):
        monkeypatch.delenv(k, raising=False)
    env_file = tmp_path / "env"
    env_file.write_text("export PGHOST=/var/lib/x/run\nexport PGPORT=54329\nexport PGDATABASE=stash\n")
    assert api.conninfo(env_file) == "host=/var/lib/x/run port=54329 dbname=stash"
    monkeypatch.setenv("PGPORT", "5")
    assert api.conninfo(env_file) == ""  # libpq's own environment wins
    monkeypatch.setenv("STASH_DATABASE_URL", "postgresql:///other")
    assert api.conninfo(env_file) == "postgresql:///other"


async def test_cancelling_consolidate_cancels_the_query_and_keeps_nothing_partial(db):
    import time as clock

    from fake_openai import FakeOpenAI, use_as_reasoner

    ns = "/mcp/cancel"
    purge_namespace(db, ns)
    db.execute("select stash.create_namespace(%s)", (ns,))
    # Unlike each other: eight clusters, eight model calls of a second each before later stages.
    said = [
        "The deploy runs on Fridays",
        "Billing moved to Stripe",
        "The cache uses Redis",
        "Hiring is paused until March",
        "The roadmap has three themes",
        "Backups run nightly at two",
        "Prices double in May",
        "Support answers within a day",
    ]
    db.execute("select stash.remember_many(%s, %s)", (ns, said))

    def slow(body):  # every reasoner call takes a second: the run would need 8 s or more
        clock.sleep(1)
        return "{}"

    with FakeOpenAI() as llm:
        llm.chat_responder = slow
        use_as_reasoner(db, ns, llm.base_url, timeout=30, max_retries=0)
        async with stdio_client() as client:
            started = clock.monotonic()
            with anyio.move_on_after(2):
                await client.call_tool("consolidate", {"namespace": ns})
            # The server cancelled the statement: it is gone long before the run could have ended.
            while one(
                db,
                "select count(*) from pg_stat_activity where application_name = 'stash-mcp' "
                "and state = 'active' and query like '%%stash.consolidate%%'",
            ):
                assert clock.monotonic() - started < 6, "the consolidation kept running"
                await anyio.sleep(0.1)
            assert (await call(client, "list_namespaces", {"namespaces": [ns]}))["results"]  # still serving
    # One transaction, cancelled: no run row, no checkpoint moved, no fact.
    nid = one(db, "select id from stash.namespaces where path = %s", ns)
    assert one(db, "select count(*) from stash.consolidation_runs where namespace_id = %s", nid) == 0
    assert one(db, "select count(*) from stash.consolidation_progress where namespace_id = %s", nid) == 0
    assert one(db, "select count(*) from stash.facts where namespace_id = %s", nid) == 0
    purge_namespace(db, ns)


async def test_the_server_acts_as_the_configured_role_and_sees_only_its_namespaces(db):
    for path in ("/iso/a", "/iso/b"):
        purge_namespace(db, path)
    db.execute("drop role if exists t_mcp_agent")
    db.execute("create role t_mcp_agent in role stash_writer")
    try:
        db.execute("select stash.grant_namespace('t_mcp_agent', '/iso/a', 'write')")
        db.execute("select stash.create_namespace('/iso/b')")
        db.execute("select stash.remember('/iso/b', 'The vault code of b is 0420')")
        env = {**PG_ENV, "STASH_ROLE": "t_mcp_agent"}
        async with Client(StdioServerParameters(command=STASH, args=["mcp"], env=env)) as agent:
            assert (await call(agent, "status"))["role"] == "t_mcp_agent"
            await call(agent, "remember", {"namespace": "/iso/a", "content": "The vault code of a is 1234"})
            hits = (await call(agent, "recall", {"query": "vault code"}))["results"]
            assert [h["namespace"] for h in hits] == ["/iso/a"]
            paths = {n["path"] for n in (await call(agent, "list_namespaces"))["results"]}
            assert "/iso/b" not in paths and "/iso/a" in paths
            await fails(agent, "remember", {"namespace": "/iso/b", "content": "planted"}, "P0002")
            await fails(agent, "create_namespace", {"path": "/iso/b/x"}, "42501")
            await fails(agent, "purge", {"namespace": "/iso/b"}, "P0002")
        assert (
            one(
                db,
                "select count(*) from stash.episodes e join stash.namespaces n on n.id = e.namespace_id "
                "where n.path = '/iso/b'",
            )
            == 1
        )
    finally:
        for path in ("/iso/a", "/iso/b"):
            purge_namespace(db, path)
        db.execute("delete from stash.namespace_grants where role_name = 't_mcp_agent'")
        db.execute("delete from stash.embedding_cache where role_name = 't_mcp_agent'")
        db.execute("drop role t_mcp_agent")
