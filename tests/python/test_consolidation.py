"""Consolidation end to end against a scripted OpenAI-compatible reasoner: invalid answers retried,
usage logged, a provider outage that moves nothing, a poison item dead-lettered, and the
per-namespace lock under two concurrent sessions."""

import json
import threading

import psycopg
import pytest
from fake_openai import FakeOpenAI, use_as_reasoner

FACT = {
    "entity": "staging",
    "property": "region",
    "value": "eu-west-1",
    "summary": "The staging environment runs in region eu-west-1",
}


@pytest.fixture
def ns():
    path = "/consolidation"
    with psycopg.connect(autocommit=True) as c:
        c.execute("select stash.create_namespace(%s)", (path,))
    yield path
    with psycopg.connect(autocommit=True) as c:
        c.execute("select stash.purge(namespace => %s)", (path,))
        c.execute("update stash.settings set value = '\"rules\"' where key = 'reasoner.provider'")


def use_reasoner(c, base_url, ns):
    use_as_reasoner(c, ns, base_url, model="fake-chat", timeout=2, max_retries=0)


def run(c, ns):
    return c.execute("select stash.consolidate(%s) -> 'namespaces' -> 0", (ns,)).fetchone()[0]


def test_openai_reasoner_invalid_then_valid_and_usage_logged(ns):
    with FakeOpenAI() as server, psycopg.connect(autocommit=True) as c:
        use_reasoner(c, server.base_url, ns)
        c.execute("select stash.remember(%s, 'staging moved to eu-west-1 last night')", (ns,))
        server.chat_replies = [
            "this is not json",
            json.dumps(FACT),
            json.dumps({"relationships": []}),
            json.dumps({"links": []}),
            json.dumps({"patterns": []}),
        ]
        result = run(c, ns)
        assert result["facts_created"] == 1 and result["llm_calls"] == 5, "the retry is counted"
        assert result["prompt_tokens"] == 55 and result["completion_tokens"] == 35
        row = c.execute(
            "select status, llm_calls, prompt_tokens from stash.consolidation_runs where id = %s",
            (result["run_id"],),
        ).fetchone()
        assert row == ("succeeded", 5, 55)
        fact = c.execute(
            "select content, value from stash.facts where namespace_id = stash._namespace_id(%s)", (ns,)
        ).fetchone()
        assert fact == (FACT["summary"], "eu-west-1")


def test_every_stage_validates_the_model_and_retries_once(ns):
    with FakeOpenAI() as server, psycopg.connect(autocommit=True) as c:
        use_reasoner(c, server.base_url, ns)
        c.execute("select stash.remember(%s, 'staging moved to eu-west-1 last night')", (ns,))
        server.chat_replies = [
            json.dumps(FACT),  # stage 1
            json.dumps(
                {
                    "relationships": [
                        {"from": "Mars", "relation_type": "orbits", "to": "eu-west-1", "confidence": 0.9}
                    ]
                }
            ),  # stage 2: an entity not in the fact
            json.dumps(
                {
                    "relationships": [
                        {
                            "from": "staging environment",
                            "relation_type": "runs in",
                            "to": "eu-west-1",
                            "confidence": 0.9,
                        }
                    ]
                }
            ),
            json.dumps(
                {"links": [{"cause_id": 999999, "effect_id": 1, "confidence": 0.9}]}
            ),  # stage 3: unknown ids
            json.dumps({"links": []}),
            json.dumps({"patterns": []}),  # stage 6
        ]
        result = run(c, ns)
        assert result["errors"] == [] and result["llm_calls"] == 6
        edge = c.execute(
            "select from_entity, relation_type, to_entity from stash.relationships "
            "where namespace_id = stash._namespace_id(%s)",
            (ns,),
        ).fetchone()
        assert edge == ("staging environment", "runs_in", "eu-west-1")
        assert "does not appear in the fact" in server.requests[2]["body"]["messages"][-1]["content"]


