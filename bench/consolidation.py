"""Consolidation cost (`make bench`):

- 10,000 episodes (half plain statements, half LoCoMo conversation) across 10 namespaces,
  consolidated with the offline rules reasoner: throughput, time per stage, and the reasoner's
  share against SQL;
- 100 LoCoMo episodes consolidated through the openai reasoner against a scripted server on
  127.0.0.1: LLM calls and tokens, beside what the reference's formula (STASH_REFERENCE.md §5.10:
  clusters + facts + 1 per later stage that reaches the model) spends on the same input.
"""

import pathlib
import random
import sys
import time

import psycopg

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "python"))
import scale  # noqa: E402
from fake_openai import FakeOpenAI, use_as_reasoner, well_behaved  # noqa: E402 - the tests' scripted server

PEOPLE = [
    "Alice",
    "Bob",
    "Carol",
    "Dan",
    "Erin",
    "Frank",
    "Grace",
    "Heidi",
    "Ivan",
    "Judy",
    "Mallory",
    "Niaj",
]
PLACES = ["Paris", "Rome", "Oslo", "Lima", "Austin", "Kyoto", "Lagos", "Perth", "Quito", "Riga"]
THINGS = ["tea", "coffee", "chess", "jazz", "hiking", "sushi", "Rust", "Python", "climbing", "opera"]
SERVICES = ["billing API", "search service", "auth service", "web app", "queue worker", "mobile app"]
STACKS = ["PostgreSQL 15", "PostgreSQL 16", "Redis", "Kafka", "Go", "Python 3.11", "Kubernetes", "Debian 12"]


def statements(n: int, rng: random.Random) -> list[str]:
    out = []
    for i in range(n):
        kind = i % 4
        if kind == 0:
            out.append(f"{rng.choice(PEOPLE)} lives in {rng.choice(PLACES)}")
        elif kind == 1:
            out.append(f"{rng.choice(PEOPLE)} likes {rng.choice(THINGS)}")
        elif kind == 2:
            out.append(f"The {rng.choice(SERVICES)} uses {rng.choice(STACKS)}")
        else:
            out.append(f"{rng.choice(PEOPLE)} works at {rng.choice(PLACES)} Labs")
    return [f"{s} (note {i})" if i % 3 == 0 else s for i, s in enumerate(out)]


STAGES = ["facts", "relationships", "causal", "goals", "failures", "patterns", "hypotheses", "decay"]


def rules_at_scale(conn, turns):
    rng = random.Random(7)
    texts = statements(5000, rng) + [turns[i % len(turns)] for i in range(5000)]
    rng.shuffle(texts)
    for n in range(10):
        conn.execute("select stash.create_namespace(%s)", (f"/bench/cons/n{n}",))
    t = time.perf_counter()
    for start in range(0, len(texts), 500):
        conn.execute(
            "select stash.remember_many(%s, %s)",
            (f"/bench/cons/n{(start // 500) % 10}", texts[start : start + 500]),
        )
    ingest = time.perf_counter() - t
    totals, runs = {}, 0
    t = time.perf_counter()
    while True:
        result = conn.execute("select stash.consolidate('/bench/cons')").fetchone()[0]
        runs += 1
        for key, value in result.items():
            if isinstance(value, int | float):
                totals[key] = totals.get(key, 0) + value
        if result.get("episodes_read", 0) == 0:
            break
    elapsed = time.perf_counter() - t
    rows = [
        ("rules: episodes stored (10 namespaces, embedded on the way in)", len(texts), "episodes"),
        ("rules: remember_many throughput for them", len(texts) / ingest, "episodes/s"),
        ("rules: consolidate calls until nothing was left", runs, "calls"),
        ("rules: consolidation throughput", len(texts) / elapsed, "episodes/s"),
        ("rules: facts created", totals.get("facts_created", 0), "facts"),
        ("rules: facts reinforced instead of duplicated", totals.get("facts_deduplicated", 0), "facts"),
        (
            "rules: contradictions found / auto-resolved",
            f"{totals.get('contradictions_found', 0)} / {totals.get('contradictions_auto_resolved', 0)}",
            "",
        ),
        (
            "rules: relationships, new patterns",
            f"{totals.get('relationships_found', 0)}, {totals.get('patterns_found', 0)}",
            "",
        ),
    ]
    for stage in STAGES:
        rows.append((f"rules: time in stage {stage}", totals.get(f"ms_{stage}", 0) / 1000, "s"))
    reasoner = totals.get("reasoner_ms", 0) / 1000
    rows.append(("rules: time inside the reasoner (Python), all stages", reasoner, "s"))
    rows.append(("rules: time in SQL and embedding summaries (the rest)", elapsed - reasoner, "s"))
    return rows


def llm_cost(conn, turns):
    with FakeOpenAI() as server:
        server.chat_responder = well_behaved
        conn.execute("select stash.create_namespace('/bench/llm')")
        use_as_reasoner(conn, "/bench/llm", server.base_url, model="scripted")
        conn.execute("select stash.remember_many('/bench/llm', %s)", (turns[:100],))
        result = conn.execute("select stash.consolidate('/bench/llm') -> 'namespaces' -> 0").fetchone()[0]
        facts = result["facts_created"] + result["facts_deduplicated"]
        # The reference in one run: one call per cluster, one per new fact in stage 2 (at most 50 a
        # run, as here), one for causal links when 2+ facts remain, one for patterns; goals, failures
        # and hypotheses do not reach the model here (there are none). Retries are not in its count.
        created = result["facts_created"]
        reference = result["clusters"] + min(created, 50) + (1 if created >= 2 else 0) + 1
        return [
            ("openai (scripted): episodes consolidated", 100, "episodes"),
            ("openai (scripted): clusters, facts", f"{result['clusters']}, {facts}", ""),
            ("openai (scripted): LLM calls, ours (retries included)", result["llm_calls"], "calls"),
            (
                "openai (scripted): items that failed validation after a retry",
                result["items_failed"],
                "items",
            ),
            ("openai (scripted): LLM calls, the reference's formula on the same input", reference, "calls"),
            (
                "openai (scripted): prompt / completion tokens (the scripted server reports 11 / 7 per call)",
                f"{result['prompt_tokens']} / {result['completion_tokens']}",
                "",
            ),
        ]


def run():
    turns, _ = scale.turns_and_questions()
    with psycopg.connect(autocommit=True) as conn:
        conn.execute("set client_min_messages = warning")
        return rules_at_scale(conn, turns) + llm_cost(conn, turns)
