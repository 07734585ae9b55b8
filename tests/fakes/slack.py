"""A fake Slack: a stateful Web API over real HTTP, and a sender of signed events.

The bot under test is a real process whose WebClient points here (SLACK_API_URL). Messages are
stored by (channel, ts) with their thread, so conversations.replies answers from the store;
blocks are validated with slack_sdk's own models and Slack's limits; unknown methods fail
loudly; faults (429 with Retry-After, error codes, slow replies) are queued per method.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from slack_sdk.models.blocks import Block
from slack_sdk.models.views import View

BOT_USER = "UBOT"
BOT_ID = "BBOT"
TEAM = "T0001"
POLL_S = 0.05  # how often the server looks for a stop: a test's teardown waits at most this long for it


@dataclass
class Fault:
    status: int = 200
    error: str | None = None
    retry_after: int | None = None
    delay_s: float = 0.0


@dataclass
class Call:
    method: str
    params: dict
    at: float = field(default_factory=time.monotonic)


class FakeSlack:
    def __init__(self, signing_secret: str = "test-signing-secret") -> None:
        self.signing_secret = signing_secret
        self.calls: list[Call] = []
        self.messages: dict[tuple[str, str], dict] = {}
        self.ephemerals: list[dict] = []
        self.people: dict[str, str] = {}  # user ID -> display name (users.info)
        self.channel_names: dict[str, str] = {}  # channel ID -> name (conversations.info); else the ID in lower case
        self.views: list[dict] = []  # modals opened with views.open
        self.homes: dict[str, dict] = {}  # each user's published App Home view
        self.bot_name = "supportbot"  # the app's name in the workspace, as auth.test gives it
        self.responses: dict[str, list[dict]] = {}  # what the bot sent to each response_url, in order
        self.shown: dict[str, list[dict]] = {}  # what the asker sees of a command's private messages, in order
        self.prompts: dict[str, dict] = {}  # suggested prompts set per DM channel
        self.titles: dict[tuple[str, str], str] = {}  # assistant thread titles by (channel, thread_ts)
        self.reactions: dict[tuple[str, str], set[str]] = {}
        self.private_channels: set[str] = set()  # channels (C...) that are private; G... always are
        self.faults: dict[str, list[Fault]] = {}
        self.socket_url: str | None = None
        self._ts = itertools.count(1)
        self._events = itertools.count(1)
        self._lock = threading.RLock()
        self.changed = threading.Condition(self._lock)
        fake = self

        class _Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                self._serve()

            def do_POST(self):
                self._serve()

            def _serve(self):
                url = urllib.parse.urlsplit(self.path)
                params = {k: v[0] for k, v in urllib.parse.parse_qs(url.query).items()}
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                if raw:
                    if "json" in (self.headers.get("content-type") or ""):
                        params.update(json.loads(raw))
                    else:
                        params.update({k: v[0] for k, v in urllib.parse.parse_qs(raw.decode()).items()})
                if url.path.startswith("/response/"):  # a response_url: Slack answers webhooks with "ok" or an error
                    status, body, headers = fake._respond(url.path.rsplit("/", 1)[-1], params)
                else:
                    method = url.path.rsplit("/", 1)[-1]
                    status, body, headers = fake._call(method, params)
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.api_url = f"http://127.0.0.1:{self.server.server_address[1]}/api/"
        threading.Thread(target=self.server.serve_forever, args=(POLL_S,), daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def forget(self) -> None:
        """Everything recorded and every setting back to new, for the next test of a shared bot; the counters go on,
        so each test's messages have timestamps (and threads) no earlier test had."""
        with self._lock:
            for recorded in (self.calls, self.messages, self.ephemerals, self.people, self.channel_names, self.views,
                             self.homes, self.responses, self.shown, self.prompts, self.titles, self.reactions,
                             self.private_channels, self.faults):  # fmt: skip
                recorded.clear()
            self.bot_name = "supportbot"

    # -- the Web API --------------------------------------------------------------------------

    def fail(self, method: str, *faults: Fault) -> None:
        with self._lock:
            self.faults.setdefault(method, []).extend(faults)

    def _call(self, method: str, params: dict):
        with self._lock:
            self.calls.append(Call(method, params))
            fault = self.faults.get(method, []).pop(0) if self.faults.get(method) else None
        if fault:
            if fault.delay_s:
                time.sleep(fault.delay_s)
            if fault.status == 429:
                return 429, {"ok": False, "error": "ratelimited"}, {"Retry-After": str(fault.retry_after or 1)}
            if fault.status >= 500:
                return fault.status, {"ok": False, "error": "internal_error"}, {}
            if fault.error:
                return 200, {"ok": False, "error": fault.error}, {}
        handler = getattr(self, "api_" + method.replace(".", "_"), None)
        if handler is None:
            return 200, {"ok": False, "error": "unknown_method", "method": method}, {}
        with self.changed:
            body = handler(params)
            self.changed.notify_all()
        return 200, body, {}

    def _respond(self, response_id: str, p: dict):
        """A message sent to a response_url: checked like chat.postMessage, kept per response_url."""
        with self.changed:
            self.calls.append(Call("response_url", p))
            if response_id not in self.responses:
                return 404, {"ok": False, "error": "no_response_url"}, {}
            if not p.get("delete_original"):
                if not p.get("text") and not p.get("blocks"):
                    return 400, {"ok": False, "error": "no_text"}, {}
                problem = validate_blocks(p.get("blocks") or [])
                if problem:
                    return 400, {"ok": False, "error": "invalid_blocks", "errors": [problem]}, {}
            self.responses[response_id].append(p)
            # Slack shows the acknowledgement first: a response racing it waits for it, as it does there
            self.changed.wait_for(lambda: self.shown.get(response_id) is not None, timeout=10)
            shown = self.shown.setdefault(response_id, [])
            if p.get("delete_original") and shown:
                shown.pop()
            elif p.get("replace_original") in (True, "true") and shown:  # the last private message is the original
                shown[-1] = p
            elif not p.get("delete_original"):
                shown.append(p)
            self.changed.notify_all()
        return 200, {"ok": True}, {}

    def api_auth_test(self, p):
        return {
            "ok": True,
            "url": "https://fake.slack.test/",
            "team": "Fake",
            "user": self.bot_name,
            "team_id": TEAM,
            "user_id": BOT_USER,
            "bot_id": BOT_ID,
        }

    def _next_ts(self) -> str:
        return f"{1_800_000_000 + next(self._ts)}.000100"

    def api_chat_postMessage(self, p):
        if not p.get("channel"):
            return {"ok": False, "error": "channel_not_found"}
        blocks = json.loads(p["blocks"]) if isinstance(p.get("blocks"), str) else p.get("blocks")
        if not p.get("text") and not blocks:
            return {"ok": False, "error": "no_text"}
        problem = validate_blocks(blocks or [])
        if problem:
            return {"ok": False, "error": "invalid_blocks", "errors": [problem]}
        ts = self._next_ts()
        msg = {
            "type": "message",
            "channel": p["channel"],
            "ts": ts,
            "user": BOT_USER,
            "bot_id": BOT_ID,
            "text": p.get("text", ""),
            "blocks": blocks or [],
            "thread_ts": p.get("thread_ts"),
            "unfurl_links": p.get("unfurl_links"),
        }
        self.messages[(p["channel"], ts)] = msg
        return {"ok": True, "channel": p["channel"], "ts": ts, "message": msg}

    def api_chat_update(self, p):
        msg = self.messages.get((p.get("channel"), p.get("ts")))
        if msg is None:
            return {"ok": False, "error": "message_not_found"}
        blocks = json.loads(p["blocks"]) if isinstance(p.get("blocks"), str) else p.get("blocks")
        problem = validate_blocks(blocks or [])
        if problem:
            return {"ok": False, "error": "invalid_blocks", "errors": [problem]}
        msg["text"] = p.get("text", msg["text"])
        if blocks is not None:
            msg["blocks"] = blocks
        msg["edited"] = True
        return {"ok": True, "channel": p["channel"], "ts": p["ts"]}

    # Streaming (chat.startStream, appendStream, stopStream): one message that grows, then is finished with blocks.

    @staticmethod
    def _chunk_text(p: dict) -> tuple[str | None, str | None]:
        """The markdown text a streaming call carries (markdown_text, or markdown_text chunks), or an error."""
        chunks = json.loads(p["chunks"]) if isinstance(p.get("chunks"), str) else p.get("chunks") or []
        if any(c.get("type") != "markdown_text" or not isinstance(c.get("text"), str) for c in chunks):
            return None, "invalid_chunks"
        text = (p.get("markdown_text") or "") + "".join(c["text"] for c in chunks)
        return (text, None) if len(text) <= 12_000 else (None, "msg_too_long")

    def api_chat_startStream(self, p):
        channel = p.get("channel")
        if not channel or not p.get("thread_ts"):
            return {"ok": False, "error": "invalid_arguments"}
        if not channel.startswith("D") and not (p.get("recipient_team_id") and p.get("recipient_user_id")):
            return {"ok": False, "error": "missing_recipient_user_id"}  # required outside DMs
        text, error = self._chunk_text(p)
        if error:
            return {"ok": False, "error": error}
        ts = self._next_ts()
        self.messages[(channel, ts)] = {
            "type": "message",
            "channel": channel,
            "ts": ts,
            "user": BOT_USER,
            "bot_id": BOT_ID,
            "text": text,
            "blocks": [],
            "thread_ts": p["thread_ts"],
            "streaming": True,
            "recipient_user_id": p.get("recipient_user_id"),
        }
        return {"ok": True, "channel": channel, "ts": ts}

    def _streaming(self, p: dict) -> tuple[dict | None, dict | None]:
        msg = self.messages.get((p.get("channel"), p.get("ts")))
        if msg is None:
            return None, {"ok": False, "error": "message_not_found"}
        if not msg.get("streaming"):
            return None, {"ok": False, "error": "message_not_in_streaming_state"}
        return msg, None

    def api_chat_appendStream(self, p):
        msg, error = self._streaming(p)
        if error:
            return error
        text, problem = self._chunk_text(p)
        if problem:
            return {"ok": False, "error": problem}
        msg["text"] += text
        return {"ok": True, "channel": msg["channel"], "ts": msg["ts"]}

    def api_chat_stopStream(self, p):
        msg, error = self._streaming(p)
        if error:
            return error
        text, problem = self._chunk_text(p)
        blocks = json.loads(p["blocks"]) if isinstance(p.get("blocks"), str) else p.get("blocks") or []
        problem = problem or validate_blocks(blocks)
        if problem:
            return {"ok": False, "error": "invalid_blocks", "errors": [problem]}
        msg["text"] += text
        msg["blocks"] = blocks
        msg["streaming"] = False
        return {"ok": True, "channel": msg["channel"], "ts": msg["ts"], "message": msg}

    def api_chat_getPermalink(self, p):
        if (p.get("channel"), p.get("message_ts")) not in self.messages:
            return {"ok": False, "error": "message_not_found"}
        ts = p["message_ts"].replace(".", "")
        link = f"https://fake.slack.test/archives/{p['channel']}/p{ts}"
        root = self.messages[(p["channel"], p["message_ts"])].get("thread_ts")
        if root and root != p["message_ts"]:  # a reply: Slack's link names its thread
            link += f"?thread_ts={root}&cid={p['channel']}"
        return {"ok": True, "channel": p["channel"], "permalink": link}

    @staticmethod
    def _view(p: dict, kind: str, key: str) -> tuple[dict | None, dict | None]:
        """The view of a views.* call and None, or None and the error Slack would answer (checked by slack_sdk's
        own view model)."""
        view = json.loads(p["view"]) if isinstance(p.get("view"), str) else p.get("view")
        if not p.get(key) or not isinstance(view, dict) or view.get("type") != kind:
            return None, {"ok": False, "error": "invalid_arguments"}
        try:
            View(**view).validate_json()
        except Exception as e:
            return None, {"ok": False, "error": "invalid_arguments", "response_metadata": {"messages": [str(e)]}}
        return view, None

    def api_views_open(self, p):
        view, error = self._view(p, "modal", "trigger_id")
        if error:
            return error
        opened = {**view, "id": f"V{len(self.views) + 1}"}
        self.views.append(opened)
        return {"ok": True, "view": opened}

    def api_views_publish(self, p):
        view, error = self._view(p, "home", "user_id")
        if error:
            return error
        self.homes[p["user_id"]] = view
        return {"ok": True, "view": {**view, "id": "VHOME"}}

    def api_chat_postEphemeral(self, p):
        self.ephemerals.append(p)
        return {"ok": True, "message_ts": self._next_ts()}

    def api_reactions_add(self, p):
        names = self.reactions.setdefault((p["channel"], p["timestamp"]), set())
        if p["name"] in names:
            return {"ok": False, "error": "already_reacted"}
        names.add(p["name"])
        return {"ok": True}

    def api_reactions_remove(self, p):
        names = self.reactions.setdefault((p["channel"], p["timestamp"]), set())
        if p["name"] not in names:
            return {"ok": False, "error": "no_reaction"}
        names.discard(p["name"])
        return {"ok": True}

    def api_conversations_replies(self, p):
        root = p.get("ts")
        thread = [
            m for (c, ts), m in self.messages.items() if c == p.get("channel") and (ts == root or m.get("thread_ts") == root)
        ]
        return {"ok": True, "messages": sorted(thread, key=lambda m: float(m["ts"])), "has_more": False}

    def api_conversations_info(self, p):
        """As Slack answers a bot with channels:read but not groups:read: a private channel is refused."""
        channel = p.get("channel") or ""
        if channel.startswith("D"):
            return {"ok": False, "error": "missing_scope", "needed": "im:read"}
        if channel.startswith("G") or channel in self.private_channels:
            return {"ok": False, "error": "missing_scope", "needed": "groups:read"}
        if not channel.startswith("C"):
            return {"ok": False, "error": "channel_not_found"}
        flags = {"is_channel": True, "is_private": False, "is_im": False, "is_mpim": False, "is_ext_shared": False}
        return {"ok": True, "channel": {"id": channel, "name": self.channel_names.get(channel, channel.lower()), **flags}}

    def api_users_info(self, p):
        """As Slack answers with users:read: a profile's display name, or an empty one where a person set none."""
        user = p.get("user") or ""
        name = self.people.get(user, "")
        profile = {"display_name": name, "real_name": name}
        return {"ok": True, "user": {"id": user, "name": name.lower() or "someone", "is_bot": False, "profile": profile}}

    def api_assistant_threads_setStatus(self, p):
        if not p.get("channel_id") or not p.get("thread_ts") or "status" not in p:
            return {"ok": False, "error": "invalid_arguments"}
        if len(p.get("loading_messages") or []) > 10:
            return {"ok": False, "error": "invalid_arguments"}
        return {"ok": True}

    def api_assistant_threads_setSuggestedPrompts(self, p):
        prompts = p.get("prompts")
        if not p.get("channel_id") or not isinstance(prompts, list) or not 1 <= len(prompts) <= 4:
            return {"ok": False, "error": "invalid_arguments"}
        if any(not isinstance(x, dict) or not x.get("title") or not x.get("message") for x in prompts):
            return {"ok": False, "error": "invalid_arguments"}
        self.prompts[p["channel_id"]] = {"title": p.get("title"), "prompts": prompts}
        return {"ok": True}

    def api_assistant_threads_setTitle(self, p):
        if not p.get("channel_id") or not p.get("thread_ts") or not p.get("title"):
            return {"ok": False, "error": "invalid_arguments"}
        self.titles[(p["channel_id"], p["thread_ts"])] = p["title"]
        return {"ok": True}

    def api_apps_connections_open(self, p):
        if not self.socket_url:
            return {"ok": False, "error": "not_allowed_token_type"}
        return {"ok": True, "url": self.socket_url}

    # -- reading what happened ---------------------------------------------------------------

    def called(self, method: str) -> list[Call]:
        with self._lock:
            return [c for c in self.calls if c.method == method]

    def replies(self, channel: str, thread_ts: str) -> list[dict]:
        with self._lock:
            return sorted(
                (
                    m
                    for (c, _), m in self.messages.items()
                    if c == channel and m.get("thread_ts") == thread_ts and m.get("bot_id")
                ),
                key=lambda m: float(m["ts"]),
            )

    def wait_for(self, predicate, timeout: float = 30.0):
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                value = predicate()
                if value:
                    return value
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("timed out waiting for the bot")
                self.changed.wait(min(left, 0.2))

    # -- people talking to the bot -----------------------------------------------------------

    def user_says(self, channel: str, text: str, *, user: str = "U1", thread_ts: str | None = None, **extra) -> dict:
        """Store a human message (so thread reads see it) and return it."""
        with self._lock:
            ts = self._next_ts()
            msg = {"type": "message", "channel": channel, "user": user, "text": text, "ts": ts, **extra}
            if thread_ts:
                msg["thread_ts"] = thread_ts
            self.messages[(channel, ts)] = msg
            return msg

    def events_for(self, msg: dict) -> list[dict]:
        """The event_callback envelopes Slack sends for a message: app_mention and/or message."""
        dm = msg["channel"].startswith("D")
        base = {k: v for k, v in msg.items() if k != "type"}
        events = []
        if not dm and f"<@{BOT_USER}>" in msg.get("text", ""):
            events.append({"type": "app_mention", **base})
        private = msg["channel"].startswith("G") or msg["channel"] in self.private_channels
        events.append({"type": "message", "channel_type": "im" if dm else "group" if private else "channel", **base})
        return [self.envelope(e) for e in events]

    def envelope(self, event: dict) -> dict:
        return {
            "token": "legacy",
            "team_id": TEAM,
            "api_app_id": "A1",
            "type": "event_callback",
            "event_id": f"Ev{next(self._events):06d}",
            "event_time": int(time.time()),
            "event": event,
        }

    def sign(self, body: bytes, timestamp: int | None = None) -> dict:
        ts = str(timestamp if timestamp is not None else int(time.time()))
        # Slack's v0 scheme over the raw bytes (SignatureVerifier.generate_signature needs UTF-8 text)
        digest = hmac.new(self.signing_secret.encode(), b"v0:" + ts.encode() + b":" + body, hashlib.sha256).hexdigest()
        return {"X-Slack-Request-Timestamp": ts, "X-Slack-Signature": f"v0={digest}"}

    def post(self, url: str, body: bytes, content_type: str, headers: dict | None = None, signed: bool = True) -> int:
        all_headers = {"Content-Type": content_type, **(self.sign(body) if signed else {}), **(headers or {})}
        request = urllib.request.Request(url, data=body, headers=all_headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status
        except urllib.error.HTTPError as e:
            return e.code

    def deliver(self, url: str, envelope: dict, retry_num: int | None = None, signed: bool = True) -> int:
        headers = {"X-Slack-Retry-Num": str(retry_num), "X-Slack-Retry-Reason": "http_timeout"} if retry_num else {}
        return self.post(url, json.dumps(envelope).encode(), "application/json", headers, signed)

    def command(self, url: str, text: str, channel: str = "C_GENERAL", user: str = "U1", team: str = TEAM):
        """A signed /ask slash command: (HTTP status, the acknowledgement's JSON, its response_url id)."""
        with self._lock:
            response_id = str(len(self.responses) + 1)
            self.responses[response_id] = []
            self.shown[response_id] = None  # until the acknowledgement is in
        form = {
            "token": "legacy",
            "team_id": team,
            "channel_id": channel,
            "user_id": user,
            "command": "/ask",
            "text": text,
            "api_app_id": "A1",
            "response_url": self.api_url.replace("/api/", f"/response/{response_id}"),
            "trigger_id": "1.2.5",
        }
        body = urllib.parse.urlencode(form).encode()
        headers = {"Content-Type": "application/x-www-form-urlencoded", **self.sign(body)}
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                raw = response.read()
                acked = json.loads(raw) if raw.strip() else {}
                with self.changed:
                    self.shown[response_id] = [acked] if acked.get("text") else []
                    self.changed.notify_all()
                return response.status, acked, response_id
        except urllib.error.HTTPError as e:
            with self.changed:
                self.shown[response_id] = []
                self.changed.notify_all()
            return e.code, {}, response_id

    def click(
        self,
        url: str,
        message: dict,
        action_id: str,
        user: str = "U1",
        team: str = TEAM,
        which: str = "",
        response_id: str | None = None,
    ) -> int:
        """A signed block_actions payload for a button in one of the bot's messages (or in a response_url message,
        with its response_id); `which` picks the positive or negative half of a feedback_buttons element."""
        element = next(
            e
            for b in message["blocks"]
            if b["type"] in ("actions", "context_actions")
            for e in b["elements"]
            if e["action_id"] == action_id
        )
        if element["type"] == "feedback_buttons":
            half = element[f"{which}_button"]
            button = {"type": "feedback_buttons", "action_id": action_id, "value": half["value"]}
        else:
            button = element
        payload = {
            "type": "block_actions",
            "team": {"id": team},
            "user": {"id": user},
            "api_app_id": "A1",
            "channel": {"id": message["channel"]},
            "container": {"type": "message", "message_ts": message["ts"], **({"is_ephemeral": True} if response_id else {})},
            **({} if response_id else {"message": message}),  # Slack sends no copy of an ephemeral message
            "trigger_id": "1.2.3",
            "response_url": self.api_url.replace("/api/", f"/response/{response_id}")
            if response_id
            else "https://hooks.invalid/x",
            "actions": [{"type": "button", **button, "block_id": "b", "action_ts": str(time.time())}],
        }
        body = urllib.parse.urlencode({"payload": json.dumps(payload)}).encode()
        return self.post(url, body, "application/x-www-form-urlencoded")

    def submit(self, url: str, view: dict, values: dict, user: str = "U1", team: str = TEAM) -> int:
        """A signed view_submission payload for a modal the bot opened; values: {block_id: {action_id: text}}."""
        state = {b: {a: {"type": "plain_text_input", "value": v} for a, v in acts.items()} for b, acts in values.items()}
        payload = {
            "type": "view_submission",
            "team": {"id": team},
            "user": {"id": user},
            "api_app_id": "A1",
            "trigger_id": "1.2.4",
            "view": {**view, "state": {"values": state}},
        }
        body = urllib.parse.urlencode({"payload": json.dumps(payload)}).encode()
        return self.post(url, body, "application/x-www-form-urlencoded")


def validate_blocks(blocks: list[dict]) -> str | None:
    """Slack's limits, checked with slack_sdk's own block models."""
    if len(blocks) > 50:
        return f"{len(blocks)} blocks (50 at most)"
    for n, block in enumerate(blocks):
        try:
            Block.parse(block).validate_json()
        except Exception as e:  # SlackObjectFormationError and friends
            return f"block {n}: {e}"
    return None
