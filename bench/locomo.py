"""Retrieval quality of stash.recall on LoCoMo (../shared/data/locomo-dev), beside pure vector and
pure full-text ranking over the same rows.

Procedure (../shared/data/README.md): one namespace per conversation, every turn one episode
"<speaker>: <text>" with occurred_at = its session's date; for each question of categories 1-4,
recall@k = |evidence ∩ top k| / |evidence| and hit@k = any evidence in the top k, averaged.
Runs in namespaces under /bench/locomo, purged afterwards.

    . .stash/env && .venv/bin/python bench/locomo.py [--data DIR] [--ablations]
"""

import argparse
import datetime as dt
import json
import pathlib
import re
import time

import psycopg

ROOT = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "locomo-dev"
KS = (5, 10, 20)
PREFIX = "/bench/locomo"


def session_date(text: str) -> dt.datetime:
    # e.g. "1:56 pm on 8 May, 2023"
    return dt.datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=dt.UTC)


def load(conn, path: pathlib.Path) -> tuple[str, dict, list]:
    conv = json.loads(path.read_text())
    ns = f"{PREFIX}/c{path.stem}"
    conn.execute("select stash.create_namespace(%s)", (ns,))
    contents, times, metas = [], [], []
    sessions = sorted((int(m.group(1)), key) for key in conv if (m := re.fullmatch(r"session_(\d+)", key)))
    for n, key in sessions:
        when = session_date(conv[f"session_{n}_date_time"])
        for turn in conv[key]:
            contents.append(f"{turn['speaker']}: {turn['text']}")
            times.append(when)
            metas.append(json.dumps({"dia_id": turn["dia_id"]}))
    by_id = {}
    for start in range(0, len(contents), 500):
        ids = conn.execute(
            "select stash.remember_many(%s, %s, %s::timestamptz[], %s::jsonb[], source => 'bench')",
            (ns, contents[start : start + 500], times[start : start + 500], metas[start : start + 500]),
        ).fetchone()[0]
        for i, episode_id in enumerate(ids):
            by_id[episode_id] = json.loads(metas[start + i])["dia_id"]
    questions = [q for q in conv["qa"] if q["category"] in (1, 2, 3, 4) and q.get("evidence")]
    return ns, by_id, questions


def reuse(conn, path: pathlib.Path) -> tuple[str, dict, list]:
    conv = json.loads(path.read_text())
    ns = f"{PREFIX}/c{path.stem}"
    rows = conn.execute(
        "select id, metadata->>'dia_id' from stash.episodes where namespace_id = stash._namespace_id(%s)",
        (ns,),
    ).fetchall()
    questions = [q for q in conv["qa"] if q["category"] in (1, 2, 3, 4) and q.get("evidence")]
    return ns, dict(rows), questions


# The baselines: the same rows, one retriever each.
VECTOR_SQL = """
with q as (select (stash.embed(array[%(q)s]))[1] as v)
select e.id from stash.episodes e, q
 where e.namespace_id = stash._namespace_id(%(ns)s)
 order by (e.embedding <=> q.v) + 0 limit %(k)s"""
TEXT_SQL = """
select e.id from stash.episodes e
 where e.namespace_id = stash._namespace_id(%(ns)s) and e.content_tsv @@ stash._query_tsquery(%(q)s)
 order by ts_rank(e.content_tsv, stash._query_tsquery(%(q)s)) desc, e.id limit %(k)s"""
RECALL_SQL = "select id from stash.recall(%(q)s, array[%(ns)s], k => %(k)s, kinds => '{episode}')"