def test_hypothesis_evidence_confirms_rejects_and_adjusts(ns):
    with FakeOpenAI() as server, psycopg.connect(autocommit=True) as c:
        use_reasoner(c, server.base_url, ns)
        ids = [
            c.execute("select id from stash.create_hypothesis(%s, %s)", (ns, text)).fetchone()[0]
            for text in ("The cache causes the stale reads", "Retries cause duplicates", "The CDN is slow")
        ]
        c.execute("select stash.test_hypothesis(%s)", (ids[0],))
        c.execute("select stash.assert_fact(%s, 'Reads were stale exactly while the cache was on')", (ns,))
        verdicts = {
            "verdicts": [
                {
                    "hypothesis_id": ids[0],
                    "verdict": "supports",
                    "confidence": 0.95,
                    "reasoning": "r",
                    "new_confidence": 0.9,
                },
                {
                    "hypothesis_id": ids[1],
                    "verdict": "contradicts",
                    "confidence": 0.92,
                    "reasoning": "No retries happened",
                    "new_confidence": 0.1,
                },
                {
                    "hypothesis_id": ids[2],
                    "verdict": "weakens",
                    "confidence": 0.6,
                    "reasoning": "r",
                    "new_confidence": 0.3,
                },
            ]
        }
        # Stages 2, 3, 4 (no goals: no call), 5 (no failures: no call), 6, 7.
        server.chat_replies = [
            json.dumps({"relationships": []}),
            json.dumps({"links": []}),
            json.dumps({"patterns": []}),
            json.dumps(verdicts),
        ]
        result = run(c, ns)
        assert (
            result["hypotheses_auto_confirmed"],
            result["hypotheses_auto_rejected"],
            result["hypotheses_updated"],
        ) == (1, 1, 1)
        states = c.execute(
            "select status, confidence, rejection_reason from stash.hypotheses "
            "where id = any(%s) order by id",
            (ids,),
        ).fetchall()
        assert (
            states[0][0] == "confirmed"
            and states[1][:1] == ("rejected",)
            and states[1][2] == "No retries happened"
        )
        assert states[2][:2] == ("proposed", 0.3)
        assert (
            c.execute(
                "select count(*) from stash.facts where origin = 'hypothesis' "
                "and namespace_id = stash._namespace_id(%s)",
                (ns,),
            ).fetchone()[0]
            == 1
        )


def test_a_stage_that_always_fails_leaves_the_others_committed_and_its_checkpoint_unmoved(ns):
    with FakeOpenAI() as server, psycopg.connect(autocommit=True) as c:
        use_reasoner(c, server.base_url, ns)
        c.execute("select stash.remember(%s, 'staging moved to eu-west-1 last night')", (ns,))
        server.chat_replies = [json.dumps(FACT)]
        server.script = ["ok"] + ["500"] * 20  # stage 1 answers, every later call is a server error
        result = run(c, ns)
        assert result["facts_created"] == 1
        assert {e["stage"] for e in result["errors"]} == {"relationships", "causal", "patterns"}
        row = c.execute(
            "select r.status, stash._checkpoint(n, 'relationships'), stash._checkpoint(n, 'causal'), "
            "(select count(*) from stash.consolidation_failures where namespace_id = n) "
            "from stash._namespace_id(%s) n join stash.consolidation_runs r on r.id = %s",
            (ns, result["run_id"]),
        ).fetchone()
        assert row == ("partial", 0, 0, 0), "failed stages moved no checkpoint and blamed no item"
        server.script = []  # the provider is back
        server.chat_replies = [
            json.dumps(
                {
                    "relationships": [
                        {
                            "from": "staging environment",
                            "relation_type": "runs_in",
                            "to": "eu-west-1",
                            "confidence": 0.9,
                        }
                    ]
                }
            ),
            json.dumps({"links": []}),
            json.dumps({"patterns": []}),
        ]
        result = run(c, ns)
        assert result["errors"] == [] and result["relationships_found"] == 1, "the next run does the work"


def test_provider_down_moves_nothing_and_the_next_run_completes(ns):
    with psycopg.connect(autocommit=True) as c:
        use_reasoner(c, "http://127.0.0.1:9/v1", ns)
        c.execute("select stash.remember(%s, 'staging moved to eu-west-1 last night')", (ns,))
        result = run(c, ns)
        assert result["errors"][0]["stage"] == "facts" and "reasoner failed" in result["errors"][0]["error"]
        state = c.execute(
            "select (select count(*) from stash.facts where namespace_id = n), "
            "stash._checkpoint(n, 'facts'), "
            "(select count(*) from stash.consolidation_failures where namespace_id = n) "
            "from stash._namespace_id(%s) n",
            (ns,),
        ).fetchone()
        assert state == (0, 0, 0), "no partial facts, checkpoint unmoved, nothing blamed on the item"
        with FakeOpenAI() as server:
            use_reasoner(c, server.base_url, ns)
            server.chat_replies = [json.dumps(FACT)]
            assert run(c, ns)["facts_created"] == 1


