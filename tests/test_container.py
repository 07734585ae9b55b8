"""The Dockerfile and compose.yaml agree with the CLI and with the manifest. No container engine runs on this
machine (`docker` is only the client), so what can be checked without running one is checked here."""

import json
import re
import shlex
import tomllib
from pathlib import Path

import click
import pytest
import yaml

from bot.cli import main

REPO = Path(__file__).resolve().parent.parent
DOCKERFILE = (REPO / "Dockerfile").read_text()
COMPOSE = yaml.safe_load((REPO / "compose.yaml").read_text())
MANIFEST = json.loads((REPO / "bot" / "slack" / "manifest.json").read_text())
SCRIPT = next(iter(tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]))


def instructions(name: str) -> list[str]:
    text = DOCKERFILE.replace("\\\n", " ")
    return [m.group(1).strip() for m in re.finditer(rf"^{name}\s+(.+)$", text, re.M)]


def parses(argv: list[str]) -> click.Context:
    """The arguments as the installed script would take them: a bad command or option fails here."""
    assert argv[0] == SCRIPT, f"{argv[0]} is not the installed command {SCRIPT}"
    group = main.make_context(SCRIPT, list(argv[1:]), resilient_parsing=True)
    command = main.get_command(group, argv[1])
    assert command is not None, f"no command {argv[1]!r}"
    return command.make_context(argv[1], list(argv[2:]), parent=group)


def dockerfile_env() -> dict[str, str]:
    return dict(pair.split("=", 1) for line in instructions("ENV") for pair in shlex.split(line) if "=" in pair)


def test_the_image_runs_as_an_unprivileged_user_it_creates():
    [user] = instructions("USER")
    assert user not in ("root", "0")
    assert re.search(rf"useradd\b[^&]*\b{user}\b", " ".join(instructions("RUN"))), "the user is made in the image"


def test_the_image_serves_in_socket_mode_as_the_manifest_sets_the_app_up():
    [cmd] = instructions("CMD")
    ctx = parses(json.loads(cmd))
    assert MANIFEST["settings"]["socket_mode_enabled"] is True and ctx.params["http"] is False


def test_the_healthcheck_asks_the_port_the_bot_serves_health_on():
    [check] = instructions("HEALTHCHECK")
    port = re.search(r"http://127\.0\.0\.1:(\d+)/healthz", check).group(1)
    assert dockerfile_env()["HEALTH_PORT"] == port and port in instructions("EXPOSE")
    assert parses([SCRIPT, "serve", "--http"]).params["port"] == int(port), "HTTP mode serves /healthz there too"


@pytest.mark.parametrize("name", sorted(COMPOSE["services"]))
def test_every_compose_command_is_one_the_cli_takes(name):
    service = COMPOSE["services"][name]
    if "build" in service:
        parses(service["command"])


def test_compose_runs_socket_mode_by_default_and_http_only_in_its_profile():
    services = COMPOSE["services"]
    default = {n for n, s in services.items() if not s.get("profiles")}
    assert {"db", "bot", "review"} <= default and "bot-http" not in default
    assert not parses(services["bot"]["command"]).params["http"]
    assert services["bot"]["environment"]["HEALTH_PORT"] == "3000" and "3000:3000" in services["bot"]["ports"]
    assert services["bot-http"]["profiles"] == ["http"] and parses(services["bot-http"]["command"]).params["http"]


def test_compose_says_what_http_mode_needs():
    text = (REPO / "compose.yaml").read_text()
    http = text[text.index("bot-http:") : text.index("review:")]
    assert "SLACK_SIGNING_SECRET" in http and "public HTTPS URL" in http


def test_the_review_page_is_published_on_the_hosts_loopback_only():
    review = COMPOSE["services"]["review"]
    ctx = parses(review["command"])
    assert ctx.info_name == "review" and ctx.params["host"] == "0.0.0.0", "inside its container, reachable by the port map"
    assert all(p.startswith("127.0.0.1:") for p in review["ports"])


def test_the_sample_dashboard_asks_only_for_series_and_labels_the_bot_exports():
    from bot.metrics import REGISTRY

    # each series the registry holds, with the labels it was declared with (a labelled one may have no samples yet)
    exported = {name: set(c._labelnames) for c, names in REGISTRY._collector_to_names.items() for name in names}
    dashboard = json.loads((REPO / "deploy" / "grafana-dashboard.json").read_text())
    queries = [t["expr"] for panel in dashboard["panels"] for t in panel["targets"]]
    assert len(queries) >= 10
    for expr in queries:
        for name in re.findall(r"supportbot_[a-z_]+", expr):
            base = re.sub(r"_(total|bucket|sum|count)$", "", name)
            assert name in exported or base in exported, f"{name} is not exported"
        for label in re.findall(r"by \(([a-z_, ]+)\)", expr):
            assert label == "le" or any(label in labels for n, labels in exported.items() if n in expr), (label, expr)


def test_compose_mounts_the_teams_docs_read_only_and_the_sample_docs_by_default():
    for name in ("bot", "bot-http"):
        [mount] = COMPOSE["services"][name]["volumes"]
        source, target, mode = mount.rsplit(":", 2)
        assert (target, mode) == ("/docs", "ro")
        default = re.fullmatch(r"\$\{DOCS_HOST_DIR:-(.+)\}", source).group(1)
        assert (REPO / default).resolve() == (REPO / "bot" / "sample_docs").resolve()
