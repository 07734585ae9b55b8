"""A port is checked before anything starts: a port in use is one line, not a traceback after the sync has begun."""

from __future__ import annotations

import errno
import socket

from kb.errors import SupportbotError


class PortUnavailable(SupportbotError, OSError):
    pass


def check_port(host: str, port: int, option: str = "--port") -> None:
    """Bind and let go, as the server will (SO_REUSEADDR, like waitress): whatever refuses it is named."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        raise PortUnavailable(f"cannot listen on {host}: {e.strerror} (--host)") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(address)
        except OSError as e:
            raise PortUnavailable(unavailable(host, port, e, option)) from None


def unavailable(host: str, port: int, e: OSError, option: str = "--port") -> str:
    if e.errno == errno.EADDRINUSE:
        return f"port {port} on {host} is in use by another program: stop it, or choose another port with {option}"
    if e.errno == errno.EACCES:
        return f"port {port} on {host} needs privileges this user lacks: choose one above 1023 with {option}"
    if e.errno == errno.EADDRNOTAVAIL:
        return f"{host} is not an address of this machine (--host)"
    return f"cannot listen on {host}:{port}: {e.strerror or e}"
