"""The manifest asks for the scopes the code's Web API calls need, and no more."""

import json
import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MANIFEST = json.loads((REPO / "bot" / "slack" / "manifest.json").read_text())

# What each Web API method the bot calls needs (docs.slack.dev method pages; setStatus accepts chat:write since 2026-03).
NEEDS = {
    "auth_test": set(),
    "chat_postMessage": {"chat:write"},
    "chat_postEphemeral": {"chat:write"},
    "chat_update": {"chat:write"},
    "chat_stream": {"chat:write"},  # chat.startStream, appendStream, stopStream
    "chat_stopStream": {"chat:write"},  # a taken-over answer ends the stream a dead process left
    "chat_getPermalink": set(),
    "views_open": set(),  # opened from a click's trigger_id
    "views_publish": set(),  # the App Home tab
    "reactions_add": {"reactions:write"},
    "reactions_remove": {"reactions:write"},
    "assistant_threads_setStatus": {"chat:write"},
    "assistant_threads_setSuggestedPrompts": {"assistant:write"},
    "assistant_threads_setTitle": {"assistant:write"},
    "conversations_info": {"channels:read"},  # is a channel public? (a private one is refused: counted as private)
    "conversations_replies": {"channels:history", "groups:history", "im:history", "mpim:history"},  # threads anywhere
    "users_info": {"users:read"},  # a relayed hand-over message names its writer without pinging them
}
EVENTS = {
    "app_mention": {"app_mentions:read"},
    "message.im": {"im:history"},
    "message.channels": {"channels:history"},  # replies in threads the bot answered: a follow-up, or a hint to mention
    "message.groups": {"groups:history"},
    "app_home_opened": set(),
}
COMMANDS = {"commands"}  # a slash command (/ask)


def called_methods() -> set[str]:
    source = "\n".join(p.read_text() for p in (REPO / "bot").rglob("*.py"))
    return set(re.findall(r"client\.((?:auth|chat|conversations|reactions|assistant|views|users)_[A-Za-z_]+)", source))


def test_every_web_api_method_the_bot_calls_is_known_here():
    assert called_methods() <= NEEDS.keys(), "a new Web API call: add it and its scopes to NEEDS and the manifest"


def test_the_manifest_holds_exactly_the_scopes_the_calls_and_events_need():
    needed = set().union(*(NEEDS[m] for m in called_methods()), *EVENTS.values(), COMMANDS)
    assert set(MANIFEST["oauth_config"]["scopes"]["bot"]) == needed


def test_the_manifest_subscribes_to_exactly_the_events_the_bot_handles():
    assert set(MANIFEST["settings"]["event_subscriptions"]["bot_events"]) == set(EVENTS)


def test_the_commands_the_bot_handles_are_declared():
    source = (REPO / "bot" / "slack" / "listeners" / "ask.py").read_text()
    handled = set(re.findall(r'@app\.command\("(/[a-z-]+)"\)', source))
    assert handled == {c["command"] for c in MANIFEST["features"]["slash_commands"]} == {"/ask"}
