"""Docs kept in a git repository: a shallow checkout that each sync brings to the branch's head.

The git command line does the work (clone, fetch, reset), so credentials, SSH keys and proxies are
configured the way git always is. A fetch that fails leaves the last checkout exactly as it was.
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import subprocess
import tempfile
import urllib.parse
from pathlib import Path

from kb.errors import SupportbotError

GIT_TIMEOUT_S = 300
STAGING_PREFIX = ".clone-"  # then the cloning process's id: whoever stops that process can remove its folders


def remove_staging(checkout: Path, pid: int) -> int:
    """Remove the half-done clones a stopped process left beside the checkout; how many."""
    left = list(checkout.resolve().parent.glob(f"{STAGING_PREFIX}{pid}-*"))
    for folder in left:
        shutil.rmtree(folder, ignore_errors=True)
    return len(left)


class DocsFetchFailed(SupportbotError, RuntimeError):
    pass


def redact(url: str) -> str:
    """The URL without the password or token a https URL may carry."""
    return re.sub(r"(://[^/@:]+):[^/@]*@", r"\1:***@", re.sub(r"://[^/@:]+@", "://***@", url)) if "@" in url else url


def split_credentials(url: str) -> tuple[str, dict[str, str]]:
    """An https URL's user and token moved out of it, into git's environment as an Authorization header
    (http.extraHeader through GIT_CONFIG_*): the token is then in neither git's argv (`ps` shows that) nor the
    checkout's .git/config. Other URLs come back as they are."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or (parts.password is None and parts.username is None):
        return url, {}
    user, token = urllib.parse.unquote(parts.username or ""), urllib.parse.unquote(parts.password or "")
    if not token:  # a token given as the user name alone (https://TOKEN@host/...)
        user, token = "x-access-token", user
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    clean = urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    basic = base64.b64encode(f"{user}:{token}".encode()).decode()
    return clean, {
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "http.extraHeader",
        "GIT_CONFIG_VALUE_0": f"Authorization: Basic {basic}",
    }


def _git(
    *args: str, cwd: Path | None = None, url: str = "", secrets: dict[str, str] | None = None, stdin: str | None = None
) -> str:
    env = os.environ | {"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true"} | (secrets or {})  # never wait for a password
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=GIT_TIMEOUT_S, check=False, input=stdin
        )
    except FileNotFoundError:
        raise DocsFetchFailed("DOCS_GIT_URL is set but git is not installed") from None
    except subprocess.TimeoutExpired:
        raise DocsFetchFailed(f"git {args[0]} took longer than {GIT_TIMEOUT_S} s") from None
    if done.returncode != 0:
        message = git_failure(done.stderr, done.returncode)
        raise DocsFetchFailed(f"git {args[0]} failed: {message.replace(url, redact(url)) if url else message}")
    return done.stdout.strip()


# What git says, spread over several lines in many wordings, as the reason an operator can act on.
GIT_REASONS = (  # the first that matches wins: git adds "Could not read from remote repository" to most of them
    (
        re.compile(r"repository .*(not found|does not exist)|does not appear to be a git repository|returned error: 404", re.I),
        "no repository at that address (or no access to it): check DOCS_GIT_URL",
    ),
    (
        re.compile(r"remote branch .* not found|couldn't find remote ref", re.I),
        "the branch is not in the repository: check DOCS_GIT_BRANCH",
    ),
    (
        re.compile(
            r"could not resolve host|couldn't connect|connection (refused|timed out)|network is unreachable|operation timed out",
            re.I,
        ),
        "cannot reach the git server: check DOCS_GIT_URL and the network",
    ),
    (
        re.compile(
            r"could not read from remote|permission denied|authentication failed|could not read (username|password)"
            r"|terminal prompts disabled|returned error: 40[13]|access denied",
            re.I,
        ),
        "could not read from the remote: check DOCS_GIT_URL and its credentials",
    ),
)


def git_failure(stderr: str, returncode: int) -> str:
    """The reason, then git's own first error line for whoever digs further."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    said = next((line for line in lines if line.startswith(("fatal:", "error:"))), lines[-1] if lines else "")
    said = said.removeprefix("fatal: ").removeprefix("error: ") or f"exit status {returncode}"
    reason = next((why for pattern, why in GIT_REASONS if pattern.search(stderr)), None)
    return f"{reason} (git: {said})" if reason else said


def fetch_docs(url: str, branch: str, checkout: Path, max_file_bytes: int | None = None) -> tuple[str, list[str]]:
    """Bring `checkout` to the head of `branch` (cloned the first time, force-pushes included): its commit, and the
    files left out of it for being over max_file_bytes. Those are never downloaded where the server can filter
    (a partial clone, --filter=blob:limit) and never written to disk: the checkout is sparse without them."""
    checkout = checkout.resolve()
    url, secrets = split_credentials(url)
    bound = [f"--filter=blob:limit={max_file_bytes}"] if max_file_bytes else []
    if not (checkout / ".git").is_dir():
        if checkout.exists() and any(checkout.iterdir()):
            raise DocsFetchFailed(f"{checkout} (DOCS_GIT_CHECKOUT) exists and is not a git checkout; empty it or choose another")
        checkout.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f"{STAGING_PREFIX}{os.getpid()}-", dir=checkout.parent))
        try:
            clone = ["clone", "--quiet", "--depth", "1", "--single-branch", "--branch", branch, "--no-checkout", *bound]
            _git(*clone, "--", url, str(staging), url=url, secrets=secrets)
            left_out = _leave_out_large(staging, "HEAD", max_file_bytes, secrets)
            _git("checkout", "--quiet", branch, cwd=staging, url=url, secrets=secrets)
            if checkout.exists():
                checkout.rmdir()
            staging.rename(checkout)  # whole or not at all
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    else:
        _git("remote", "set-url", "origin", url, cwd=checkout, url=url)  # also drops a token an older version stored
        fetch = ["fetch", "--quiet", "--depth", "1", "--force", *bound, "origin", f"+refs/heads/{branch}"]
        _git(*fetch, cwd=checkout, url=url, secrets=secrets)
        left_out = _leave_out_large(checkout, "FETCH_HEAD", max_file_bytes, secrets)
        _git("reset", "--quiet", "--hard", "FETCH_HEAD", cwd=checkout, url=url, secrets=secrets)
        _git("clean", "--quiet", "-d", "--force", "-x", cwd=checkout)
    return _git("rev-parse", "HEAD", cwd=checkout), left_out


_GITIGNORE_SPECIAL = re.compile(r"([\[\]*?!#\\])")  # escaped in a sparse-checkout pattern, so a path is itself


def _leave_out_large(repo: Path, rev: str, max_file_bytes: int | None, secrets: dict[str, str]) -> list[str]:
    """Make the checkout sparse without the files the filtered fetch left out (the blobs over the cap); their paths.
    A server that cannot filter sends everything, and the sync's own size check skips the large files."""
    if not max_file_bytes:
        return []
    objects = _git("rev-list", "--objects", "--missing=print", rev, cwd=repo)
    missing = {line[1:] for line in objects.splitlines() if line.startswith("?")}
    entries = [e for e in _git("ls-tree", "-r", "-z", rev, cwd=repo).split("\0") if e]
    large = sorted(path for meta, path in (e.split("\t", 1) for e in entries) if meta.split()[2] in missing)
    patterns = ["/*", *("!/" + _GITIGNORE_SPECIAL.sub(r"\\\1", path) for path in large)]
    _git("sparse-checkout", "set", "--no-cone", "--stdin", cwd=repo, secrets=secrets, stdin="\n".join(patterns) + "\n")
    return large
