"""A git server over HTTP that a test can hold: git's own http-backend behind a gate, so a docs repository is
fetched exactly as from a forge, and a test decides when the fetch may go on (a sync caught halfway, every time)."""

from __future__ import annotations

import os
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HOLD_LIMIT_S = 120  # a test that forgets to release fails on its own timeout, not by hanging here


class GitHttpServer:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.gate = threading.Event()
        self.gate.set()
        self.waiting = threading.Event()  # set while a request is held at the gate
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, repo: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/{repo}"

    def hold(self) -> None:
        """Requests wait at the gate until release()."""
        self.gate.clear()

    def release(self) -> None:
        self.gate.set()

    def close(self) -> None:
        self.release()
        self.server.shutdown()
        self.server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self._backend()

            def do_POST(self) -> None:
                self._backend()

            def _backend(self) -> None:
                if not server.gate.is_set():
                    server.waiting.set()
                    server.gate.wait(HOLD_LIMIT_S)
                path, _, query = self.path.partition("?")
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                env = os.environ | {  # the CGI variables http-backend reads
                    "GIT_PROJECT_ROOT": str(server.root),
                    "GIT_HTTP_EXPORT_ALL": "1",
                    "REQUEST_METHOD": self.command,
                    "PATH_INFO": path,
                    "QUERY_STRING": query,
                    "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                    "CONTENT_LENGTH": str(len(body)),
                    "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
                    "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
                    "REMOTE_ADDR": "127.0.0.1",
                }
                out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True, check=False).stdout
                head, _, payload = out.partition(b"\r\n\r\n")
                headers = [line.split(":", 1) for line in head.decode("latin-1").splitlines() if ":" in line]
                status = next((int(v.split()[0]) for k, v in headers if k.lower() == "status"), 200)
                self.send_response(status)
                for k, v in headers:
                    if k.lower() != "status":
                        self.send_header(k, v.strip())
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: object) -> None:
                pass

        return Handler
