"""A fake Anthropic Messages API: a real HTTP server speaking the wire format, scripted per test.

It rejects what the real API rejects (tool blocks without `tools`, empty text blocks, mixed
citation settings, malformed search results, tool_use without its tool_result), records every
request, and computes citations from the search results it was actually sent, exactly as the
API does (search_result_index counts across the whole request).
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.fakes.slack import POLL_S

Handler = Callable[[dict], "Reply"]
_ids = itertools.count(1)


@dataclass
class Reply:
    status: int = 200
    body: dict = field(default_factory=dict)
    headers: dict = field(default_factory=dict)
    delay_s: float = 0.0
    raw: bytes | None = None  # sent as is instead of the JSON body: a broken reply
    stream_error: str | None = None  # streamed: this error event (say "overloaded_error") ...
    stream_error_after: int = 1  # ... after this many content blocks


class BadRequest(Exception):
    pass


# -- what the real API checks -------------------------------------------------------------


def validate(req: dict) -> None:
    for key in ("model", "max_tokens", "messages"):
        if key not in req:
            raise BadRequest(f"{key}: Field required")
    messages = req["messages"]
    if not messages or messages[0]["role"] != "user":
        raise BadRequest("messages: first message must use the 'user' role")
    system = req.get("system")
    if isinstance(system, list):
        for block in system:
            _check_text(block)
    uses_tools = False
    citation_settings = set()
    for i, msg in enumerate(messages):
        content = msg["content"]
        if isinstance(content, str):
            if not content.strip():
                raise BadRequest(f"messages.{i}: text content blocks must be non-empty")
            continue
        for block in content:
            kind = block.get("type")
            if kind == "text":
                _check_text(block)
            elif kind in ("tool_use", "tool_result"):
                uses_tools = True
                if kind == "tool_result":
                    inner = block.get("content")
                    for sub in inner if isinstance(inner, list) else []:
                        if sub.get("type") == "text":
                            _check_text(sub)
                        elif sub.get("type") == "search_result":
                            citation_settings.add(_check_search_result(sub))
            elif kind == "search_result":
                citation_settings.add(_check_search_result(block))
        if msg["role"] == "assistant":
            wanted = {b["id"] for b in content if isinstance(content, list) and b.get("type") == "tool_use"}
            if wanted:
                following = messages[i + 1]["content"] if i + 1 < len(messages) else []
                given = {
                    b.get("tool_use_id") for b in following if isinstance(following, list) and b.get("type") == "tool_result"
                }
                if not wanted <= given:
                    raise BadRequest(
                        f"messages.{i + 1}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                        + ", ".join(sorted(wanted - given))
                    )
    if uses_tools and not req.get("tools"):
        raise BadRequest("Requests which include `tool_use` or `tool_result` blocks must define tools.")
    if len(citation_settings) > 1:
        raise BadRequest("Citations must be enabled on all search results or on none of them.")


def _check_text(block: dict) -> None:
    if not isinstance(block.get("text"), str) or not block["text"].strip():
        raise BadRequest("text content blocks must be non-empty")


def _check_search_result(block: dict) -> bool:
    for key in ("source", "title", "content"):
        if key not in block:
            raise BadRequest(f"search_result.{key}: Field required")
    if not block["content"] or any(b.get("type") != "text" for b in block["content"]):
        raise BadRequest("search_result.content must be a non-empty list of text blocks")
    for b in block["content"]:
        _check_text(b)
    return bool((block.get("citations") or {}).get("enabled"))


# -- reading the request the way the API does ----------------------------------------------


def search_results(req: dict) -> list[dict]:
    """Every search_result block in the request, in order: what search_result_index counts."""
    out = []
    for msg in req["messages"]:
        content = msg["content"] if isinstance(msg["content"], list) else []
        for block in content:
            if block.get("type") == "search_result":
                out.append(block)
            if block.get("type") == "tool_result" and isinstance(block.get("content"), list):
                out += [b for b in block["content"] if b.get("type") == "search_result"]
    return out


def last_tool_results(req: dict) -> list[dict]:
    last = req["messages"][-1]
    return [b for b in last["content"] if isinstance(last["content"], list) and b.get("type") == "tool_result"]


def tool_result_text(block: dict) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    return " ".join(b.get("text", "") for b in content if b.get("type") == "text")


# -- building replies ----------------------------------------------------------------------


def message(content: list[dict], stop_reason: str, usage: dict | None = None, **extra) -> Reply:
    body = {
        "id": f"msg_fake_{next(_ids)}",
        "type": "message",
        "role": "assistant",
        "model": "claude-haiku-4-5",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage
        or {"input_tokens": 120, "output_tokens": 30, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
        **extra,
    }
    return Reply(200, body, {"request-id": f"req_fake_{next(_ids)}"})


def search(query: str, collection: str | None = None, thought: str | None = None) -> Handler:
    def handler(req: dict) -> Reply:
        args = {"query": query} | ({"collection": collection} if collection else {})
        content = [{"type": "text", "text": thought}] if thought else []
        content.append({"type": "tool_use", "id": f"toolu_fake_{next(_ids)}", "name": "search_docs", "input": args})
        return message(content, "tool_use")

    return handler


def calculate(expression: str) -> Handler:
    def handler(req: dict) -> Reply:
        call = {"type": "tool_use", "id": f"toolu_fake_{next(_ids)}", "name": "calculator", "input": {"expression": expression}}
        return message([call], "tool_use")

    return handler


@dataclass
class Cite:
    """A sentence citing the line of a search result (source contains `source`, a line contains `line`)."""

    text: str
    source: str
    line: str
    cited_text: str | None = None  # to fake a wrong quotation
    index: int | None = None  # to fake a citation of something never retrieved


def answer(*parts: str | Cite, stop_reason: str = "end_turn") -> Handler:
    def handler(req: dict) -> Reply:
        results = search_results(req)
        content = []
        for part in parts:
            if isinstance(part, str):
                content.append({"type": "text", "text": part})
                continue
            idx, block_no, result = _locate(results, part)
            blocks = [b["text"] for b in result["content"]] if result else [part.line]
            content.append(
                {
                    "type": "text",
                    "text": part.text,
                    "citations": [
                        {
                            "type": "search_result_location",
                            "source": result["source"] if result else "kb://nowhere",
                            "title": result["title"] if result else None,
                            "cited_text": part.cited_text if part.cited_text is not None else blocks[block_no],
                            "search_result_index": part.index if part.index is not None else idx,
                            "start_block_index": block_no,
                            "end_block_index": block_no + 1,
                        }
                    ],
                }
            )
        return message(content, stop_reason)

    return handler


def _locate(results: list[dict], cite: Cite):
    for idx, result in enumerate(results):
        if cite.source in result["source"]:
            for n, block in enumerate(result["content"]):
                if cite.line in block["text"]:
                    return idx, n, result
    if cite.index is not None:
        return cite.index, 0, None
    raise AssertionError(f"the script cites {cite.source!r} / {cite.line!r}, which the model was never sent")


def empty_turn() -> Handler:
    return lambda req: message([], "end_turn")


def refusal(category: str = "cyber") -> Handler:
    return lambda req: message([], "refusal", stop_details={"type": "refusal", "category": category, "explanation": None})


def error(status: int, kind: str, text: str, headers: dict | None = None) -> Handler:
    def handler(req: dict) -> Reply:
        body = {"type": "error", "error": {"type": kind, "message": text}}
        return Reply(status, body, {"request-id": f"req_fake_{next(_ids)}", **(headers or {})})

    return handler


# -- streaming --------------------------------------------------------------------------------


def _pieces(text: str, size: int = 12) -> list[str]:
    """Text deltas about the size of a few tokens."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def stream_events(reply: Reply):
    """(event name, data) for a Messages reply, in the order the API streams them: message_start, then per block
    content_block_start, its deltas (citations before the text they support) and content_block_stop, then
    message_delta with the stop reason and usage, and message_stop. A text block's content_block_stop carries its
    text under "_text", for the fake's own record; it is taken out before the event is sent."""
    body = reply.body
    yield (
        "message_start",
        {
            "type": "message_start",
            "message": {**body, "content": [], "stop_reason": None, "usage": {**body["usage"], "output_tokens": 1}},
        },
    )
    for index, block in enumerate(body["content"]):
        if block["type"] == "text":
            yield (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
            )
            for citation in block.get("citations") or []:
                delta = {"type": "citations_delta", "citation": citation}
                yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
            for piece in _pieces(block["text"]):
                delta = {"type": "text_delta", "text": piece}
                yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
            yield "content_block_stop", {"type": "content_block_stop", "index": index, "_text": block["text"]}
        else:
            start = {**block, "input": {}}
            yield "content_block_start", {"type": "content_block_start", "index": index, "content_block": start}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block.get("input", {}))}
            yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
            yield "content_block_stop", {"type": "content_block_stop", "index": index}
        if reply.stream_error and index + 1 == reply.stream_error_after:
            yield "error", {"type": "error", "error": {"type": reply.stream_error, "message": "Overloaded"}}
            return
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": body["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": body["usage"]["output_tokens"]},
        },
    )
    yield "message_stop", {"type": "message_stop"}


