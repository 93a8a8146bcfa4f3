"""The SQL API as a catalog of tools, for the MCP server and the `stash` command.

Each tool is one public function `stash.<name>`: the tool calls exactly that function with bound
parameters. Names, parameter names and types, defaults and descriptions come from the database
catalog (pg_proc and the functions' COMMENTs), so the SQL API and what clients see cannot drift.
What the catalog cannot say lives in SPECS below: whether a tool reads or writes, enumerations
and bounds for the JSON schema, and how a result is shaped into JSON. The database validates
everything again; the schema only lets clients correct themselves before a round trip.

Client-side only (psycopg, jsonschema): the server-side package never imports this module.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import jsonschema
from psycopg import sql
from psycopg.types.json import Jsonb

# Tool kinds, as MCP annotations: (read_only, destructive, idempotent).
READ = (True, False, True)
WRITE = (False, False, False)
IDEMPOTENT = (False, False, True)
DESTRUCTIVE = (False, True, True)

RESOLUTIONS = ["keep_old", "keep_new", "keep_both", "neither",
               "old_value_correct", "new_value_correct", "both_correct", "neither_correct"]  # fmt: skip


@dataclass(frozen=True)
class Spec:
    kind: tuple[bool, bool, bool]
    # rows: {"results": [...]}; paged: the same plus "next_cursor"; row: the one row ({} if none);
    # object: the function's jsonb as is; otherwise the key under which a scalar result is returned.
    result: str
    title: str
    enums: dict[str, list[str]] = field(default_factory=dict)
    # Parameters the front end fills ("origin": "mcp" or "cli"); they are not in the schema.
    origin_params: tuple[str, ...] = ()
    limit_setting: str = "list.max_rows"


SPECS: dict[str, Spec] = {
    # Namespaces and the session.
    "init": Spec(IDEMPOTENT, "rows", "Create the /self namespaces"),
    "create_namespace": Spec(IDEMPOTENT, "row", "Create a namespace"),
    "list_namespaces": Spec(READ, "paged", "List namespaces"),
    "status": Spec(READ, "object", "Installation status"),
    # Episodes.
    "remember": Spec(WRITE, "id", "Remember an observation", origin_params=("source",)),
    "remember_many": Spec(WRITE, "ids", "Remember several observations", origin_params=("source",)),
    "recall": Spec(
        READ, "paged", "Recall memories", enums={"kinds": ["episode", "fact"]}, limit_setting="recall.max_k"
    ),
    "forget": Spec(DESTRUCTIVE, "rows", "Forget episodes (or preview)"),
    "purge": Spec(DESTRUCTIVE, "object", "Purge an episode or a namespace for good"),
    # Contexts.
    "set_context": Spec(IDEMPOTENT, "row", "Set the working context"),
    "get_context": Spec(READ, "row", "Get the working context"),
    "clear_context": Spec(DESTRUCTIVE, "cleared", "Clear the working context"),
    # Facts, relationships, patterns, contradictions, causal links.
    "query_facts": Spec(READ, "paged", "Query facts"),
    "get_fact": Spec(READ, "object", "Get a fact with its sources and history"),
    "assert_fact": Spec(WRITE, "row", "Assert a fact"),
    "correct_fact": Spec(WRITE, "row", "Correct a fact"),
    "pin_fact": Spec(IDEMPOTENT, "row", "Pin or unpin a fact"),
    "query_relationships": Spec(READ, "paged", "Query relationships"),
    "query_patterns": Spec(READ, "paged", "Query patterns"),
    "list_contradictions": Spec(READ, "paged", "List contradictions"),
    "resolve_contradiction": Spec(WRITE, "row", "Resolve a contradiction", enums={"resolution": RESOLUTIONS}),
    "create_causal_link": Spec(WRITE, "row", "Link a cause to an effect"),
    "list_causal_links": Spec(READ, "paged", "List causal links"),
    "trace_causal_chain": Spec(
        READ, "rows", "Trace a causal chain", enums={"direction": ["forward", "backward"]}
    ),
    "delete_causal_link": Spec(DESTRUCTIVE, "deleted", "Delete a causal link"),
    # Hypotheses.
    "create_hypothesis": Spec(WRITE, "row", "Propose a hypothesis"),
    "list_hypotheses": Spec(
        READ, "paged", "List hypotheses", enums={"status": ["proposed", "testing", "confirmed", "rejected"]}
    ),
    "get_hypothesis": Spec(READ, "row", "Get a hypothesis"),
    "test_hypothesis": Spec(WRITE, "row", "Start testing a hypothesis"),
    "confirm_hypothesis": Spec(WRITE, "object", "Confirm a hypothesis into a fact"),
    "reject_hypothesis": Spec(WRITE, "row", "Reject a hypothesis"),
    "refine_hypothesis": Spec(WRITE, "row", "Refine a hypothesis"),
    "delete_hypothesis": Spec(DESTRUCTIVE, "deleted", "Delete a hypothesis"),
    # Goals and failures.
    "create_goal": Spec(WRITE, "row", "Create a goal"),
    "list_goals": Spec(READ, "paged", "List goals", enums={"status": ["active", "completed", "abandoned"]}),
    "get_goal": Spec(READ, "object", "Get a goal with its sub-goals"),
    "update_goal": Spec(WRITE, "row", "Update a goal"),
    "complete_goal": Spec(WRITE, "row", "Complete a goal"),
    "abandon_goal": Spec(WRITE, "row", "Abandon a goal"),
    "delete_goal": Spec(DESTRUCTIVE, "deleted", "Delete a goal and its sub-goals"),
    "create_failure": Spec(WRITE, "row", "Record a failure and its lesson"),
    "list_failures": Spec(READ, "paged", "List failures"),
    "get_failure": Spec(READ, "row", "Get a failure"),
    "delete_failure": Spec(DESTRUCTIVE, "deleted", "Delete a failure"),
    # Consolidation.
    "consolidate": Spec(
        WRITE, "object", "Consolidate episodes into knowledge", origin_params=("triggered_by",)
    ),
    "consolidation_status": Spec(READ, "object", "Consolidation runs, schedules and backlog"),
    "schedule_consolidation": Spec(IDEMPOTENT, "row", "Schedule consolidation with pg_cron"),
    "unschedule_consolidation": Spec(DESTRUCTIVE, "unscheduled", "Remove a consolidation schedule"),
}

# Public functions that are deliberately not tools, and why (a test holds every function to one
# list or the other).
NOT_TOOLS = {
    "embed": "returns raw vectors, which no client should receive",
    "python_info": "diagnostics of the server's Python; status covers what a client needs",
    "backfill_embeddings": "maintenance, run daily by pg_cron (stash.maintenance)",
    "reembed": "administration: rewrites every embedding and rebuilds the index",
    "schedule_defaults": "installation step, run by make up",
    "grant_namespace": "administration: which role may read or write which namespaces",
    "revoke_namespace": "administration: which role may read or write which namespaces",
}

# SQL types the API uses, as JSON schema. Also the whitelist of type names the statement casts to.
TYPES: dict[str, dict[str, Any]] = {
    "text": {"type": "string"},
    "bigint": {"type": "integer"},
    "integer": {"type": "integer"},
    "real": {"type": "number"},
    "double precision": {"type": "number"},
    "boolean": {"type": "boolean"},
    "jsonb": {"type": "object"},
    "interval": {"type": "string", "description": "a duration, e.g. '2 hours' or 'PT2H'"},
    "timestamp with time zone": {"type": "string", "format": "date-time"},
    "text[]": {"type": "array", "items": {"type": "string"}},
    "bigint[]": {"type": "array", "items": {"type": "integer"}},
    "jsonb[]": {"type": "array", "items": {"type": "object"}},
    "timestamp with time zone[]": {"type": "array", "items": {"type": "string", "format": "date-time"}},
}

# The SQL names of paging parameters are not SQL keywords; clients see the usual ones.
LIMIT, SKIP = "k", "skip"
PUBLIC_NAMES = {LIMIT: "limit", SKIP: "cursor"}
# The reference's parameter names, accepted as aliases (never advertised).
ALIASES = {"offset": SKIP, "slug": "path"}

PARAM_DOCS = {
    "namespaces": "namespace paths; each covers its descendants, '/' covers everything",
    "namespace": "namespace path, e.g. /projects/app (see list_namespaces)",
    "limit": "how many results (at most the maximum)",
    "cursor": "next_cursor of the previous page",
    "confidence": "0 to 1",
    "min_confidence": "0 to 1",
    "min_similarity": "0 to 1",
    "as_of": "as the memory stood at this time",
    "dry_run": "preview only: change nothing",
}
UNIT_INTERVAL = {"confidence", "min_confidence", "min_similarity"}


class ArgumentError(ValueError):
    """Arguments that do not fit the tool's schema (the database is not called)."""

    def __init__(self, message: str, sqlstate: str = "22023"):
        super().__init__(message)
        self.sqlstate = sqlstate


