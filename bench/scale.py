"""Latency and throughput at scale: 100k episodes across 100 namespaces.

- recall p50/p99 including embedding the (uncached) query, in one 1,000-row namespace and over
  everything, beside the floor measured in the same run: the bare exact and HNSW vector queries,
  the query embedding alone, and recall with the query's embedding already cached (SQL only);
- ingest: remember_many with the local embedder into the 100k-row table, and single remember;
- memory: a backend's RSS before and after loading the model, and after a large batch.

Rows are inserted with precomputed vectors (real LoCoMo turns embedded once), so the setup tests
SQL at scale rather than waiting 9 minutes for 100k embeddings.
"""

import json
import pathlib
import statistics
import time

import psycopg

DATA = pathlib.Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo-dev"
N_NAMESPACES = 100
PER_NAMESPACE = 1000


def turns_and_questions():
    turns, questions = [], []
    for path in sorted(DATA.glob("*.json")):
        conv = json.loads(path.read_text())
        for key, value in conv.items():
            if key.startswith("session_") and isinstance(value, list):
                turns += [f"{t['speaker']}: {t['text']}" for t in value]
        questions += [q["question"] for q in conv["qa"] if q["category"] in (1, 2, 3, 4)]
    return turns, list(dict.fromkeys(questions))


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def timed(conn, sql, params_list):
    out = []
    for params in params_list:
        t = time.perf_counter()
        conn.execute(sql, params).fetchall()
        out.append((time.perf_counter() - t) * 1000)
    return out


