"""A fake Socket Mode endpoint: the WebSocket that apps.connections.open points the bot at."""

from __future__ import annotations

import itertools
import json
import threading

from websockets.sync.server import serve


class FakeSocketMode:
    def __init__(self) -> None:
        self.connections = []
        self.acks: list[dict] = []
        self._ids = itertools.count(1)
        self.changed = threading.Condition()
        self.server = serve(self._handle, "127.0.0.1", 0)
        self.url = f"ws://127.0.0.1:{self.server.socket.getsockname()[1]}/link"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def _handle(self, ws) -> None:
        ws.send(
            json.dumps(
                {
                    "type": "hello",
                    "num_connections": 1,
                    "connection_info": {"app_id": "A1"},
                    "debug_info": {"host": "fake", "approximate_connection_time": 3600},
                }
            )
        )
        with self.changed:
            self.connections.append(ws)
            self.changed.notify_all()
        try:
            for raw in ws:
                with self.changed:
                    self.acks.append(json.loads(raw))
                    self.changed.notify_all()
        except Exception:
            pass

    def push(self, event_callback: dict, retry_attempt: int = 0) -> str:
        """Deliver an Events API envelope to the connected bot; returns its envelope id."""
        envelope_id = f"env-{next(self._ids)}"
        message = {
            "envelope_id": envelope_id,
            "type": "events_api",
            "accepts_response_payload": False,
            "retry_attempt": retry_attempt,
            "retry_reason": "timeout" if retry_attempt else "",
            "payload": event_callback,
        }
        self.connections[-1].send(json.dumps(message))
        return envelope_id

    def wait_connected(self, timeout: float = 30) -> None:
        with self.changed:
            if not self.changed.wait_for(lambda: self.connections, timeout):
                raise AssertionError("the bot never opened its Socket Mode connection")

    def wait_ack(self, envelope_id: str, timeout: float = 30) -> None:
        with self.changed:
            if not self.changed.wait_for(lambda: any(a.get("envelope_id") == envelope_id for a in self.acks), timeout):
                raise AssertionError(f"envelope {envelope_id} was never acknowledged")

    def stop(self) -> None:
        self.server.shutdown()
