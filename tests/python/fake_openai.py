"""A scripted OpenAI-compatible HTTP server on 127.0.0.1 for tests: real HTTP, real `openai` client.

Embeddings are deterministic (a hash of the text spread over `dimensions`), so a test can tell which
vector belongs to which input. `script` is a list of behaviours consumed one per request:
"ok", "500", "sleep:<seconds>", "drop_one" (one embedding too few), "bad_dims"; when it runs out
every request is "ok". Chat completions answer with the next string in `chat_replies` (the
assistant message's content). `requests` records each request's JSON body.
"""

import hashlib
import json
import math
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def well_behaved(body: dict) -> str:
    """A model that gives a valid, minimal answer to every consolidation task (a chat_responder)."""
    task = body.get("response_format", {}).get("json_schema", {}).get("name", "")
    if task == "structured_fact":
        events = [line[2:] for line in body["messages"][1]["content"].split("\n") if line.startswith("- ")]
        speaker, sep, said = events[-1].partition(": ")
        if not sep:  # not a "speaker: text" turn
            speaker, said = "team", events[-1]
        summary = f"{speaker} mentioned that {said}"
        return json.dumps({"entity": speaker, "property": None, "value": None, "summary": summary})
    if task == "contradiction":
        return json.dumps({"classification": "compatible", "confidence": 0.8, "explanation": "both can hold"})
    key = {
        "relationships": "relationships",
        "causal_links": "links",
        "patterns": "patterns",
        "goal_progress": "assessments",
        "failure_patterns": "findings",
        "hypothesis_evidence": "verdicts",
    }[task]
    return json.dumps({key: []})


def use_as_reasoner(conn, namespace: str, base_url: str, model: str = "fake", **settings) -> None:
    """Point a namespace's reasoner at a fake server; keyword arguments are other reasoner.* settings."""
    values = {"reasoner.provider": "openai", "reasoner.model": model, "reasoner.base_url": base_url}
    values |= {f"reasoner.{key}": value for key, value in settings.items()}
    conn.execute("update stash.namespaces set settings = %s where path = %s", (json.dumps(values), namespace))


def fake_vector(text: str, dimensions: int) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    raw = [digest[i % len(digest)] - 127.5 + i % 7 for i in range(dimensions)]
    norm = math.sqrt(sum(x * x for x in raw))
    return [x / norm for x in raw]


class FakeOpenAI:
    def __init__(self, dimensions: int = 384):
        self.dimensions = dimensions
        self.script: list[str] = []
        self.chat_replies: list[str] = []
        # Called with the request body when chat_replies is empty (benchmarks answer every task).
        self.chat_responder = None
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                with fake._lock:
                    fake.requests.append({"path": self.path, "body": body})
                    action = fake.script.pop(0) if fake.script else "ok"
                if action.startswith("sleep:"):
                    time.sleep(float(action.split(":", 1)[1]))
                    action = "ok"
                if action == "500":
                    return self._send(500, {"error": {"message": "scripted failure", "type": "server_error"}})
                if self.path.endswith("/embeddings"):
                    texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                    dims = fake.dimensions + (1 if action == "bad_dims" else 0)
                    data = [
                        {"object": "embedding", "index": i, "embedding": fake_vector(t, dims)}
                        for i, t in enumerate(texts)
                    ]
                    if action == "drop_one":
                        data = data[:-1]
                    return self._send(
                        200,
                        {
                            "object": "list",
                            "data": data,
                            "model": body.get("model", "fake"),
                            "usage": {"prompt_tokens": 1, "total_tokens": 1},
                        },
                    )
                if self.path.endswith("/chat/completions"):
                    with fake._lock:
                        if fake.chat_replies:
                            reply = fake.chat_replies.pop(0)
                        else:
                            reply = fake.chat_responder(body) if fake.chat_responder else "{}"
                    return self._send(
                        200,
                        {
                            "id": "chatcmpl-fake",
                            "object": "chat.completion",
                            "created": 0,
                            "model": body.get("model", "fake"),
                            "choices": [
                                {
                                    "index": 0,
                                    "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": reply},
                                }
                            ],
                            "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
                        },
                    )
                return self._send(404, {"error": {"message": f"no route {self.path}"}})

            def _send(self, status, payload):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._server.shutdown()
        self._server.server_close()