def rss_kb(conn) -> int:
    pid = conn.execute("select pg_backend_pid()").fetchone()[0]
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def run():
    rows = []
    turns, questions = turns_and_questions()
    with psycopg.connect(autocommit=True) as conn:
        # Memory first, in a fresh backend.
        before = rss_kb(conn)
        conn.execute("select stash.embed(array['load the model'])")
        loaded = rss_kb(conn)
        conn.execute("select stash.embed(%s)", (turns[:500],))
        after_batch = rss_kb(conn)
        rows += [
            ("backend RSS before the model loads", before / 1024, "MB"),
            ("backend RSS with the model loaded", loaded / 1024, "MB"),
            ("backend RSS after embedding a 500-text batch", after_batch / 1024, "MB"),
        ]

        # Fixture: embed each distinct turn once, then 100k rows reusing those vectors.
        t = time.perf_counter()
        for start in range(0, len(turns), 500):
            conn.execute("select stash.embed(%s)", (turns[start : start + 500],))
        rows.append(
            (
                "embed the distinct LoCoMo turns (batched, cache filled)",
                len(turns) / (time.perf_counter() - t),
                "texts/s",
            )
        )
        conn.execute(
            "create temp table base as select t.i, t.content, (stash.embed(array[t.content]))[1] as v "
            "from unnest(%s::text[]) with ordinality t(content, i)",
            (turns,),
        )
        for n in range(N_NAMESPACES):
            conn.execute("select stash.create_namespace(%s)", (f"/bench/scale/n{n:03d}",))
        conn.execute("drop index stash.episodes_embedding_hnsw_idx")
        conn.execute(
            """insert into stash.episodes (namespace_id, content, embedding, embedding_model, occurred_at)
               select ns.id, b.content, b.v, 'local:all-MiniLM-L6-v2', now() - (g || ' minutes')::interval
                 from stash.namespaces ns
                cross join generate_series(0, %s - 1) g
                 join base b on b.i = 1 + ((g + ns.id * 37) %% %s)
                where ns.path like '/bench/scale/n%%'""",
            (PER_NAMESPACE, len(turns)),
        )
        t = time.perf_counter()
        conn.execute(
            "create index episodes_embedding_hnsw_idx on stash.episodes "
            "using hnsw (embedding vector_cosine_ops)"
        )
        rows.append(("HNSW build, 100k x 384", time.perf_counter() - t, "s"))
        # Steady state: autovacuum would have set the visibility map by now.
        conn.execute("vacuum analyze stash.episodes")
        n_rows = conn.execute("select count(*) from stash.episodes").fetchone()[0]
        rows.append(("episodes in the database", n_rows, "rows"))

        one = ["/bench/scale/n042"]
        qs_ns, qs_all = questions[:300], questions[300:600]
        # Recall with an uncached query: what an agent sees.
        lat_ns = timed(conn, "select * from stash.recall(%s, %s, k => 10)", [(q, one) for q in qs_ns])
        lat_all = timed(conn, "select * from stash.recall(%s, '{/}', k => 10)", [(q,) for q in qs_all])
        # The same queries again: embeddings now cached, so this is the SQL alone.
        warm_ns = timed(conn, "select * from stash.recall(%s, %s, k => 10)", [(q, one) for q in qs_ns])
        warm_all = timed(conn, "select * from stash.recall(%s, '{/}', k => 10)", [(q,) for q in qs_all])
        embed_only = timed(conn, "select stash.embed(array[%s])", [(q + " (uncached)",) for q in qs_ns])
        vectors = [
            conn.execute("select (stash.embed(array[%s]))[1]::text", (q,)).fetchone()[0] for q in qs_ns[:200]
        ]
        ns_id = conn.execute("select stash._namespace_id(%s)", (one[0],)).fetchone()[0]
        exact = timed(
            conn,
            "select id from stash.episodes where namespace_id = %s and deleted_at is null "
            "order by (embedding <=> %s::vector) + 0 limit 20",
            [(ns_id, v) for v in vectors],
        )
        hnsw = timed(
            conn,
            "select id from stash.episodes order by embedding <=> %s::vector limit 20",
            [(v,) for v in vectors],
        )
        for name, lat in [
            ("recall, one 1k-row namespace, incl. query embedding", lat_ns),
            ("recall, all 100k rows (/), incl. query embedding", lat_all),
            ("recall, one namespace, query embedding cached (SQL only)", warm_ns),
            ("recall, all 100k rows, query embedding cached (SQL only)", warm_all),
            ("floor: query embedding alone (local model)", embed_only),
            ("floor: bare exact top-20 in one namespace", exact),
            ("floor: bare HNSW top-20 over all rows", hnsw),
        ]:
            rows.append((f"{name}: p50", statistics.median(lat), "ms"))
            rows.append((f"{name}: p99", pct(lat, 99), "ms"))

        # The same cached recall as a role under row-level security, granted that one namespace
        # (superusers, as above, bypass the policies).
        conn.execute("drop role if exists bench_agent")
        conn.execute("create role bench_agent in role stash_reader")
        conn.execute("select stash.grant_namespace('bench_agent', %s, 'read')", (one[0],))
        conn.execute("set role bench_agent")
        timed(
            conn, "select * from stash.recall(%s, %s, k => 10)", [(q, one) for q in qs_ns]
        )  # fill its cache
        rls = timed(conn, "select * from stash.recall(%s, %s, k => 10)", [(q, one) for q in qs_ns])
        conn.execute("reset role")
        conn.execute("delete from stash.namespace_grants where role_name = 'bench_agent'")
        conn.execute("delete from stash.embedding_cache where role_name = 'bench_agent'")
        conn.execute("drop role bench_agent")
        rows.append(
            (
                "recall, one namespace, cached, as a role under row-level security: p50",
                statistics.median(rls),
                "ms",
            )
        )
        rows.append(
            ("recall, one namespace, cached, as a role under row-level security: p99", pct(rls, 99), "ms")
        )

        # Ingest with the real embedder, into the 100k-row table (HNSW maintained).
        conn.execute("select stash.create_namespace('/bench/ingest')")
        fresh = [f"{t} (ingest copy)" for t in turns[:1000]]
        t = time.perf_counter()
        for start in range(0, len(fresh), 100):
            conn.execute(
                "select stash._embed_uncached(%s, stash._settings_like('embedding.'))",
                (fresh[start : start + 100],),
            )
        rows.append(
            (
                "the local embedder alone on the same 1,000 texts, batches of 100",
                len(fresh) / (time.perf_counter() - t),
                "texts/s",
            )
        )
        t = time.perf_counter()
        for start in range(0, len(fresh), 100):
            conn.execute("select stash.remember_many('/bench/ingest', %s)", (fresh[start : start + 100],))
        rows.append(
            (
                "remember_many, batches of 100, local embedder",
                len(fresh) / (time.perf_counter() - t),
                "episodes/s",
            )
        )
        singles = timed(
            conn, "select stash.remember('/bench/ingest', %s)", [(f"{x} (single)",) for x in turns[1000:1200]]
        )
        rows.append(("remember, one episode: p50", statistics.median(singles), "ms"))
        rows.append(("remember, one episode: p99", pct(singles, 99), "ms"))
    return rows
