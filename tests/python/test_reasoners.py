"""The reasoners in python/stash/reasoners.py: rules offline, openai against a scripted server."""

import json
import time

import pytest
from fake_openai import FakeOpenAI
from stash.reasoners import OpenAIReasoner, ReasonerError, RulesReasoner, extract, reason_for_sql


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Alice lives in Paris", ("Alice", "lives in", "Paris")),
        ("The API uses PostgreSQL 16.", ("API", "uses", "PostgreSQL 16")),
        ("We switched the queue to Redis", ("queue", "uses", "Redis")),
        ("Bob now works at Acme Corp", ("Bob", "works at", "Acme Corp")),
        ("Caroline: Melanie likes pottery", ("Melanie", "likes", "pottery")),
    ],
)
def test_rules_extract_plain_declarative_sentences(sentence, expected):
    found = extract(sentence)
    assert (found["entity"], found["property"], found["value"]) == expected


@pytest.mark.parametrize(
    "sentence", ["It is what it is", "Hey, how are you?", "I think so", "Thanks!", "They are in the garden"]
)
def test_rules_return_nothing_rather_than_guess(sentence):
    assert extract(sentence) is None


def test_rules_structured_takes_the_latest_statement_of_a_cluster():
    answer = RulesReasoner().structured(["Alice lives in London", "Alice now lives in Paris"])
    assert (answer["entity"], answer["value"], answer["summary"]) == (
        "Alice",
        "Paris",
        "Alice lives in Paris",
    )
    assert RulesReasoner().structured(["hello there", "how was your day?"])["summary"] is None


def test_rules_contradiction_classification():
    r = RulesReasoner()
    assert (
        r.contradiction("Alice", "lives in", "London", "Paris", "Alice now lives in Paris")["classification"]
        == "replacement"
    )
    assert (
        r.contradiction("Alice", "lives in", "London", "Paris", "Alice lives in Paris")["classification"]
        == "contradiction"
    )
    assert (
        r.contradiction("Alice", "likes", "tea", "coffee", "Alice likes coffee")["classification"]
        == "compatible"
    )


def reasoner(server, **kw):
    return OpenAIReasoner(
        model="fake-chat",
        base_url=server.base_url,
        timeout=kw.pop("timeout", 2.0),
        max_retries=kw.pop("max_retries", 0),
        **kw,
    )


def test_openai_structured_valid_answer_and_metering():
    with FakeOpenAI() as server:
        server.chat_replies = [
            json.dumps(
                {
                    "entity": "Alice",
                    "property": "lives in",
                    "value": "Paris",
                    "summary": "Alice has moved to Paris",
                }
            )
        ]
        r = reasoner(server)
        answer = r.structured(["Alice said she lives in London now", "Alice moved to Paris last week"])
        assert answer["value"] == "Paris"
        assert (
            r.usage.as_dict()["calls"] == 1 and r.usage.prompt_tokens == 11 and r.usage.completion_tokens == 7
        )
        body = server.requests[0]["body"]
        assert body["response_format"]["type"] == "json_schema" and body["temperature"] == 0


def test_openai_invalid_json_then_valid_retries_once_showing_the_error():
    with FakeOpenAI() as server:
        server.chat_replies = [
            '{"entity": "Alice", "prop',
            json.dumps(
                {
                    "entity": "Alice",
                    "property": "lives in",
                    "value": "Paris",
                    "summary": "Alice is based in Paris",
                }
            ),
        ]
        r = reasoner(server)
        assert r.structured(["a", "b"])["summary"] == "Alice is based in Paris"
        retry = server.requests[1]["body"]["messages"]
        assert retry[-2] == {"role": "assistant", "content": '{"entity": "Alice", "prop'}
        assert "invalid" in retry[-1]["content"]
        assert r.usage.calls == 2


def test_openai_verbatim_copy_is_refused_then_fixed():
    texts = ["We deploy the backend every Friday afternoon", "Deploys happen on Fridays"]
    with FakeOpenAI() as server:
        server.chat_replies = [
            json.dumps(
                {"entity": "backend", "property": "deploy day", "value": "Friday", "summary": texts[0]}
            ),
            json.dumps(
                {
                    "entity": "backend",
                    "property": "deploy day",
                    "value": "Friday",
                    "summary": "The backend is deployed on Friday afternoons",
                }
            ),
        ]
        assert reasoner(server).structured(texts)["summary"] == "The backend is deployed on Friday afternoons"
        assert "verbatim" in server.requests[1]["body"]["messages"][-1]["content"]


def test_openai_persistently_invalid_is_a_clear_error():
    with FakeOpenAI() as server:
        server.chat_replies = ["not json", '{"classification": "maybe", "confidence": 2}']
        with pytest.raises(ReasonerError, match="no valid answer"):
            reasoner(server).contradiction("Alice", "lives in", "London", "Paris")


def test_openai_server_error_and_timeout_are_clear_errors():
    with FakeOpenAI() as server:
        server.script = ["500"]
        with pytest.raises(ReasonerError, match="failed"):
            reasoner(server).contradiction("a", "b", "c", "d")
        server.script = ["sleep:3"]
        start = time.monotonic()
        with pytest.raises(ReasonerError):
            reasoner(server, timeout=0.5).contradiction("a", "b", "c", "d")
        assert time.monotonic() - start < 2.5


def test_openai_json_mode_for_servers_without_schemas():
    with FakeOpenAI() as server:
        server.chat_replies = [
            '```json\n{"classification": "replacement", "confidence": 0.95, "explanation": "moved"}\n```'
        ]
        answer = reasoner(server, structured_output=False).contradiction(
            "Alice", "lives in", "London", "Paris"
        )
        assert answer["classification"] == "replacement"
        assert server.requests[0]["body"]["response_format"] == {"type": "json_object"}


def test_reason_for_sql_reports_per_call_usage():
    with FakeOpenAI() as server:
        server.chat_replies = [
            json.dumps({"classification": "compatible", "confidence": 0.8, "explanation": "both"})
        ] * 2
        settings = {
            "reasoner.provider": "openai",
            "reasoner.model": "fake-chat",
            "reasoner.base_url": server.base_url,
        }
        cache = {}
        first = reason_for_sql(
            cache, "contradiction", {"entity": "a", "prop": "b", "old": "c", "new": "d"}, settings, None
        )
        second = reason_for_sql(
            cache, "contradiction", {"entity": "a", "prop": "b", "old": "c", "new": "d"}, settings, None
        )
        assert first["usage"]["calls"] == 1 and second["usage"]["calls"] == 1
        assert second["result"]["classification"] == "compatible"
    with pytest.raises(ReasonerError, match="unknown reasoner task"):
        reason_for_sql({}, "divine", {}, {}, None)
