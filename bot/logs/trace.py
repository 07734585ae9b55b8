"""One question's trace as terminal text: what was asked, searched, found, answered and cited."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kb.hits import HitRecord


def ranks(hit: HitRecord) -> str:
    """Why a hit came up: its rank by BM25, by dense similarity and by the sentence encoder ("-" where that ranking
    missed it; nothing for a hit logged before hybrid search)."""
    found = {"bm25": hit.bm25_rank, "dense": hit.dense_rank, "meaning": hit.meaning_rank}
    if not any(found.values()):
        return ""
    return " ".join(f"{name} {rank or '-'}" for name, rank in found.items() if name != "meaning" or rank)


def handover_state(h: dict, who: Callable[[str | None], str | None] = lambda uid: uid) -> str:
    """A hand-over's state in words: open, answered (and how soon), resolved (by whom)."""
    said = h["state"]
    if h.get("first_reply_at") and h.get("created_at"):
        minutes = (h["first_reply_at"] - h["created_at"]).total_seconds() / 60
        said += f", first reply after {minutes:.0f} min" if minutes >= 1 else ", first reply within a minute"
    if h["state"] == "resolved":
        said += f", resolved by {who(h.get('resolved_by')) or '?'}" + (
            f" at {h['resolved_at']:%Y-%m-%d %H:%M}" if h.get("resolved_at") else ""
        )
    return said


def render_trace(t: dict) -> str:
    out = []
    where = " ".join(x for x in (t["source"], t.get("channel") or "", t.get("user_id") or "", t.get("thread_ts") or "") if x)
    out.append(f"#{t['id']}  {t['created_at']:%Y-%m-%d %H:%M:%S}  {where}")
    out.append(f"Question: {t['question']}")
    model = f" ({t['model']})" if t.get("model") else ""
    out.append(
        f"Status:   {t['status']}  by {t['answerer']}{model} in {t['latency_ms']:.0f} ms, index version {t.get('index_version')}"
    )
    if t.get("usage") and t["usage"].get("calls"):
        u = t["usage"]
        out.append(
            f"Usage:    {u['calls']} calls, {u['input_tokens']} input + {u['output_tokens']} output tokens"
            f" (cache: {u.get('cache_read_input_tokens', 0)} read, {u.get('cache_creation_input_tokens', 0)} written)"
        )
    if t.get("error"):
        out.append(f"Error:    {t['error']}")
    if t.get("escalated_at"):
        out.append(f"Escalated: a person was asked by {t.get('escalated_by') or '?'} at {t['escalated_at']:%Y-%m-%d %H:%M}")
        if t.get("handover"):
            out.append(f"Hand-over: {handover_state(t['handover'])}")
    for line in t.get("stale") or []:
        now_text = line["new"] if line.get("new") is not None else "(gone)"
        out.append(f"Stale:    {line['path']} line {line['line']} was {line['old']!r}, now {now_text!r}")
    out.append("")
    for n, s in enumerate(t["searches"], 1):
        scope = f" in {s['collection']}" if s.get("collection") else ""
        out.append(f"Search {n}: {s['query']!r}{scope}  ({len(s['hits'])} hits, {s['ms']:.1f} ms)")
        for h in s["hits"]:
            out.append(f"    {h.score:7.2f}  {ranks(h):<16}  {h.heading}  [{h.path}]")
        if not s["hits"]:
            out.append("    (nothing scored as evidence)")
    out.append("")
    out.append("Answer:")
    out.append(textwrap.indent(t["answer"], "    "))
    if t.get("sources"):
        out.append("Sources:")
        for src in t["sources"]:
            out.append(f"    [{src['n']}] {src['title']} - {src.get('url') or src['path']}")
    if t.get("cited"):
        out.append("Citations:")
        for c in t["cited"]:
            for number, text in c["lines"]:
                out.append(f"    [{c['n']}] line {number}: {text}")
    if t.get("closest"):
        out.append("Closest pages:")
        for src in t["closest"]:
            out.append(f"    {src['title']} - {src.get('url') or src['path']}")
    if t.get("problems"):
        out.append("Problems:")
        for p in t["problems"]:
            out.append(f"    {p.get('kind')}: {json.dumps({k: v for k, v in p.items() if k != 'kind'}, ensure_ascii=False)}")
    if t.get("feedback"):
        out.append("Feedback:")
        for f in t["feedback"]:
            changed = f", changed {f['updated_at']:%Y-%m-%d %H:%M}" if f.get("updated_at") else ""
            out.append(f"    {f['value']:<4} by {f.get('user_id') or '?'} at {f['created_at']:%Y-%m-%d %H:%M}{changed}")
            if f.get("reason"):
                out.append(f"         why: {f['reason']}")
    return "\n".join(out)
