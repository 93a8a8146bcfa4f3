"""The `stash` command: the MCP server, and the SQL API for people at a terminal.

Every memory command calls one tool of stash.api (one SQL function) with the options given:
tables for humans, --json for scripts. Exit codes: 0 success, 1 the database refused (message
and SQLSTATE on stderr), 2 bad usage, 3 the database is unreachable.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from typing import Any

import stash
from stash.info import runtime_info

# (flags, options): `dest` is the tool's parameter name as clients see it (stash.api).
NAMESPACES = (("-n", "--namespace"), dict(dest="namespaces", action="append", metavar="PATH",
              help="namespace path (repeatable; each covers its descendants; default /)"))  # fmt: skip
NAMESPACE = (
    ("-n", "--namespace"),
    dict(dest="namespace", required=True, metavar="PATH", help="namespace path"),
)
LIMIT = (("--limit",), dict(type=int, help="how many results"))
CURSOR = (("--cursor",), dict(help="continue after the previous page (its next cursor)"))
ID = (("id",), dict(type=int, help="id"))
NOTES = (("--notes",), dict(help="notes"))
CONFIDENCE = (("--confidence",), dict(type=float, help="0 to 1"))
PAGE = (LIMIT, CURSOR)


def _json_value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise argparse.ArgumentTypeError(f"not JSON: {e}") from None


# (words, tool, help, arguments, table columns for list results)
COMMANDS: list[tuple[tuple[str, ...], str, str, tuple, tuple[str, ...]]] = [
    (("status",), "status", "database, extensions, embedder and reasoner, counts, last runs", (), ()),
    (
        ("remember",),
        "remember",
        "store an episode",
        (
            (("content",), dict(help="what was observed")),
            NAMESPACE,
            (("--occurred-at",), dict(dest="occurred_at", help="when (ISO 8601; default now)")),
            (("--metadata",), dict(type=_json_value, help="JSON object")),
            (("--agent",), dict(help="who observed it")),
            (
                ("--idempotency-key",),
                dict(dest="idempotency_key", help="a retry with the same key stores nothing new"),
            ),
        ),
        (),
    ),
    (
        ("recall",),
        "recall",
        "find relevant episodes and facts",
        (
            (("query",), dict(help="a few words")),
            NAMESPACES,
            LIMIT,
            CURSOR,
            (
                ("--kind",),
                dict(dest="kinds", action="append", choices=("episode", "fact"), help="repeatable"),
            ),
            (("--since",), dict(help="ISO 8601")),
            (("--until",), dict(help="ISO 8601")),
            (("--as-of",), dict(dest="as_of", help="as memory stood then (ISO 8601)")),
            (("--explain",), dict(action="store_true", default=None, help="show score components")),
        ),
        ("kind", "id", "namespace", "score", "confidence", "content"),
    ),
    (
        ("forget",),
        "forget",
        "soft-delete episodes by description or id",
        (
            (("about",), dict(nargs="?", help="the stored wording (recall first)")),
            (("--episode-id",), dict(dest="episode_id", type=int)),
            NAMESPACES,
            (("--max-rows",), dict(dest="max_rows", type=int)),
            (("--min-similarity",), dict(dest="min_similarity", type=float)),
            (("--dry-run",), dict(dest="dry_run", action="store_true", default=None, help="preview only")),
        ),
        ("kind", "id", "namespace", "similarity", "forgotten", "content"),
    ),
    (
        ("consolidate",),
        "consolidate",
        "turn episodes into knowledge (progress on stderr)",
        ((("namespace",), dict(nargs="?", help="namespace (and descendants); default /")),),
        (
            "namespace",
            "episodes_read",
            "facts_created",
            "facts_deduplicated",
            "contradictions_found",
            "relationships_found",
            "patterns_found",
            "duration_ms",
            "skipped",
        ),
    ),
    (
        ("namespaces", "list"),
        "list_namespaces",
        "namespaces with counts",
        (NAMESPACES, *PAGE),
        ("path", "name", "episodes", "facts", "description"),
    ),
    (
        ("namespaces", "create"),
        "create_namespace",
        "create a namespace (and its ancestors)",
        (
            (("path",), dict()),
            (("--name",), dict()),
            (("--description",), dict()),
        ),
        (),
    ),
    (("namespaces", "init"), "init", "create the /self namespaces", (), ("path", "name", "description")),
    (
        ("context", "get"),
        "get_context",
        "the working context of a namespace",
        ((("namespace",), dict()),),
        (),
    ),
    (
        ("context", "set"),
        "set_context",
        "set the working context",
        (
            (("namespace",), dict()),
            (("focus",), dict()),
            (("--ttl",), dict(help="e.g. '2 hours'")),
        ),
        (),
    ),
    (("context", "clear"), "clear_context", "clear the working context", ((("namespace",), dict()),), ()),
    (
        ("facts", "list"),
        "query_facts",
        "current facts",
        (
            NAMESPACES,
            (("--entity",), dict()),
            (("--property",), dict()),
            (("--min-confidence",), dict(dest="min_confidence", type=float)),
            (("--as-of",), dict(dest="as_of", help="ISO 8601")),
            (("--history",), dict(dest="include_history", action="store_true", default=None)),
            *PAGE,
        ),
        ("id", "namespace", "entity", "property", "value", "confidence", "content"),
    ),
    (("facts", "get"), "get_fact", "a fact with its sources and history", (ID,), ()),
    (
        ("facts", "assert"),
        "assert_fact",
        "state a fact",
        (
            (("content",), dict()),
            NAMESPACE,
            (("--entity",), dict()),
            (("--property",), dict()),
            (("--value",), dict()),
            CONFIDENCE,
            (("--pinned",), dict(action="store_true", default=None)),
        ),
        (),
    ),
    (
        ("facts", "correct"),
        "correct_fact",
        "replace a fact by a corrected version",
        (
            ID,
            (("--content",), dict()),
            (("--value",), dict()),
            CONFIDENCE,
        ),
        (),
    ),
    (
        ("facts", "pin"),
        "pin_fact",
        "exempt a fact from decay (--off to undo)",
        (
            ID,
            (("--off",), dict(dest="pinned", action="store_false", default=None)),
        ),
        (),
    ),
    (
        ("relationships", "list"),
        "query_relationships",
        "relationships between entities",
        (
            NAMESPACES,
            (("--entity",), dict()),
            (("--type",), dict(dest="relation_type")),
            *PAGE,
        ),
        ("id", "namespace", "from_entity", "relation_type", "to_entity", "confidence"),
    ),
    (
        ("patterns", "list"),
        "query_patterns",
        "patterns found by consolidation",
        (
            NAMESPACES,
            (("--min-confidence",), dict(dest="min_confidence", type=float)),
            *PAGE,
        ),
        ("id", "namespace", "confidence", "content"),
    ),
    (
        ("contradictions", "list"),
        "list_contradictions",
        "contradictions between facts",
        (
            NAMESPACES,
            (("--all",), dict(dest="include_resolved", action="store_true", default=None)),
            *PAGE,
        ),
        ("id", "namespace", "entity", "property", "old_value", "new_value", "resolution"),
    ),
    (
        ("contradictions", "resolve"),
        "resolve_contradiction",
        "resolve a contradiction",
        (
            ID,
            (("resolution",), dict(choices=("keep_old", "keep_new", "keep_both", "neither"))),
        ),
        (),
    ),
    (
        ("causal", "list"),
        "list_causal_links",
        "causal links",
        (
            NAMESPACES,
            (("--fact-id",), dict(dest="fact_id", type=int)),
            *PAGE,
        ),
        ("id", "namespace", "cause_fact_id", "effect_fact_id", "confidence", "method"),
    ),
    (
        ("causal", "create"),
        "create_causal_link",
        "link a cause fact to an effect fact",
        (
            (("cause_id",), dict(type=int)),
            (("effect_id",), dict(type=int)),
            CONFIDENCE,
        ),
        (),
    ),
    (
        ("causal", "trace"),
        "trace_causal_chain",
        "follow causes or effects of a fact",
        (
            (("fact_id",), dict(type=int)),
            (
                ("--backward",),
                dict(dest="direction", action="store_const", const="backward", help="causes, not effects"),
            ),
            (("--depth",), dict(dest="max_depth", type=int)),
        ),
        ("depth", "link_id", "cause", "effect", "confidence"),
    ),
    (("causal", "delete"), "delete_causal_link", "delete a causal link", (ID,), ()),
    (
        ("goals", "list"),
        "list_goals",
        "goals (top-level, or the sub-goals of --parent-id)",
        (
            NAMESPACES,
            (("--status",), dict(choices=("active", "completed", "abandoned"))),
            (("--parent-id",), dict(dest="parent_id", type=int)),
            *PAGE,
        ),
        ("id", "namespace", "status", "priority", "sub_goals", "content"),
    ),
    (("goals", "get"), "get_goal", "a goal with its sub-goals", (ID,), ()),
    (
        ("goals", "create"),
        "create_goal",
        "create a goal",
        (
            (("content",), dict()),
            NAMESPACE,
            (("--parent-id",), dict(dest="parent_id", type=int)),
            (("--priority",), dict(type=int)),
        ),
        (),
    ),
    (
        ("goals", "update"),
        "update_goal",
        "change an active goal",
        (
            ID,
            (("--content",), dict()),
            (("--priority",), dict(type=int)),
            NOTES,
        ),
        (),
    ),
    (("goals", "complete"), "complete_goal", "complete a goal", (ID, NOTES), ()),
    (("goals", "abandon"), "abandon_goal", "abandon a goal", (ID, NOTES), ()),
    (("goals", "delete"), "delete_goal", "delete a goal and its sub-goals", (ID,), ()),
    (
        ("hypotheses", "list"),
        "list_hypotheses",
        "hypotheses",
        (
            NAMESPACES,
            (("--status",), dict(choices=("proposed", "testing", "confirmed", "rejected"))),
            *PAGE,
        ),
        ("id", "namespace", "status", "confidence", "content"),
    ),
    (("hypotheses", "get"), "get_hypothesis", "a hypothesis", (ID,), ()),
    (
        ("hypotheses", "create"),
        "create_hypothesis",
        "propose a hypothesis",
        (
            (("content",), dict()),
            NAMESPACE,
            (("--plan",), dict(dest="verification_plan")),
            CONFIDENCE,
            (("--source-fact-id",), dict(dest="source_fact_ids", type=int, action="append")),
        ),
        (),
    ),
    (("hypotheses", "test"), "test_hypothesis", "start testing a hypothesis", (ID,), ()),
    (("hypotheses", "confirm"), "confirm_hypothesis", "confirm a hypothesis into a fact", (ID,), ()),
    (("hypotheses", "reject"), "reject_hypothesis", "reject a hypothesis", (ID, (("--reason",), dict())), ()),
    (
        ("hypotheses", "refine"),
        "refine_hypothesis",
        "refine a hypothesis",
        (
            ID,
            (("--content",), dict()),
            (("--plan",), dict(dest="verification_plan")),
            CONFIDENCE,
        ),
        (),
    ),
    (("hypotheses", "delete"), "delete_hypothesis", "delete a hypothesis", (ID,), ()),
    (
        ("failures", "list"),
        "list_failures",
        "failures and their lessons",
        (
            NAMESPACES,
            (("--goal-id",), dict(dest="goal_id", type=int)),
            *PAGE,
        ),
        ("id", "namespace", "goal_id", "content", "lesson"),
    ),
    (("failures", "get"), "get_failure", "a failure", (ID,), ()),
    (
        ("failures", "create"),
        "create_failure",
        "record a failure and its lesson",
        (
            (("content",), dict()),
            NAMESPACE,
            (("--reason",), dict(required=True)),
            (("--lesson",), dict(required=True)),
            (("--goal-id",), dict(dest="goal_id", type=int)),
        ),
        (),
    ),
    (("failures", "delete"), "delete_failure", "delete a failure", (ID,), ()),
    (
        ("schedules", "status"),
        "consolidation_status",
        "consolidation runs, schedules and backlog",
        (
            NAMESPACES,
            LIMIT,
        ),
        (
            "job",
            "namespace",
            "schedule",
            "active",
            "last_status",
            "last_start",
            "id",
            "triggered_by",
            "status",
            "started_at",
            "duration_ms",
            "episodes",
        ),
    ),
    (
        ("schedules", "add"),
        "schedule_consolidation",
        "consolidate a namespace on a cron schedule",
        (
            (("namespace",), dict()),
            (("schedule",), dict(nargs="?", help="cron, e.g. '*/10 * * * *'")),
        ),
        (),
    ),
    (
        ("schedules", "remove"),
        "unschedule_consolidation",
        "remove a namespace's schedule",
        ((("namespace",), dict()),),
        (),
    ),
    (
        ("purge",),
        "purge",
        "delete for good: one episode, or a whole namespace subtree",
        (
            (("--episode-id",), dict(dest="episode_id", type=int)),
            (("--namespace",), dict()),
            (("--yes",), dict(dest="_yes", action="store_true", help="required: this cannot be undone")),
        ),
        (),
    ),
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="stash", description="Persistent memory for AI agents, in PostgreSQL."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = sub.add_parser("version", help="print the package version")
    p.add_argument("-v", "--verbose", action="store_true", help="also list runtime module versions")
    p.set_defaults(func=_cmd_version)
    p = sub.add_parser("mcp", help="run the MCP server", description="Run the MCP server (settings: README).")
    p.add_argument(
        "--transport", choices=("stdio", "http", "sse"), help="default: $STASH_MCP_TRANSPORT, stdio"
    )
    p.add_argument("--host", help="HTTP bind address (default: $STASH_MCP_HOST or 127.0.0.1)")
    p.add_argument("--port", type=int, help="HTTP port (default: $STASH_MCP_PORT or 8765)")
    p.set_defaults(func=_cmd_mcp)
    groups: dict[str, argparse._SubParsersAction] = {}
    for words, tool, help_text, arguments, columns in COMMANDS:
        if len(words) == 1:
            p = sub.add_parser(words[0], help=help_text, description=f"{help_text} (stash.{tool})")
        else:
            if words[0] not in groups:
                g = sub.add_parser(
                    words[0], help=f"{words[0]}: {'/'.join(w[1] for w, *_ in COMMANDS if w[0] == words[0])}"
                )
                groups[words[0]] = g.add_subparsers(dest="action", required=True, metavar="ACTION")
            p = groups[words[0]].add_parser(
                words[1], help=help_text, description=f"{help_text} (stash.{tool})"
            )
        for flags, options in arguments:
            p.add_argument(*flags, **options)
        p.add_argument("--json", dest="_json", action="store_true", help="print JSON instead of a table")
        p.set_defaults(func=_cmd_tool, _tool=tool, _columns=columns)
    return parser


def _cmd_mcp(args: argparse.Namespace) -> int:
    from stash_mcp.server import main as serve  # the MCP SDK is only needed here

    return serve(transport=args.transport, host=args.host, port=args.port)


def _cmd_version(args: argparse.Namespace) -> int:
    print(json.dumps(runtime_info(), indent=2) if args.verbose else stash.__version__)
    return 0


def _cmd_tool(args: argparse.Namespace) -> int:
    import psycopg
    from psycopg.rows import dict_row

    from stash import api

    if args._tool == "purge" and not args._yes:
        print("stash: purge deletes for good; add --yes", file=sys.stderr)
        return 2
    given = {
        k: v
        for k, v in vars(args).items()
        if not k.startswith("_") and k not in ("func", "command", "action")
    }
    given = {k: v for k, v in given.items() if v is not None}
    try:
        conn = psycopg.connect(api.conninfo(), autocommit=True, application_name="stash-cli")
    except psycopg.OperationalError as e:
        print(
            f"stash: database unreachable: {str(e).strip()}\n(is it up? make up; . .stash/env)",
            file=sys.stderr,
        )
        return 3
    with conn:
        role = api.set_role_statement()
        if role is not None:
            conn.execute(role)
        tool = api.load_catalog_sync(conn)[args._tool]
        try:
            call = tool.arguments(given, origin="cli")
        except api.ArgumentError as e:
            print(f"stash: {e}", file=sys.stderr)
            return 2
        query, params = tool.statement(call)
        conn.add_notice_handler(_print_notice)
        try:
            rows = conn.cursor(row_factory=dict_row).execute(query, params).fetchall()
        except psycopg.Error as e:
            print(f"stash: {api.sql_error(e)}", file=sys.stderr)
            return 1
    result = tool.shape(rows, call)
    if args._json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        _print_human(result, args._columns)
    return 0


def _print_notice(diag) -> None:
    # consolidate reports each stage as a NOTICE; warnings (e.g. embedder down) matter too.
    print(f"stash: {diag.severity.lower()}: {diag.message_primary}", file=sys.stderr, flush=True)


def _print_human(result: dict[str, Any], columns: tuple[str, ...]) -> None:
    if "results" in result:
        rows = result["results"]
        if not rows:
            print("(none)")
        else:
            _print_table(rows, columns or tuple(rows[0]))
        if result.get("next_cursor"):
            print(f"(more: --cursor {result['next_cursor']})", file=sys.stderr)
        return
    # An object: its scalars as "key  value" lines (sorted; per-stage timings left to --json), then
    # each list of records as a table under its key.
    tables = {k: v for k, v in result.items() if isinstance(v, list) and v and isinstance(v[0], dict)}
    scalars = {k: v for k, v in sorted(result.items()) if k not in tables and not k.startswith("ms_")}
    width = max((len(k) for k in scalars), default=0)
    for key, value in scalars.items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        print(f"{key.ljust(width)}  {text}")
    for key, rows in tables.items():
        print(f"\n{key}:")
        wanted = (
            tuple(c for c in columns if c in rows[0])
            or tuple(
                k for k, v in rows[0].items() if not isinstance(v, dict | list) and not k.startswith("ms_")
            )[:8]
        )
        _print_table(rows, wanted)


def _print_table(rows: list[dict[str, Any]], columns: tuple[str, ...]) -> None:
    def cell(v: Any) -> str:
        if v is None:
            return ""
        if isinstance(v, float):
            return f"{v:.3f}"
        text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
        return " ".join(text.split())

    cells = [[cell(r.get(c)) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    # The last column (content, mostly) gets what the terminal has left.
    room = shutil.get_terminal_size((120, 24)).columns - sum(w + 2 for w in widths[:-1])
    widths[-1] = max(10, min(widths[-1], room))
    print("  ".join(c.upper().ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip())
    for row in cells:
        last = row[-1] if len(row[-1]) <= widths[-1] else row[-1][: widths[-1] - 1] + "…"
        print("  ".join([*(v.ljust(w) for v, w in zip(row[:-1], widths[:-1], strict=True)), last]).rstrip())


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