def test_a_poison_item_is_retried_then_dead_lettered_and_the_rest_moves_on(ns):
    with FakeOpenAI() as server, psycopg.connect(autocommit=True) as c:
        use_reasoner(c, server.base_url, ns)
        c.execute("select stash.remember(%s, 'an episode the model cannot handle')", (ns,))
        for attempt in (1, 2, 3):
            server.chat_replies = ["garbage", "more garbage"]
            result = run(c, ns)
            assert result["items_failed"] == 1 and result["facts_created"] == 0 and result["llm_calls"] == 2
            row = c.execute(
                "select attempts, dead from stash.consolidation_failures "
                "where namespace_id = stash._namespace_id(%s)",
                (ns,),
            ).fetchone()
            assert row == (attempt, attempt == 3)
        c.execute("select stash.remember(%s, 'staging moved to eu-west-1 last night')", (ns,))
        server.chat_replies = [json.dumps(FACT)]
        result = run(c, ns)
        assert (result["episodes_read"], result["facts_created"]) == (1, 1), (
            "the dead item is skipped, the new one done"
        )


def test_a_failed_item_is_retried_and_then_leaves_the_retry_list(ns):
    with FakeOpenAI() as server, psycopg.connect(autocommit=True) as c:
        use_reasoner(c, server.base_url, ns)
        c.execute("select stash.remember(%s, 'staging moved to eu-west-1 last night')", (ns,))
        server.chat_replies = ["garbage", "more garbage"]
        assert run(c, ns)["items_failed"] == 1
        server.chat_replies = [
            json.dumps(FACT),
            json.dumps({"relationships": []}),
            json.dumps({"links": []}),
            json.dumps({"patterns": []}),
        ]
        result = run(c, ns)
        assert (result["episodes_read"], result["facts_created"]) == (1, 1), (
            "the failed episode is read again"
        )
        left = c.execute(
            "select count(*) from stash.consolidation_failures where namespace_id = stash._namespace_id(%s)",
            (ns,),
        ).fetchone()[0]
        assert left == 0


def test_facts_a_later_stage_fails_on_are_retried_there_then_dead_lettered(ns):
    with FakeOpenAI() as server, psycopg.connect(autocommit=True) as c:
        use_reasoner(c, server.base_url, ns)
        c.execute("select stash.remember(%s, 'staging moved to eu-west-1 last night')", (ns,))
        server.chat_replies = [
            json.dumps(FACT),
            json.dumps({"relationships": []}),
            json.dumps({"links": []}),
            "garbage",
            "garbage",
        ]
        for attempt in (1, 2, 3):
            result = run(c, ns)
            assert [e["stage"] for e in result["errors"]] == ["patterns"]
            row = c.execute(
                "select attempts, dead from stash.consolidation_failures "
                "where namespace_id = stash._namespace_id(%s) and stage = 'patterns'",
                (ns,),
            ).fetchone()
            assert row == (attempt, attempt == 3)
            server.chat_replies = ["garbage", "garbage"]  # only the patterns stage has work left
        assert run(c, ns)["errors"] == [], "a dead item is no longer tried"


def test_a_second_concurrent_consolidation_is_busy_and_does_nothing(ns):
    with psycopg.connect(autocommit=True) as c:
        c.execute("select stash.remember_many(%s, array['Alice lives in Paris', 'Bob likes tea'])", (ns,))
    first, second = psycopg.connect(), psycopg.connect(autocommit=True)
    try:
        first_result = first.execute("select stash.consolidate(%s) -> 'namespaces' -> 0", (ns,)).fetchone()[0]
        outcome = {}
        t = threading.Thread(
            target=lambda: outcome.update(
                r=second.execute("select stash.consolidate(%s) -> 'namespaces' -> 0", (ns,)).fetchone()[0]
            )
        )
        t.start()
        t.join(10)
        assert outcome["r"]["skipped"] == "busy", "the second run returns at once"
        first.commit()
        assert first_result["facts_created"] == 2
    finally:
        first.close()
        second.close()
    with psycopg.connect() as c:
        assert (
            c.execute(
                "select count(*) from stash.facts where namespace_id = stash._namespace_id(%s)", (ns,)
            ).fetchone()[0]
            == 2
        )
