"""The embedders in python/stash/embedders.py, outside the database."""

import time

import numpy as np
import pytest
from fake_openai import FakeOpenAI, fake_vector
from stash.embedders import (
    EmbedderConfig,
    EmbedderError,
    LocalEmbedder,
    OpenAIEmbedder,
    get_embedder,
    resolve_secret,
    vector_literal,
)


@pytest.fixture(scope="module")
def local():
    return LocalEmbedder()


def test_local_vectors_are_unit_length_and_384_wide(local):
    vectors = local.embed(["Alice lives in Paris", "x"])
    assert vectors.shape == (2, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_local_similar_sentences_are_closer_than_unrelated_ones(local):
    a, b, c = local.embed(
        ["Alice lives in Paris", "Alice resides in Paris, France", "The API uses PostgreSQL 16"]
    )
    assert a @ b > 0.8
    assert a @ c < 0.3


def test_local_batching_keeps_input_order_and_matches_single_calls(local):
    texts = ["short", "a somewhat longer sentence about databases and vectors", "mid length text", "x " * 300]
    batch = local.embed(texts)
    singles = np.vstack([local.embed([t]) for t in texts])
    assert np.allclose(batch, singles, atol=1e-4)


def test_local_truncates_long_input_instead_of_failing(local):
    assert local.embed(["word " * 5000]).shape == (1, 384)


def test_local_empty_input(local):
    assert local.embed([]).shape == (0, 384)


def test_get_embedder_caches_per_config():
    cache = {}
    config = EmbedderConfig()
    assert get_embedder(config, cache) is get_embedder(config, cache)


def test_local_refuses_a_database_of_another_dimension():
    with pytest.raises(EmbedderError, match="384"):
        get_embedder(EmbedderConfig(dimensions=768), {})


def test_secret_resolution_order(monkeypatch):
    monkeypatch.setenv("STASH_TEST_KEY", "from-env")
    assert resolve_secret("arg", "guc", ["STASH_TEST_KEY"]) == "arg"
    assert resolve_secret(None, "guc", ["STASH_TEST_KEY"]) == "guc"
    assert resolve_secret(None, "", ["STASH_TEST_KEY"]) == "from-env"
    assert resolve_secret(None, None, ["STASH_TEST_NOT_SET"]) is None


def test_vector_literal_refuses_non_finite_values():
    assert vector_literal([0.5, -1.0]) == "[0.5,-1]"
    with pytest.raises(EmbedderError):
        vector_literal([float("nan")])


def test_settings_map_to_config():
    config = EmbedderConfig.from_settings(
        {
            "embedding.provider": "openai",
            "embedding.model": "m",
            "embedding.dimension": 8,
            "embedding.batch_size": 2,
        }
    )
    assert (config.provider, config.model, config.dimensions, config.batch_size) == ("openai", "m", 8, 2)
    with pytest.raises(EmbedderError, match="unknown embedding provider"):
        EmbedderConfig.from_settings({"embedding.provider": "magic"})


def openai_embedder(server, **overrides):
    fields = dict(
        provider="openai",
        model="fake-embed",
        dimensions=server.dimensions,
        base_url=server.base_url,
        timeout=2.0,
        max_retries=0,
        batch_size=2,
    )
    fields.update(overrides)
    return OpenAIEmbedder(EmbedderConfig(**fields))


def test_openai_batches_and_keeps_order():
    with FakeOpenAI(dimensions=16) as server:
        texts = ["one", "two", "three", "four", "five"]
        vectors = openai_embedder(server).embed(texts)
        assert len(server.requests) == 3  # batch_size 2
        assert all(r["body"]["model"] == "fake-embed" for r in server.requests)
        assert np.allclose(vectors, np.array([fake_vector(t, 16) for t in texts]), atol=1e-6)


def test_openai_retries_a_500():
    with FakeOpenAI(dimensions=16) as server:
        server.script = ["500"]
        vectors = openai_embedder(server, max_retries=1).embed(["hello"])
        assert np.allclose(vectors[0], fake_vector("hello", 16), atol=1e-6)
        assert len(server.requests) == 2


def test_openai_persistent_500_is_a_clear_error():
    with FakeOpenAI(dimensions=16) as server:
        server.script = ["500", "500", "500"]
        with pytest.raises(EmbedderError, match="failed"):
            openai_embedder(server, max_retries=1).embed(["hello"])


def test_openai_timeout_is_a_clear_error_within_the_timeout():
    with FakeOpenAI(dimensions=16) as server:
        server.script = ["sleep:3"]
        start = time.monotonic()
        with pytest.raises(EmbedderError):
            openai_embedder(server, timeout=0.5).embed(["hello"])
        assert time.monotonic() - start < 2.5


def test_openai_wrong_count_and_wrong_dimension_are_refused():
    with FakeOpenAI(dimensions=16) as server:
        server.script = ["drop_one"]
        with pytest.raises(EmbedderError, match="embeddings for 2 inputs"):
            openai_embedder(server).embed(["a", "b"])
        server.script = ["bad_dims"]
        with pytest.raises(EmbedderError, match="dimensions"):
            openai_embedder(server).embed(["a"])


def test_openai_sends_dimensions_only_when_asked():
    with FakeOpenAI(dimensions=16) as server:
        openai_embedder(server).embed(["a"])
        openai_embedder(server, request_dimensions=True).embed(["a"])
        assert "dimensions" not in server.requests[0]["body"]
        assert server.requests[1]["body"]["dimensions"] == 16


def test_openai_without_url_or_key_is_a_configuration_error():
    with pytest.raises(EmbedderError, match="API key"):
        OpenAIEmbedder(EmbedderConfig(provider="openai", base_url=None, api_key=None))