def _has_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_nul(v) for v in value)
    return False


@dataclass
class Param:
    name: str  # the SQL parameter name
    sql_type: str
    required: bool
    default: Any = None
    has_default: bool = False
    default_sql: str | None = None  # as pg_get_function_arg_default shows it

    @property
    def public_name(self) -> str:
        return PUBLIC_NAMES.get(self.name, self.name)


@dataclass
class Tool:
    name: str
    description: str
    spec: Spec
    params: list[Param]
    input_schema: dict[str, Any]

    @cached_property
    def _validator(self) -> jsonschema.protocols.Validator:
        # Built once: jsonschema.validate() would check the schema itself on every call (~3 ms).
        return jsonschema.Draft202012Validator(self.input_schema, format_checker=jsonschema.FormatChecker())

    @property
    def read_only(self) -> bool:
        return self.spec.kind[0]

    @property
    def destructive(self) -> bool:
        return self.spec.kind[1]

    @property
    def idempotent(self) -> bool:
        return self.spec.kind[2]

    def arguments(self, raw: dict[str, Any] | None, origin: str) -> dict[str, Any]:
        """Client arguments -> SQL arguments: aliases, compatibility coercions, schema validation."""
        args = dict(raw or {})
        for alias, target in ALIASES.items():
            public = PUBLIC_NAMES.get(target, target)
            if alias in args and public not in args and any(p.name == target for p in self.params):
                args[public] = args.pop(alias)
        if "cursor" in args and isinstance(args["cursor"], int):
            args["cursor"] = str(args["cursor"])
        for p in self.params:
            value = args.get(p.public_name)
            # The reference passes lists as comma-separated strings.
            if p.sql_type.endswith("[]") and isinstance(value, str):
                items = [s.strip() for s in value.split(",") if s.strip()]
                if p.sql_type == "bigint[]":
                    items = [int(s) if s.lstrip("-").isdigit() else s for s in items]
                args[p.public_name] = items
            # The reference's "0 means none" for optional ids.
            elif value == 0 and p.name.endswith("_id") and p.has_default and p.default is None:
                del args[p.public_name]
        # PostgreSQL text cannot hold NUL; say so as the server would (character_not_in_repertoire).
        if _has_nul(args):
            raise ArgumentError(f"{self.name}: text must not contain NUL (\\u0000) characters", "22021")
        error = jsonschema.exceptions.best_match(self._validator.iter_errors(args))
        if error is not None:
            where = ".".join(str(x) for x in error.absolute_path) or "arguments"
            raise ArgumentError(f"{self.name}: {where}: {error.message}")
        out: dict[str, Any] = {}
        for p in self.params:
            if p.name in self.spec.origin_params:
                out[p.name] = origin
            elif p.public_name in args:
                value = args[p.public_name]
                if p.name == SKIP:
                    if not str(value).isdigit():
                        raise ArgumentError(f"{self.name}: cursor: not a cursor this server returned")
                    value = int(value)
                out[p.name] = value
        return out

    def statement(self, args: dict[str, Any]) -> tuple[sql.Composed, dict[str, Any]]:
        """select * from stash.<name>(param => value::type, ...) for the given arguments only."""
        named = [
            sql.SQL("{} => {}::{}").format(
                sql.Identifier(p.name), sql.Placeholder(p.name), sql.SQL(p.sql_type)
            )
            for p in self.params
            if p.name in args
        ]
        query = sql.SQL("select * from stash.{}({})").format(
            sql.Identifier(self.name), sql.SQL(", ").join(named)
        )
        params = {k: _adapt(v) for k, v in args.items()}
        return query, params

    def shape(self, rows: list[dict[str, Any]], args: dict[str, Any]) -> dict[str, Any]:
        """Rows from statement() -> the JSON object clients receive."""
        result = self.spec.result
        if result in ("rows", "paged"):
            out: dict[str, Any] = {"results": [jsonable(r) for r in rows]}
            if result == "paged":
                limit = args.get(LIMIT, self._default(LIMIT))
                skip = args.get(SKIP, 0)
                out["next_cursor"] = str(skip + len(rows)) if len(rows) == limit else None
            return out
        if result == "row":
            return jsonable(rows[0]) if rows else {}
        value = rows[0][self.name] if rows else None
        if result == "object":
            return jsonable(value) if value is not None else {}
        return {result: jsonable(value)}

    def _default(self, name: str) -> Any:
        return next((p.default for p in self.params if p.name == name), None)


