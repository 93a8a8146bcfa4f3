"""The `stash` command. Subcommands arrive with the issues that build them."""

import argparse
import contextlib
import json
import os
import signal
import sys

import stash
from stash.info import runtime_info


def _connection_hint() -> str:
    return (
        f"database: host={os.environ.get('PGHOST', '?')} port={os.environ.get('PGPORT', '?')} "
        f"dbname={os.environ.get('PGDATABASE', 'stash')}\n"
        "connect:  . .stash/env && psql"
    )


def _cmd_mcp(args: argparse.Namespace) -> int:
    # Placeholder until the MCP issue lands: keep the foreground process alive, say how to connect.
    print("stash: the MCP server is not built yet; the database is up and stays up.", flush=True)
    print(_connection_hint(), flush=True)
    print("Ctrl-C to stop this process (the database keeps running; `make down` stops it).", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        signal.pause()
    return 0


def _cmd_version(args: argparse.Namespace) -> int:
    print(json.dumps(runtime_info(), indent=2) if args.verbose else stash.__version__)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="stash", description="Persistent memory for AI agents.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("version", help="print the package version")
    p.add_argument("-v", "--verbose", action="store_true", help="also list runtime module versions")
    p.set_defaults(func=_cmd_version)
    p = sub.add_parser("mcp", help="run the MCP server (placeholder for now)")
    p.set_defaults(func=_cmd_mcp)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
