"""Reasoners: what consolidation asks of a model, answered by rules (offline) or an LLM.

`rules` is deterministic and needs nothing: it extracts entity/property/value from plain
declarative sentences ("Alice lives in Paris", "The API uses PostgreSQL 16", "We switched the queue
to Redis") and classifies a changed value as a replacement when the newer sentence says so ("now",
"switched", "moved", "no longer"). What it cannot read it leaves alone: no guesses.

`openai` asks any OpenAI-compatible chat endpoint for strict JSON (a JSON schema where the server
supports it, JSON mode otherwise), validates every answer and retries once, showing the model its
invalid answer and the error. Every call is metered (calls, tokens, milliseconds).

Used from plpython3u through `reason_for_sql` (sql/130_consolidation.sql); nothing here touches
the database.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field


class ReasonerError(Exception):
    """The reasoner could not give a valid answer.

    systemic: not the item's fault (provider down, timeout, misconfiguration), so consolidation
    stops the stage and retries later instead of dead-lettering the item.
    """

    def __init__(self, message: str, systemic: bool = False):
        super().__init__(message)
        self.systemic = systemic


@dataclass
class Usage:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    ms: int = 0

    def as_dict(self) -> dict:
        return {
            "calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "ms": self.ms,
        }


# ---------------------------------------------------------------------------------------------
# Validation shared by both reasoners
# ---------------------------------------------------------------------------------------------

_TOKEN = re.compile(r"[a-z0-9]+")


def _tokens(text: str) -> set[str]:
    return {t for t in _TOKEN.findall(text.lower()) if len(t) >= 3}


def check_structured(answer: dict, texts: Sequence[str], *, allow_verbatim: bool) -> dict:
    """{entity, property, value, summary}: strings or null; a summary is required to make a fact."""
    if not isinstance(answer, dict):
        raise ValueError("the answer must be a JSON object")
    out = {}
    for key in ("entity", "property", "value", "summary"):
        value = answer.get(key)
        if value is not None and not isinstance(value, str):
            raise ValueError(f"{key} must be a string or null")
        out[key] = value.strip() if isinstance(value, str) and value.strip() else None
    if out["property"] and not out["entity"]:
        raise ValueError("a property needs an entity")
    if out["value"] and not out["property"]:
        raise ValueError("a value needs a property")
    summary = out["summary"]
    if summary and not allow_verbatim:
        # The fact must be a synthesis, not a copy of one source.
        words = _tokens(summary)
        for text in texts:
            if summary.lower() in text.lower() and len(texts) > 1:
                raise ValueError("the summary copies a source verbatim; synthesise the fact")
            if len(texts) > 1 and words and len(words & _tokens(text)) / len(words) > 0.8:
                raise ValueError("the summary is a near copy of one source; synthesise across all of them")
    for key in ("entity", "value"):
        if out[key] and len(out[key]) > 500:
            raise ValueError(f"{key} is too long")
    return out


def check_contradiction(answer: dict) -> dict:
    if not isinstance(answer, dict):
        raise ValueError("the answer must be a JSON object")
    kind = answer.get("classification")
    if kind not in ("replacement", "contradiction", "compatible"):
        raise ValueError("classification must be replacement, contradiction or compatible")
    confidence = answer.get("confidence")
    if not isinstance(confidence, int | float) or isinstance(confidence, bool) or not 0 <= confidence <= 1:
        raise ValueError("confidence must be a number between 0 and 1")
    explanation = answer.get("explanation") or ""
    if not isinstance(explanation, str):
        raise ValueError("explanation must be a string")
    return {"classification": kind, "confidence": float(confidence), "explanation": explanation[:1000]}


def _number(value, what: str) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value <= 1:
        raise ValueError(f"{what} must be a number between 0 and 1")
    return float(value)


def _items(answer, key: str) -> list:
    if not isinstance(answer, dict) or not isinstance(answer.get(key), list):
        raise ValueError(f'the answer must be a JSON object {{"{key}": [...]}}')
    if not all(isinstance(item, dict) for item in answer[key]):
        raise ValueError(f"every element of {key} must be an object")
    return answer[key]


_RELATION = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


def relation_type(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")[:64]


def check_relationships(answer, fact: str) -> list[dict]:
    """Edges whose ends are stated in the fact (case-insensitive), snake_case types."""
    out = []
    for item in _items(answer, "relationships"):
        ends = [item.get("from"), item.get("to")]
        if not all(isinstance(e, str) and e.strip() for e in ends):
            raise ValueError("from and to must be non-empty strings")
        for end in ends:
            if end.strip().lower() not in fact.lower():
                raise ValueError(f"{end!r} does not appear in the fact; use the fact's own words")
        kind = item.get("relation_type")
        if not isinstance(kind, str) or not _RELATION.match(relation_type(kind) or "-"):
            raise ValueError("relation_type must be a short snake_case phrase")
        out.append(
            {
                "from": ends[0].strip(),
                "relation_type": relation_type(kind),
                "to": ends[1].strip(),
                "confidence": _number(item.get("confidence", 0.8), "confidence"),
            }
        )
    return out


def check_causal_links(answer, ids: set[int]) -> list[dict]:
    out = []
    for item in _items(answer, "links"):
        cause, effect = item.get("cause_id"), item.get("effect_id")
        if cause not in ids or effect not in ids:
            raise ValueError(
                f"cause_id and effect_id must be ids from the list given (got {cause}, {effect})"
            )
        if cause == effect:
            continue  # a self-link is noise, not an error
        out.append(
            {
                "cause_id": cause,
                "effect_id": effect,
                "confidence": _number(item.get("confidence"), "confidence"),
            }
        )
    return out


def check_patterns(answer, fact_ids: set[int], rel_ids: set[int]) -> list[dict]:
    out = []
    for item in _items(answer, "patterns"):
        text = item.get("pattern")
        if not isinstance(text, str) or not text.strip():
            raise ValueError("pattern must be a non-empty string")
        facts, rels = item.get("source_fact_ids", []), item.get("source_relationship_ids", [])
        if not isinstance(facts, list) or not isinstance(rels, list):
            raise ValueError("source ids must be lists")
        if not set(facts) <= fact_ids or not set(rels) <= rel_ids:
            raise ValueError("source ids must come from the lists given")
        if len(set(facts)) + len(set(rels)) < 2:
            raise ValueError("a pattern needs at least two sources")
        out.append(
            {
                "pattern": text.strip()[:2000],
                "coherence": _number(item.get("coherence"), "coherence"),
                "source_fact_ids": sorted(set(facts)),
                "source_relationship_ids": sorted(set(rels)),
            }
        )
    return out


def _text(item: dict, key: str, required: bool = True, limit: int = 1000) -> str:
    value = item.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise ValueError(f"{key} must be a non-empty string")
    return value.strip()[:limit]


def check_goal_progress(answer, goal_ids: set[int]) -> list[dict]:
    out = []
    for item in _items(answer, "assessments"):
        if item.get("goal_id") not in goal_ids:
            raise ValueError(f"goal_id must be one of the goals given (got {item.get('goal_id')})")
        kind = item.get("assessment")
        if kind == "irrelevant":
            continue
        if kind not in ("progress", "suggested_complete", "contradicted"):
            raise ValueError("assessment must be progress, suggested_complete, contradicted or irrelevant")
        out.append(
            {
                "goal_id": item["goal_id"],
                "assessment": kind,
                "note": _text(item, "note", limit=500),
                "confidence": _number(item.get("confidence"), "confidence"),
            }
        )
    return out


def check_failure_patterns(answer, failure_ids: set[int]) -> list[dict]:
    out = []
    for item in _items(answer, "findings"):
        kind = item.get("type")
        if kind == "repetition":
            if item.get("failure_id") not in failure_ids:
                raise ValueError(
                    f"failure_id must be one of the failures given (got {item.get('failure_id')})"
                )
            out.append(
                {
                    "type": kind,
                    "failure_id": item["failure_id"],
                    "evidence": _text(item, "evidence"),
                    "confidence": _number(item.get("confidence"), "confidence"),
                }
            )
        elif kind == "pattern":
            out.append(
                {
                    "type": kind,
                    "pattern_fact": _text(item, "pattern_fact"),
                    "confidence": _number(item.get("confidence"), "confidence"),
                }
            )
        else:
            raise ValueError("type must be repetition or pattern")
    return out


def check_hypothesis_evidence(answer, hypothesis_ids: set[int]) -> list[dict]:
    out = []
    for item in _items(answer, "verdicts"):
        if item.get("hypothesis_id") not in hypothesis_ids:
            raise ValueError(
                f"hypothesis_id must be one of the hypotheses given (got {item.get('hypothesis_id')})"
            )
        verdict = item.get("verdict")
        if verdict == "irrelevant":
            continue
        if verdict not in ("supports", "weakens", "contradicts"):
            raise ValueError("verdict must be supports, weakens, contradicts or irrelevant")
        out.append(
            {
                "hypothesis_id": item["hypothesis_id"],
                "verdict": verdict,
                "confidence": _number(item.get("confidence"), "confidence"),
                "new_confidence": _number(item.get("new_confidence"), "new_confidence"),
                "reasoning": _text(item, "reasoning", required=False),
            }
        )
    return out


# ---------------------------------------------------------------------------------------------
# rules
# ---------------------------------------------------------------------------------------------

# Relation phrases, longest first so "lives in" wins over "is". Multi-valued ones (a person likes
# many things) never contradict each other.
_SINGLE = [
    "lives in",
    "is based in",
    "is located in",
    "works at",
    "works for",
    "runs on",
    "is hosted on",
    "is deployed on",
    "is written in",
    "is built with",
    "uses",
    "is",
    "was born in",
    "reports to",
]
_MULTI = ["likes", "loves", "enjoys", "prefers", "has", "owns", "knows", "speaks", "depends on", "supports"]
_CHANGE = re.compile(
    r"\b(now|switched|moved|migrated|changed|no longer|instead|replaced|anymore|from now on)\b", re.I
)
_PRONOUN = re.compile(r"^(i|we|you|he|she|it|they|this|that|these|those|there|here)$", re.I)
_ARTICLE = re.compile(r"^(the|a|an|our|my|their|his|her|its)\s+", re.I)
_VERBS = sorted(_SINGLE + _MULTI, key=len, reverse=True)
_DECLARATIVE = re.compile(
    r"^(?P<entity>[^,;:?!]+?)\s+(?:(?:now|currently|still)\s+)?(?P<verb>"
    + "|".join(map(re.escape, _VERBS))
    + r")\s+(?P<value>[^?!]+?)[.!]?$",
    re.I,
)
_SWITCH = re.compile(
    r"^(?P<subject>[^,;:?!]+?)\s+(?:switched|moved|migrated|changed)\s+(?P<entity>[^,;:?!]+?)\s+(?:from\s+.+?\s+)?to\s+"
    r"(?P<value>[^?!]+?)[.!]?$",
    re.I,
)


def _clean_entity(text: str) -> str | None:
    text = _ARTICLE.sub("", text.strip())
    if not text or _PRONOUN.match(text) or len(text.split()) > 6:
        return None
    return text


_DONE = re.compile(r"\b(done|completed?|finished|shipped|launched|released|achieved|delivered)\b", re.I)
_CAUSE_FIRST = r"so|therefore|which caused|caused|led to|leads to|resulted in|results in"
_CAUSAL = [
    re.compile(r"^(?P<effect>.+?),?\s+(?:because|since|due to|as a result of)\s+(?P<cause>.+)$", re.I),
    re.compile(r"^(?P<cause>.+?),?\s+(?:" + _CAUSE_FIRST + r")\s+(?P<effect>.+)$", re.I),
]


def _best_match(clause: str, facts: Sequence[dict], exclude: int) -> int | None:
    """The fact (other than the one saying "because") that states this clause."""
    words = _tokens(clause)
    best, best_score = None, 0.0
    for f in facts:
        if f["id"] == exclude:
            continue
        theirs = _tokens(f["content"])
        if not words or not theirs:
            continue
        shared = len(words & theirs)
        score = min(shared / len(words), shared / len(theirs))
        if score > best_score:
            best, best_score = f["id"], score
    return best if best_score >= 0.6 else None


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip()]


def extract(sentence: str) -> dict | None:
    """entity/property/value from one plain declarative sentence, or None."""
    sentence = re.sub(r"^[A-Z][\w .'-]{0,40}:\s+", "", sentence.strip())  # "Speaker: text"
    m = _SWITCH.match(sentence)
    if m:
        entity = _clean_entity(m.group("entity"))
        if entity:
            return {"entity": entity, "property": "uses", "value": m.group("value").strip(), "changed": True}
    m = _DECLARATIVE.match(sentence)
    if not m:
        return None
    entity = _clean_entity(m.group("entity"))
    value = m.group("value").strip()
    if not entity or not value or len(value.split()) > 12:
        return None
    return {
        "entity": entity,
        "property": m.group("verb").lower(),
        "value": value,
        "changed": bool(_CHANGE.search(sentence)),
    }


class RulesReasoner:
    name = "rules"

    def __init__(self):
        self.usage = Usage()

    def structured(self, texts: Sequence[str]) -> dict:
        # The latest statement wins: a cluster's newest declarative sentence is the fact. A stated
        # cause ("X because Y") is kept whole, as a fact without entity, for the causal stage.
        for text in reversed(texts):
            for sentence in reversed(_sentences(text)):
                plain = re.sub(r"^[A-Z][\w .'-]{0,40}:\s+", "", sentence.strip()).rstrip(".!")
                if any(p.match(plain) for p in _CAUSAL) and not plain.endswith("?"):
                    return {
                        "entity": None,
                        "property": None,
                        "value": None,
                        "summary": plain[0].upper() + plain[1:],
                    }
                found = extract(sentence)
                if found:
                    summary = f"{found['entity']} {found['property']} {found['value']}"
                    return {
                        "entity": found["entity"],
                        "property": found["property"],
                        "value": found["value"],
                        "summary": summary[0].upper() + summary[1:],
                    }
        return {"entity": None, "property": None, "value": None, "summary": None}

    def contradiction(self, entity: str, prop: str, old: str, new: str, new_text: str = "") -> dict:
        if old.strip().lower() == new.strip().lower():
            return {"classification": "compatible", "confidence": 1.0, "explanation": "same value"}
        if prop.lower() in _MULTI:
            return {
                "classification": "compatible",
                "confidence": 0.7,
                "explanation": f"'{prop}' can hold several values at once",
            }
        if _CHANGE.search(new_text or ""):
            return {
                "classification": "replacement",
                "confidence": 0.9,
                "explanation": "the newer statement says the value changed",
            }
        return {
            "classification": "contradiction",
            "confidence": 0.6,
            "explanation": f"two values for '{prop}' and nothing says which is current",
        }

    def relationships(
        self, fact: str, entity: str | None = None, prop: str | None = None, value: str | None = None
    ) -> list[dict]:
        # An edge only where the fact names both ends: a structured fact with a short value.
        if entity and prop and value and len(value.split()) <= 6:
            return [{"from": entity, "relation_type": relation_type(prop), "to": value, "confidence": 0.8}]
        return []

    def causal_links(self, facts: Sequence[dict]) -> list[dict]:
        # "X because Y", "Y so X", "Y led to X": a link only when both clauses match known facts.
        links = []
        for f in facts:
            for pattern in _CAUSAL:
                m = pattern.match(f["content"].strip().rstrip("."))
                if not m:
                    continue
                cause = _best_match(m.group("cause"), facts, exclude=f["id"])
                effect = _best_match(m.group("effect"), facts, exclude=f["id"])
                if cause and effect and cause != effect:
                    links.append({"cause_id": cause, "effect_id": effect, "confidence": 0.8})
                break
        return links

    def patterns(self, facts: Sequence[dict], relationships: Sequence[dict]) -> list[dict]:
        # Aggregation only: three or more entities with the same relation to the same thing.
        groups: dict[tuple, list[dict]] = {}
        for r in relationships:
            groups.setdefault((r["relation_type"], r["to"].strip().lower()), []).append(r)
        out = []
        for (kind, _), rels in sorted(groups.items()):
            names = sorted({r["from"] for r in rels}, key=str.lower)
            if len(names) < 3:
                continue
            who = f"{', '.join(names[:-1])} and {names[-1]}"
            text = f"{who} share one relation to {rels[0]['to']}: {kind.replace('_', ' ')}"
            out.append(
                {
                    "pattern": text,
                    "coherence": 0.8,
                    "source_fact_ids": [],
                    "source_relationship_ids": sorted(r["id"] for r in rels),
                }
            )
        return out

    def goal_progress(self, goals: Sequence[dict], facts: Sequence[dict]) -> list[dict]:
        # Only the explicit case: a fact restating a goal and saying it is done.
        out = []
        for fact in facts:
            if not _DONE.search(fact["content"]):
                continue
            goal = _best_match(_DONE.sub(" ", fact["content"]), goals, exclude=-1)
            if goal:
                out.append(
                    {
                        "goal_id": goal,
                        "assessment": "suggested_complete",
                        "confidence": 0.7,
                        "note": f"fact {fact['id']}: {fact['content'][:200]}",
                    }
                )
        return out

    def failure_patterns(self, failures: Sequence[dict], episodes: Sequence[str]) -> list[dict]:
        # A repetition is an episode describing what a recorded failure describes.
        out = []
        for text in episodes:
            failure = _best_match(
                text, [{"id": f["id"], "content": f["content"]} for f in failures], exclude=-1
            )
            if failure:
                out.append(
                    {"type": "repetition", "failure_id": failure, "evidence": text[:1000], "confidence": 0.7}
                )
        return out

    def hypothesis_evidence(self, hypotheses: Sequence[dict], facts: Sequence[dict]) -> list[dict]:
        return []  # weighing evidence is judgement: the rules reasoner does not guess


# ---------------------------------------------------------------------------------------------
# openai
# ---------------------------------------------------------------------------------------------

_SYSTEM = (
    "You are a strict extraction engine for an agent's long-term memory. Use only what the given "
    "text states: no outside knowledge, no guesses, no generalisation. When something is not stated, "
    "use null. Answer with one JSON object matching the schema and nothing else."
)

_STRUCTURED_SCHEMA = {
    "type": "object",
    "properties": {
        "entity": {"type": ["string", "null"]},
        "property": {"type": ["string", "null"]},
        "value": {"type": ["string", "null"]},
        "summary": {"type": ["string", "null"]},
    },
    "required": ["entity", "property", "value", "summary"],
    "additionalProperties": False,
}
_CONTRADICTION_SCHEMA = {
    "type": "object",
    "properties": {
        "classification": {"type": "string", "enum": ["replacement", "contradiction", "compatible"]},
        "confidence": {"type": "number"},
        "explanation": {"type": "string"},
    },
    "required": ["classification", "confidence", "explanation"],
    "additionalProperties": False,
}


def _list_schema(key: str, item_properties: dict) -> dict:
    return {
        "type": "object",
        "properties": {
            key: {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": item_properties,
                    "required": list(item_properties),
                    "additionalProperties": False,
                },
            }
        },
        "required": [key],
        "additionalProperties": False,
    }


def _parse_json(text: str):
    text = (text or "").strip()
    fenced = re.match(r"^```(?:json)?\s*(.*?)\s*```$", text, re.S)
    if fenced:
        text = fenced.group(1)
    return json.loads(text)


@dataclass
class OpenAIReasoner:
    model: str
    base_url: str | None = None
    api_key: str | None = None
    timeout: float = 60.0
    max_retries: int = 1
    structured_output: bool = True
    usage: Usage = field(default_factory=Usage)

    name = "openai"

    def __post_init__(self):
        import openai

        if not self.base_url and not self.api_key:
            raise ReasonerError(
                "the openai reasoner needs reasoner.base_url (a local server) or an API key (GUC "
                "stash.openai_api_key, or STASH_OPENAI_API_KEY / OPENAI_API_KEY in the server environment)",
                systemic=True,
            )
        self._openai = openai
        self._client = openai.OpenAI(
            base_url=self.base_url or None,
            api_key=self.api_key or "unused",
            timeout=self.timeout,
            max_retries=self.max_retries,
        )

    def _ask(self, name: str, prompt: str, schema: dict, check) -> dict:
        messages = [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": prompt}]
        if self.structured_output:
            response_format = {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": True},
            }
        else:
            response_format = {"type": "json_object"}
        last_error = None
        for _attempt in range(2):  # one retry that shows the model its invalid answer
            start = time.monotonic()
            try:
                response = self._client.chat.completions.create(
                    model=self.model, messages=messages, temperature=0, response_format=response_format
                )
            except self._openai.OpenAIError as e:
                raise ReasonerError(
                    f"reasoner request to {self._client.base_url} failed: {e}", systemic=True
                ) from e
            finally:
                self.usage.calls += 1
                self.usage.ms += int((time.monotonic() - start) * 1000)
            if response.usage:
                self.usage.prompt_tokens += response.usage.prompt_tokens or 0
                self.usage.completion_tokens += response.usage.completion_tokens or 0
            content = response.choices[0].message.content if response.choices else None
            try:
                return check(_parse_json(content))
            except (ValueError, TypeError) as e:  # json.JSONDecodeError is a ValueError
                last_error = e
                messages += [
                    {"role": "assistant", "content": content or ""},
                    {
                        "role": "user",
                        "content": f"That answer is invalid: {e}. Answer again with "
                        "only the corrected JSON object.",
                    },
                ]
        raise ReasonerError(f"no valid answer after a retry: {last_error}")

    def structured(self, texts: Sequence[str]) -> dict:
        events = "\n".join(f"- {t}" for t in texts)
        prompt = (
            "These observations were recorded by an agent:\n" + events + "\n\n"
            "Synthesise the one durable fact they establish. entity: the most specific thing the fact is "
            "about; property: a short lowercase relation (e.g. 'lives in', 'uses', 'deploy day'); value: "
            "its value; summary: one specific sentence stating the fact in the third person, keeping proper "
            "nouns, versions, paths and quantities. Do not copy an observation verbatim. If they establish "
            "nothing durable, answer all nulls."
        )
        return self._ask(
            "structured_fact",
            prompt,
            _STRUCTURED_SCHEMA,
            lambda a: check_structured(a, texts, allow_verbatim=len(texts) == 1),
        )

    def contradiction(self, entity: str, prop: str, old: str, new: str, new_text: str = "") -> dict:
        prompt = (
            f"Entity: {entity}\nProperty: {prop}\nEarlier value: {old}\nNewer value: {new}\n"
            + (f"Newer statement: {new_text}\n" if new_text else "")
            + "\nClassify: replacement (the newer value supersedes the earlier one), contradiction (both "
            "cannot be true and it is unclear which is), or compatible (both can hold). Give your "
            "confidence (0 to 1) and a one-sentence explanation."
        )
        return self._ask("contradiction", prompt, _CONTRADICTION_SCHEMA, check_contradiction)

    def relationships(
        self, fact: str, entity: str | None = None, prop: str | None = None, value: str | None = None
    ) -> list[dict]:
        prompt = (
            f"Fact: {fact}\n\nList the relationships between named entities that this fact states directly "
            "(no inferred or transitive ones). from and to: the entities exactly as written in the fact; "
            "relation_type: a short snake_case verb phrase (works_at, lives_in, depends_on); confidence 0.7 "
            'to 1. Answer {"relationships": []} if there are none.'
        )
        return self._ask(
            "relationships",
            prompt,
            _list_schema(
                "relationships",
                {
                    "from": {"type": "string"},
                    "relation_type": {"type": "string"},
                    "to": {"type": "string"},
                    "confidence": {"type": "number"},
                },
            ),
            lambda a: check_relationships(a, fact),
        )

    def causal_links(self, facts: Sequence[dict]) -> list[dict]:
        listing = "\n".join(f"[Fact {f['id']}] {f['content']}" for f in facts)
        prompt = (
            listing + "\n\nWhich of these facts directly cause another one of them, as the facts themselves "
            "state or make explicit? Only direct causation, no chains, no self-links; use the ids given. "
            'confidence 0.5 (implied) to 1 (stated). Answer {"links": []} if there are none.'
        )
        ids = {f["id"] for f in facts}
        return self._ask(
            "causal_links",
            prompt,
            _list_schema(
                "links",
                {
                    "cause_id": {"type": "integer"},
                    "effect_id": {"type": "integer"},
                    "confidence": {"type": "number"},
                },
            ),
            lambda a: check_causal_links(a, ids),
        )

    def patterns(self, facts: Sequence[dict], relationships: Sequence[dict]) -> list[dict]:
        listing = "\n".join(f"[Fact {f['id']}] {f['content']}" for f in facts)
        listing += "\n" + "\n".join(
            f"[Rel {r['id']}] {r['from']} --{r['relation_type']}--> {r['to']}" for r in relationships
        )
        prompt = (
            listing + "\n\nState the patterns these facts and relationships show together: regularities "
            "that at least two of them support, without generalising beyond them. Give the source ids from "
            'the lists and a coherence (0 to 1). Answer {"patterns": []} if there are none.'
        )
        return self._ask(
            "patterns",
            prompt,
            _list_schema(
                "patterns",
                {
                    "pattern": {"type": "string"},
                    "coherence": {"type": "number"},
                    "source_fact_ids": {"type": "array", "items": {"type": "integer"}},
                    "source_relationship_ids": {"type": "array", "items": {"type": "integer"}},
                },
            ),
            lambda a: check_patterns(a, {f["id"] for f in facts}, {r["id"] for r in relationships}),
        )

    def goal_progress(self, goals: Sequence[dict], facts: Sequence[dict]) -> list[dict]:
        listing = "\n".join(f"[Goal {g['id']}] {g['content']}" for g in goals)
        listing += "\n" + "\n".join(f"[Fact {f['id']}] {f['content']}" for f in facts)
        prompt = (
            listing + "\n\nFor each goal, do these facts show progress, suggest it is complete, contradict "
            "it, or are they irrelevant to it? Give a one-sentence note citing the fact and a confidence "
            '(0.5 to 1). Answer {"assessments": []} if nothing is relevant.'
        )
        return self._ask(
            "goal_progress",
            prompt,
            _list_schema(
                "assessments",
                {
                    "goal_id": {"type": "integer"},
                    "assessment": {"type": "string"},
                    "note": {"type": "string"},
                    "confidence": {"type": "number"},
                },
            ),
            lambda a: check_goal_progress(a, {g["id"] for g in goals}),
        )

    def failure_patterns(self, failures: Sequence[dict], episodes: Sequence[str]) -> list[dict]:
        listing = "\n".join(
            f"[Failure {f['id']}] What: {f['content']} | Why: {f['reason']} | Lesson: {f['lesson']}"
            for f in failures
        )
        listing += "\nRecent events:\n" + "\n".join(f"- {e}" for e in episodes)
        prompt = (
            listing + "\n\nDo the recent events repeat one of the recorded failures (type repetition: "
            "failure_id and the event as evidence), or do the failures together show a lesson not yet "
            "written down (type pattern: pattern_fact, one sentence)? Confidence 0.5 to 1. Answer "
            '{"findings": []} if neither.'
        )
        return self._ask(
            "failure_patterns",
            prompt,
            _list_schema(
                "findings",
                {
                    "type": {"type": "string"},
                    "failure_id": {"type": ["integer", "null"]},
                    "evidence": {"type": ["string", "null"]},
                    "pattern_fact": {"type": ["string", "null"]},
                    "confidence": {"type": "number"},
                },
            ),
            lambda a: check_failure_patterns(a, {f["id"] for f in failures}),
        )

    def hypothesis_evidence(self, hypotheses: Sequence[dict], facts: Sequence[dict]) -> list[dict]:
        listing = "\n".join(
            f"[Hypothesis {h['id']}] (status {h['status']}, confidence {h['confidence']}) {h['content']}"
            for h in hypotheses
        )
        listing += "\n" + "\n".join(f"[Fact {f['id']}] {f['content']}" for f in facts)
        prompt = (
            listing + "\n\nFor each hypothesis, do these facts support it, weaken it, contradict it, or are "
            "they irrelevant? Give your confidence in that verdict (0.5 to 1), one sentence of reasoning, "
            "and the hypothesis's new confidence (higher if supported, lower if weakened, below 0.3 if "
            'contradicted). Answer {"verdicts": []} if nothing is relevant.'
        )
        return self._ask(
            "hypothesis_evidence",
            prompt,
            _list_schema(
                "verdicts",
                {
                    "hypothesis_id": {"type": "integer"},
                    "verdict": {"type": "string"},
                    "confidence": {"type": "number"},
                    "reasoning": {"type": "string"},
                    "new_confidence": {"type": "number"},
                },
            ),
            lambda a: check_hypothesis_evidence(a, {h["id"] for h in hypotheses}),
        )


# ---------------------------------------------------------------------------------------------
# Entry point for plpython3u
# ---------------------------------------------------------------------------------------------

TASKS = (
    "structured",
    "contradiction",
    "relationships",
    "causal_links",
    "goal_progress",
    "failure_patterns",
    "patterns",
    "hypothesis_evidence",
)


def get_reasoner(settings: dict, cache: dict, api_key: str | None = None):
    provider = settings.get("reasoner.provider", "rules")
    if provider == "rules":
        return RulesReasoner()
    if provider != "openai":
        raise ReasonerError(
            f"unknown reasoner provider {provider!r} (expected 'rules' or 'openai')", systemic=True
        )
    key = (
        "stash.reasoner",
        settings.get("reasoner.model"),
        settings.get("reasoner.base_url"),
        api_key,
        settings.get("reasoner.timeout"),
        settings.get("reasoner.structured_output"),
    )
    reasoner = cache.get(key)
    if reasoner is None:
        reasoner = OpenAIReasoner(
            model=settings.get("reasoner.model") or "gpt-4o-mini",
            base_url=settings.get("reasoner.base_url"),
            api_key=api_key,
            timeout=float(settings.get("reasoner.timeout", 60)),
            max_retries=int(settings.get("reasoner.max_retries", 1)),
            structured_output=bool(settings.get("reasoner.structured_output", True)),
        )
        cache[key] = reasoner
    return reasoner


def reason_for_sql(cache: dict, task: str, payload: dict, settings: dict, api_key: str | None) -> dict:
    """One reasoner call: {"result": ..., "usage": {...}} (usage counts this call only).

    A failure carries the usage it cost too (`error.usage`), so failed calls are metered as well.
    """
    if task not in TASKS:
        raise ReasonerError(f"unknown reasoner task {task!r}")
    reasoner = get_reasoner(settings, cache, api_key)
    before = reasoner.usage.as_dict()
    start = time.monotonic()

    def spent() -> dict:
        now = reasoner.usage.as_dict()
        used = {key: now[key] - before[key] for key in now}
        used["elapsed_ms"] = round((time.monotonic() - start) * 1000, 3)  # any reasoner, rules included
        return used

    try:
        result = getattr(reasoner, task)(**payload)
    except ReasonerError as e:
        e.usage = spent()
        raise
    return {"result": result, "reasoner": reasoner.name, "usage": spent()}