def _adapt(value: Any) -> Any:
    if isinstance(value, dict):
        return Jsonb(value)
    if isinstance(value, list) and any(isinstance(v, dict) for v in value):
        return [Jsonb(v) if isinstance(v, dict) else v for v in value]
    return value


def jsonable(value: Any) -> Any:
    """Database values -> JSON values (timestamps as ISO 8601, intervals in seconds)."""
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, decimal.Decimal):
        return float(value)
    return value


_DEFAULT = re.compile(r"^'((?:[^']|'')*)'::(.+)$")


def parse_default(text: str | None, sql_type: str) -> tuple[bool, Any]:
    """A default expression from pg_get_function_arg_default -> (known, JSON value)."""
    if text is None:
        return False, None
    if text.startswith("NULL::") or text == "NULL":
        return True, None
    if text in ("true", "false"):
        return True, text == "true"
    if re.fullmatch(r"-?\d+", text):
        return True, int(text)
    if re.fullmatch(r"-?\d+\.\d*", text):
        return True, float(text)
    m = _DEFAULT.match(text)
    if not m:
        return False, None  # an expression such as now(): described, not given as a value
    literal = m.group(1).replace("''", "'")
    if sql_type.endswith("[]"):
        items = [s for s in literal.strip("{}").split(",") if s]
        return True, [int(s) for s in items] if sql_type == "bigint[]" else items
    if sql_type == "jsonb":
        return True, json.loads(literal)
    return True, literal


