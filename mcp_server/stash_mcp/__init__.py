"""Stash's MCP server: the SQL API's functions as MCP tools, over stdio, streamable HTTP or SSE."""