# -- the server ------------------------------------------------------------------------------


class FakeAnthropic:
    def __init__(self) -> None:
        self.script: list[Handler] = []
        self.requests: list[dict] = []  # bodies of accepted and rejected requests alike
        self.headers: list[dict] = []
        self.rejections: list[str] = []
        self.default: Handler | None = None  # answers when the script is empty (for load tests)
        self.models = {"claude-haiku-4-5": "claude-haiku-4-5-20251001", "claude-sonnet-4-5": "claude-sonnet-4-5-20250929"}
        self.refused_keys: set[str] = set()  # GET /v1/models answers 401 for these
        self.token_delay_s = 0.0  # the pause before each text delta (a word or so); an unstreamed reply waits as long
        self.block_ends: list[tuple[float, str]] = []  # streamed text blocks: (monotonic time of content_block_stop, text)
        self._lock = threading.Lock()
        fake = self

        class _Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):  # GET /v1/models/{model_id}: the Models API, as `serve` checks key and model at start
                self._send(fake._model(self.path, {k.lower(): v for k, v in self.headers.items()}))

            def do_POST(self):
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                reply = fake._handle(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                if reply.delay_s:
                    threading.Event().wait(reply.delay_s)
                if body.get("stream") and reply.status == 200 and reply.raw is None:
                    self._stream(reply)
                    return
                if fake.token_delay_s and reply.status == 200 and reply.raw is None:  # the model writes as long unstreamed
                    deltas = sum(1 for kind, data in stream_events(reply) if data.get("delta", {}).get("type") == "text_delta")
                    threading.Event().wait(deltas * fake.token_delay_s)
                self._send(reply)

            def _stream(self, reply: Reply) -> None:
                """The reply as the Messages API streams it (server-sent events), text a few characters at a time."""
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                for k, v in reply.headers.items():
                    self.send_header(k, v)
                self.end_headers()
                for kind, data in stream_events(reply):
                    if kind == "content_block_delta" and data["delta"]["type"] == "text_delta" and fake.token_delay_s:
                        threading.Event().wait(fake.token_delay_s)
                    text = data.pop("_text", None)
                    try:
                        self.wfile.write(f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode())
                        self.wfile.flush()
                    except (BrokenPipeError, ConnectionResetError):  # the client went away (a killed bot)
                        return
                    if text is not None:
                        with fake._lock:
                            fake.block_ends.append((time.monotonic(), text))

            def _send(self, reply: Reply) -> None:
                payload = reply.raw if reply.raw is not None else json.dumps(reply.body).encode()
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                for k, v in reply.headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, args=(POLL_S,), daemon=True)

    def start(self) -> FakeAnthropic:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def then(self, *handlers: Handler) -> FakeAnthropic:
        self.script.extend(handlers)
        return self

    def _model(self, path: str, headers: dict) -> Reply:
        ids = {"request-id": "req_fake_models"}
        key = headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ")
        if key in self.refused_keys:
            return Reply(401, {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}, ids)
        prefix = "/v1/models/"
        name = path.split("?")[0].removeprefix(prefix) if path.startswith(prefix) else None
        if name not in self.models and name not in self.models.values():
            return Reply(404, {"type": "error", "error": {"type": "not_found_error", "message": f"model: {name}"}}, ids)
        model_id = self.models.get(name, name)
        return Reply(200, {"type": "model", "id": model_id, "display_name": model_id, "created_at": "2025-10-01T00:00:00Z"}, ids)

    def _handle(self, path: str, headers: dict, body: dict) -> Reply:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            if path.rstrip("/") != "/v1/messages":
                return Reply(404, {"type": "error", "error": {"type": "not_found_error", "message": f"no route {path}"}})
            try:
                validate(body)
            except BadRequest as e:
                self.rejections.append(str(e))
                return Reply(
                    400,
                    {"type": "error", "error": {"type": "invalid_request_error", "message": str(e)}},
                    {"request-id": "req_fake_bad"},
                )
            if not self.script and self.default is None:
                return Reply(500, {"type": "error", "error": {"type": "api_error", "message": "the fake has no reply scripted"}})
            handler = self.script.pop(0) if self.script else self.default
        return handler(body)


def auto_agent(delay_s: float = 0.0, sentences: int = 1) -> Handler:
    """A stateless model for load: search with the question, then answer citing the first passage (in this many
    sentences, each citing its first line: more than one makes a streamed answer grow in Slack)."""

    def handler(req: dict) -> Reply:
        last = req["messages"][-1]
        if isinstance(last["content"], str):
            reply = search(last["content"][:200])(req)
        else:
            results = search_results(req)
            if results:
                first = results[0]
                line = first["content"][0]["text"]
                said = "".join(ch for ch in line if not ch.isdigit())[:120]
                cites = [Cite("According to the docs: " + said, first["source"], line[:40])]
                cites += [Cite(" Again: " + said, first["source"], line[:40]) for _ in range(sentences - 1)]
                reply = answer(*cites)(req)
            else:
                reply = answer("The docs don't cover this.")(req)
        reply.delay_s = delay_s
        return reply

    return handler