CATALOG_QUERY = """
select p.proname::text as name,
       coalesce(obj_description(p.oid, 'pg_proc'), '') as description,
       coalesce((select jsonb_agg(jsonb_build_object(
                          'name', a.name, 'type', format_type(a.type, null),
                          'default', pg_get_function_arg_default(p.oid, a.n::int)) order by a.n)
                   from unnest(p.proargnames[1:p.pronargs], p.proargtypes::oid[])
                        with ordinality a(name, type, n)),
                '[]') as params
  from pg_proc p
 where p.pronamespace = 'stash'::regnamespace and p.prokind = 'f' and p.proname !~ '^_'
 order by p.proname
"""
LIMITS_QUERY = (
    "select key, value from stash.settings where key in ('list.max_rows', 'recall.max_k', 'causal.max_depth')"
)


def build_catalog(functions: list[dict[str, Any]], settings: dict[str, Any]) -> dict[str, Tool]:
    """Tools from the rows of CATALOG_QUERY and LIMITS_QUERY (the caller runs them)."""
    by_name = {f["name"]: f for f in functions}
    missing = sorted(set(SPECS) - set(by_name))
    if missing:
        raise RuntimeError(
            f"schema stash lacks functions {', '.join(missing)}: is the schema deployed and current?"
        )
    tools = {}
    for name, spec in SPECS.items():
        f = by_name[name]
        params = []
        for a in f["params"]:
            if a["type"] not in TYPES:
                raise RuntimeError(
                    f"stash.{name}: parameter {a['name']} has type {a['type']}, unknown to stash.api"
                )
            known, default = parse_default(a["default"], a["type"])
            params.append(Param(a["name"], a["type"], a["default"] is None, default, known, a["default"]))
        tools[name] = Tool(name, f["description"], spec, params, _schema(name, spec, params, settings))
    return tools