def score(conn, sql, datasets) -> dict:
    totals = {f"{m}@{k}": 0.0 for k in KS for m in ("recall", "hit")}
    n = 0
    latencies = []
    for ns, by_id, questions in datasets:
        for q in questions:
            t = time.perf_counter()
            rows = conn.execute(sql, {"q": q["question"], "ns": ns, "k": max(KS)}).fetchall()
            latencies.append(time.perf_counter() - t)
            ranked = [by_id.get(r[0]) for r in rows]
            evidence = set(q["evidence"])
            for k in KS:
                found = evidence & set(ranked[:k])
                totals[f"recall@{k}"] += len(found) / len(evidence)
                totals[f"hit@{k}"] += 1.0 if found else 0.0
            n += 1
    result = {key: 100 * value / n for key, value in totals.items()}
    latencies.sort()
    result["questions"] = n
    result["p50_ms"] = 1000 * latencies[len(latencies) // 2]
    return result


# Each varies one default (README "Recall"), to show what each part contributes.
ABLATIONS = {
    "recall, no neighbours (neighbour_weight 0)": {"recall.neighbour_weight": 0},
    "recall, neighbour_weight 0.5": {"recall.neighbour_weight": 0.5},
    "recall, no time boost": {"recall.time_boost": 0},
    "recall, rrf_k 60 (the usual constant)": {"recall.rrf_k": 60},
    "recall, no similarity floor": {"recall.min_similarity": 0},
    "recall, 50 candidates per retriever": {"recall.candidates": 50},
    # The large-scope path (HNSW, and full text on selective words only), forced on these small
    # namespaces to see what it costs in quality; and the same with every word kept.
    "recall, large-scope path": {"recall.exact_scan_rows": 100},
    "recall, large-scope path, every word": {
        "recall.exact_scan_rows": 100,
        "recall.large_scope_max_lexeme_frequency": 1.01,
    },
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=pathlib.Path, default=DEFAULT_DATA)
    parser.add_argument("--ablations", action="store_true", help="also score recall with settings varied")
    parser.add_argument(
        "--keep", action="store_true", help="keep the namespaces (a later --reuse skips ingest)"
    )
    parser.add_argument("--reuse", action="store_true", help="reuse namespaces kept by an earlier --keep run")
    args = parser.parse_args(argv)
    files = sorted(args.data.glob("*.json"))
    with psycopg.connect(autocommit=True) as conn:
        t = time.perf_counter()
        if args.reuse:
            datasets = [reuse(conn, f) for f in files]
        else:
            if conn.execute("select 1 from stash.namespaces where path = %s", (PREFIX,)).fetchone():
                conn.execute("select stash.purge(namespace => %s)", (PREFIX,))
            datasets = [load(conn, f) for f in files]
        turns = sum(len(d[1]) for d in datasets)
        ingest = time.perf_counter() - t
        print(
            f"ingested {turns} turns of {len(files)} conversations in {ingest:.1f} s ({turns / ingest:.0f}/s)"
        )
        runs = {
            "stash.recall": RECALL_SQL,
            "vector only (MiniLM cosine)": VECTOR_SQL,
            "full text only": TEXT_SQL,
        }
        results = {name: score(conn, sql, datasets) for name, sql in runs.items()}
        if args.ablations:
            for name, settings in ABLATIONS.items():
                conn.execute("begin")
                for key, value in settings.items():
                    conn.execute(
                        "update stash.settings set value = %s where key = %s", (json.dumps(value), key)
                    )
                results[name] = score(conn, RECALL_SQL, datasets)
                conn.execute("rollback")
        header = ["ranking"] + [f"{m}@{k}" for m in ("recall", "hit") for k in KS] + ["p50 ms"]
        print("| " + " | ".join(header) + " |\n|" + "---|" * len(header))
        for name, r in results.items():
            cells = [f"{r[f'{m}@{k}']:.1f}" for m in ("recall", "hit") for k in KS] + [f"{r['p50_ms']:.1f}"]
            print(f"| {name} | " + " | ".join(cells) + " |")
        print(f"({results['stash.recall']['questions']} questions, categories 1-4)")
        if not args.keep:
            conn.execute("select stash.purge(namespace => %s)", (PREFIX,))


if __name__ == "__main__":
    main()
