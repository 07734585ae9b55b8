"""A private word to whoever clicked a button under an answer: beside a private (/ask) answer through its
response_url, as the bot may not be in that channel and the answer has no thread; elsewhere in the answer's thread."""

from __future__ import annotations


def tell_clicker(body: dict, client, respond, text: str) -> None:
    user = (body.get("user") or {}).get("id")
    channel = (body.get("channel") or {}).get("id")
    message = body.get("message") or {}
    if (body.get("container") or {}).get("is_ephemeral"):
        respond(text=text, response_type="ephemeral", replace_original=False)
    elif channel and user:
        client.chat_postEphemeral(channel=channel, user=user, thread_ts=message.get("thread_ts") or message.get("ts"), text=text)