def _schema(name: str, spec: Spec, params: list[Param], settings: dict[str, Any]) -> dict[str, Any]:
    props: dict[str, Any] = {}
    required = []
    for p in params:
        if p.name in spec.origin_params:
            continue
        s = dict(TYPES[p.sql_type])
        if p.name == SKIP:
            s = {"type": "string", "pattern": r"^\d+$"}
        elif p.name == LIMIT or p.name == "max_depth":
            key = "causal.max_depth" if p.name == "max_depth" else spec.limit_setting
            s.update(minimum=1, maximum=int(settings[key]))
        elif p.name in UNIT_INTERVAL:
            s.update(minimum=0, maximum=1)
        elif p.name == "id" or (p.name.endswith("_id") and p.sql_type == "bigint"):
            s["minimum"] = 1
        if p.name in spec.enums:
            if s["type"] == "array":
                s["items"] = {"type": "string", "enum": spec.enums[p.name]}
            else:
                s["enum"] = spec.enums[p.name]
        if p.name == "namespaces":
            s["minItems"] = 1
        doc = PARAM_DOCS.get(p.public_name)
        if doc:
            s["description"] = doc if "description" not in s else f"{doc}; {s['description']}"
        if p.has_default and p.default is not None and p.name != SKIP:
            s["default"] = p.default
        if not p.has_default and not p.required:  # an expression such as now()
            s["description"] = "; ".join(filter(None, [s.get("description"), f"default: {p.default_sql}"]))
        # Optional parameters whose default is NULL may be passed as null.
        if p.has_default and p.default is None:
            description = s.pop("description", None)
            s = {"anyOf": [s, {"type": "null"}]}
            if description:
                s["description"] = description
        props[p.public_name] = s
        if p.required:
            required.append(p.public_name)
    schema: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


def load_catalog_sync(conn) -> dict[str, Tool]:
    with conn.cursor() as cur:
        functions = cur.execute(CATALOG_QUERY).fetchall()
        settings = dict(cur.execute(LIMITS_QUERY).fetchall())
    return build_catalog([_row(f, ("name", "description", "params")) for f in functions], settings)


async def load_catalog_async(conn) -> dict[str, Tool]:
    async with conn.cursor() as cur:
        functions = await (await cur.execute(CATALOG_QUERY)).fetchall()
        settings = dict(await (await cur.execute(LIMITS_QUERY)).fetchall())
    return build_catalog([_row(f, ("name", "description", "params")) for f in functions], settings)


def _row(row: Any, names: tuple[str, ...]) -> dict[str, Any]:
    return row if isinstance(row, dict) else dict(zip(names, row, strict=True))


def sql_error(e: Exception) -> str:
    """A database error as the agent or user should read it: message, SQLSTATE, detail, hint."""
    diag = getattr(e, "diag", None)
    if diag is None or diag.message_primary is None:
        # No SQLSTATE: the server never answered (or the driver refused the value).
        import psycopg

        prefix = "database unavailable: " if isinstance(e, psycopg.OperationalError) else ""
        return f"{prefix}{e}".strip()
    text = f"{diag.message_primary} (SQLSTATE {diag.sqlstate})"
    if diag.message_detail:
        text += f"\nDETAIL: {diag.message_detail}"
    if diag.message_hint:
        text += f"\nHINT: {diag.message_hint}"
    return text


def conninfo(env_file: Path | None = None) -> str:
    """How to reach the database: STASH_DATABASE_URL, else libpq's PG* environment, else the
    checkout's local cluster (.stash/env, written by make up), so an agent client that starts
    `.venv/bin/stash mcp` with no environment still finds it."""
    url = os.environ.get("STASH_DATABASE_URL")
    if url:
        return url
    if any(k in os.environ for k in ("PGHOST", "PGPORT", "PGDATABASE", "PGSERVICE")):
        return ""
    env_file = env_file or Path(__file__).resolve().parents[2] / ".stash" / "env"
    if env_file.is_file():
        keys = {"PGHOST": "host", "PGPORT": "port", "PGDATABASE": "dbname", "PGUSER": "user"}
        parts = []
        for line in env_file.read_text().splitlines():
            m = re.fullmatch(r"export (PG\w+)=(.*)", line.strip())
            if m and m.group(1) in keys:
                parts.append(f"{keys[m.group(1)]}={m.group(2)}")
        return " ".join(parts)
    return ""


def set_role_statement() -> sql.Composed | None:
    """SET ROLE for STASH_ROLE (e.g. stash_writer, or a role granted only some namespaces)."""
    role = os.environ.get("STASH_ROLE")
    return sql.SQL("set role {}").format(sql.Identifier(role)) if role else None
