# supportbot in a container: the Slack app in Socket Mode (as bot/slack/manifest.json sets it up), with /healthz,
# /readyz and /metrics on port 3000. tests/test_container.py checks this file against the CLI.
#   docker build -t supportbot .
#   docker run --env-file .env -p 3000:3000 -v "$PWD/docs:/docs:ro" supportbot            # Socket Mode
#   docker run --env-file .env -p 3000:3000 -v "$PWD/docs:/docs:ro" supportbot serve --http   # HTTP mode
# BASE: any Debian-like image with Python 3.11+ and venv (built offline here from a debootstrap'd bookworm).
ARG BASE=python:3.11-slim
FROM ${BASE}

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PATH=/opt/supportbot/bin:$PATH
WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY kb ./kb
COPY migrations ./migrations
RUN python3 -m venv /opt/supportbot && pip install . \
 && useradd --system --uid 10001 --home-dir /data --create-home supportbot

USER supportbot
WORKDIR /data
# The embedded defaults, pointed at volumes: override with PostgreSQL and your docs (see compose.yaml).
ENV DATABASE_URL=sqlite:////data/supportbot.db DOCS_DIR=/docs LOG_FORMAT=json HEALTH_PORT=3000
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD python -c "import urllib.request, sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:3000/healthz', timeout=4).status != 200)"
# SIGTERM (docker stop) finishes the answers in flight for SHUTDOWN_GRACE_SECONDS: give it at least that long.
STOPSIGNAL SIGTERM
CMD ["supportbot", "serve"]
