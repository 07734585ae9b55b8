"""Docs kept in a git repository: a shallow checkout that each sync brings to the branch's head.

The git command line does the work (clone, fetch, reset), so credentials, SSH keys and proxies are
configured the way git always is. A fetch that fails leaves the last checkout exactly as it was.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from kb.errors import SupportbotError

GIT_TIMEOUT_S = 300


class DocsFetchFailed(SupportbotError, RuntimeError):
    pass


def redact(url: str) -> str:
    """The URL without the password or token a https URL may carry."""
    return re.sub(r"(://[^/@:]+):[^/@]*@", r"\1:***@", re.sub(r"://[^/@:]+@", "://***@", url)) if "@" in url else url


def _git(*args: str, cwd: Path | None = None, url: str = "") -> str:
    env = os.environ | {"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true"}  # never wait for a password
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=GIT_TIMEOUT_S, check=False
        )
    except FileNotFoundError:
        raise DocsFetchFailed("DOCS_GIT_URL is set but git is not installed") from None
    except subprocess.TimeoutExpired:
        raise DocsFetchFailed(f"git {args[0]} took longer than {GIT_TIMEOUT_S} s") from None
    if done.returncode != 0:
        lines = [line for line in done.stderr.strip().splitlines() if line.strip()] or [f"exit status {done.returncode}"]
        message = lines[-1].removeprefix("fatal: ")
        raise DocsFetchFailed(f"git {args[0]} failed: {message.replace(url, redact(url)) if url else message}")
    return done.stdout.strip()


def fetch_docs(url: str, branch: str, checkout: Path) -> str:
    """Bring `checkout` to the head of `branch` (cloned the first time, force-pushes included); its commit."""
    checkout = checkout.resolve()
    if not (checkout / ".git").is_dir():
        if checkout.exists() and any(checkout.iterdir()):
            raise DocsFetchFailed(f"{checkout} (DOCS_GIT_CHECKOUT) exists and is not a git checkout; empty it or choose another")
        checkout.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".clone-", dir=checkout.parent))
        try:
            _git("clone", "--quiet", "--depth", "1", "--single-branch", "--branch", branch, "--", url, str(staging), url=url)
            if checkout.exists():
                checkout.rmdir()
            staging.rename(checkout)  # whole or not at all
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    else:
        _git("remote", "set-url", "origin", url, cwd=checkout, url=url)
        _git("fetch", "--quiet", "--depth", "1", "--force", "origin", f"+refs/heads/{branch}", cwd=checkout, url=url)
        _git("reset", "--quiet", "--hard", "FETCH_HEAD", cwd=checkout)
        _git("clean", "--quiet", "-d", "--force", "-x", cwd=checkout)
    return _git("rev-parse", "HEAD", cwd=checkout)
