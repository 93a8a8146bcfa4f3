"""Stash: persistent memory for AI agents inside PostgreSQL.

This package is imported in two places: by plpython3u functions inside the server (embedders,
reasoners, validation) and by the `stash` command in the project's virtual environment. Nothing
here talks to the database on import.
"""

__version__ = "0.1.0"
