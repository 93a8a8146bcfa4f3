"""`make bench`: every benchmark, against a throwaway cluster made for it. Prints Markdown tables;
the numbers are recorded by hand, with date and machine, in bench/RESULTS.md.
"""

import statistics
import sys
import time

import consolidation
import load
import locomo
import mcp_latency
import psycopg
import scale


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
        (
            "python_info, first call in a new backend (imports numpy, onnxruntime, openai)",
            statistics.median(cold),
            "ms",
        ),
        ("python_info, warm", statistics.median(warm), "ms"),
    ]


def main():
    print("| benchmark | value | unit |\n|---|---:|---|")
    for bench in (bridge, mcp_latency.run, load.run, scale.run, consolidation.run):
        for name, value, unit in bench():
            shown = f"{value:,.1f}" if isinstance(value, int | float) else value
            print(f"| {name} | {shown} | {unit} |", flush=True)
    print()
    locomo.main(sys.argv[1:])


if __name__ == "__main__":
    main()
