"""Embedding inside the database: the cache, the openai provider over real HTTP, the embedder being
down (nothing is lost), read-only use, and switching models with stash.reembed."""

import json

import psycopg
import pytest
from fake_openai import FakeOpenAI, fake_vector


def set_settings(conn, **values):
    for key, value in values.items():
        conn.execute(
            "update stash.settings set value = %s where key = %s", (json.dumps(value), key.replace("__", "."))
        )


def use_openai(conn, base_url, **extra):
    set_settings(
        conn,
        embedding__provider="openai",
        embedding__model="fake-embed",
        embedding__base_url=base_url,
        embedding__max_retries=0,
        embedding__timeout=1,
        **extra,
    )


@pytest.fixture
def ns(conn):
    conn.execute("select stash.create_namespace('/emb')")
    return "/emb"


def test_embedder_down_loses_nothing_and_backfill_fills_later(conn, ns):
    use_openai(conn, "http://127.0.0.1:9/v1")  # nothing listens on port 9
    notices = []
    conn.add_notice_handler(lambda d: notices.append(d.message_primary))
    episode = conn.execute(
        "select stash.remember(%s, 'The staging server moved to Frankfurt')", (ns,)
    ).fetchone()[0]
    assert any("without embeddings" in n for n in notices)
    row = conn.execute(
        "select content, embedding is null from stash.episodes where id = %s", (episode,)
    ).fetchone()
    assert row == ("The staging server moved to Frankfurt", True)
    # Recall still finds it, on full text, while the embedder is down.
    found = conn.execute("select id from stash.recall('staging server Frankfurt', %s)", ([ns],)).fetchall()
    assert (episode,) in found
    # The embedder comes back: backfill embeds what was stored meanwhile.
    set_settings(
        conn, embedding__provider="local", embedding__model="all-MiniLM-L6-v2", embedding__base_url=None
    )
    assert conn.execute("select stash.backfill_embeddings()").fetchone()[0] >= 1
    model = conn.execute("select embedding_model from stash.episodes where id = %s", (episode,)).fetchone()[0]
    assert model == "local:all-MiniLM-L6-v2"
    details = conn.execute(
        "select details from stash.recall('where is staging hosted', %s, explain => true) where id = %s",
        ([ns], episode),
    ).fetchone()[0]
    assert details["vector_rank"] is not None


def test_backfill_with_the_embedder_still_down_is_a_clear_error(conn, ns):
    use_openai(conn, "http://127.0.0.1:9/v1")
    conn.execute("select stash.remember(%s, 'pending forever?')", (ns,))
    with pytest.raises(psycopg.errors.ExternalRoutineException, match="embedder failed"):
        conn.execute("select stash.backfill_embeddings()")


def test_openai_provider_through_the_database(conn, ns):
    with FakeOpenAI(dimensions=384) as server:
        use_openai(conn, server.base_url, embedding__batch_size=2)
        texts = ["alpha note", "beta note", "gamma note"]
        ids = conn.execute("select stash.remember_many(%s, %s)", (ns, texts)).fetchone()[0]
        assert [r["path"] for r in server.requests] == ["/v1/embeddings", "/v1/embeddings"]
        for episode_id, text in zip(ids, texts, strict=True):
            cosine = conn.execute(
                "select 1 - (embedding <=> %s::vector) from stash.episodes where id = %s",
                (str(fake_vector(text, 384)), episode_id),
            ).fetchone()[0]
            assert cosine > 0.9999
        # The same text again comes from the cache: no request.
        conn.execute("select stash.embed(array['alpha note'])")
        assert len(server.requests) == 2


def test_a_slow_embedder_times_out_and_the_episode_is_kept(conn, ns):
    with FakeOpenAI(dimensions=384) as server:
        use_openai(conn, server.base_url)
        server.script = ["sleep:3"]
        episode = conn.execute("select stash.remember(%s, 'slow but safe')", (ns,)).fetchone()[0]
        assert conn.execute(
            "select embedding is null from stash.episodes where id = %s", (episode,)
        ).fetchone()[0]


def test_read_only_transactions_and_readers_embed_without_writing_the_cache(conn, ns):
    conn.execute("select stash.remember(%s, 'something to find')", (ns,))
    conn.commit()
    before = conn.execute("select count(*) from stash.embedding_cache").fetchone()[0]
    conn.execute("set transaction read only")
    assert conn.execute(
        "select count(*) from stash.recall('a query never seen before, read only', %s)", ([ns],)
    )
    conn.rollback()
    conn.execute("create role t_cache_reader in role stash_reader")
    conn.execute("select stash.grant_namespace('t_cache_reader', %s, 'read')", (ns,))
    conn.execute("set role t_cache_reader")
    assert conn.execute(
        "select count(*) from stash.recall('another fresh query, as the reader', %s)", ([ns],)
    )
    conn.rollback()
    assert conn.execute("select count(*) from stash.embedding_cache").fetchone()[0] == before
    conn.execute("select stash.purge(namespace => %s)", (ns,))
    conn.commit()


def test_reembed_switches_model_and_dimension_without_a_reset(conn, ns):
    conn.execute(
        "select stash.remember_many(%s, %s)", (ns, ["the cat sleeps", "the dog barks", "rain tomorrow"])
    )
    with FakeOpenAI(dimensions=8) as server:
        result = conn.execute(
            "select stash.reembed(provider => 'openai', model => 'fake-8', dimension => 8, base_url => %s)",
            (server.base_url,),
        ).fetchone()[0]
        assert result["dimension"] == 8 and result["model"] == "openai:fake-8" and result["pending"] >= 3
        assert (
            conn.execute(
                "select format_type(atttypid, atttypmod) from pg_attribute "
                "where attrelid = 'stash.episodes'::regclass and attname = 'embedding'"
            ).fetchone()[0]
            == "vector(8)"
        )
        assert (
            conn.execute(
                "select count(*) from pg_indexes where indexname = 'episodes_embedding_hnsw_idx'"
            ).fetchone()[0]
            == 1
        )
        # Recall works (full text) before the backfill and (vectors) after it.
        assert conn.execute("select count(*) from stash.recall('cat sleeps', %s)", ([ns],)).fetchone()[0] >= 1
        while conn.execute("select stash.backfill_embeddings(1000)").fetchone()[0]:
            pass
        assert conn.execute("select count(*) from stash.episodes where embedding is null").fetchone()[0] == 0
        assert conn.execute("select count(*) from stash.recall('cat sleeps', %s)", ([ns],)).fetchone()[0] >= 1
    # And back to the local model.
    back = conn.execute("select stash.reembed(provider => 'local', dimension => 384)").fetchone()[0]
    assert back["model"] == "local:all-MiniLM-L6-v2"


def test_reembed_refuses_what_cannot_work(conn):
    with pytest.raises(psycopg.errors.InvalidParameterValue):
        conn.execute("select stash.reembed(provider => 'local', dimension => 768)")
    conn.rollback()
    with pytest.raises(psycopg.errors.InvalidParameterValue):
        conn.execute("select stash.reembed(dimension => 4000)")
    conn.rollback()
    # A new provider that does not answer rolls the whole switch back.
    with pytest.raises(psycopg.errors.ExternalRoutineException):
        conn.execute(
            "select stash.reembed(provider => 'openai', model => 'm', base_url => 'http://127.0.0.1:9/v1')"
        )
    conn.rollback()
    assert (
        conn.execute("select value->>0 from stash.settings where key = 'embedding.provider'").fetchone()[0]
        == "local"
    )
