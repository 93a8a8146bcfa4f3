"""Benchmarks against the local database (`make bench`). Prints a Markdown table to stdout.

Each benchmark is a function returning rows of (name, value, unit); results are recorded by hand
in bench/RESULTS.md with the date and machine.
"""

import statistics
import time

import psycopg


def bridge():
    """plpython3u: first call in a fresh backend (imports the package) and warm calls."""
    cold = []
    for _ in range(5):
        with psycopg.connect(autocommit=True) as c:
            t = time.perf_counter()
            c.execute("select stash.python_info()").fetchone()
            cold.append((time.perf_counter() - t) * 1000)
    with psycopg.connect(autocommit=True) as c:
        c.execute("select stash.python_info()").fetchone()
        warm = []
        for _ in range(200):
            t = time.perf_counter()
            c.execute("select stash.python_info()").fetchone()
            warm.append((time.perf_counter() - t) * 1000)
    return [
        ("python_info, first call in a new backend (median of 5)", statistics.median(cold), "ms"),
        ("python_info, warm (median of 200)", statistics.median(warm), "ms"),
    ]


BENCHMARKS = [bridge]


def main():
    print("| benchmark | value | unit |\n|---|---:|---|")
    for bench in BENCHMARKS:
        for name, value, unit in bench():
            print(f"| {name} | {value:.2f} | {unit} |", flush=True)


if __name__ == "__main__":
    main()
