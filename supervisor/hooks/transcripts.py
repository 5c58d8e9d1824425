"""The user's requests and the tool results of a Claude Code session, from its transcript file.

Claude Code names the session's transcript in every hook event (``transcript_path``): one JSON
object a line, the user's messages (``type: user``, ``message.content`` a string or text
blocks), the model's tool calls (``type: assistant``, ``tool_use`` blocks with ``id`` and
``name``) and the results (``type: user`` lines whose content holds ``tool_result`` blocks).
:class:`TranscriptFiles` reads each file incrementally, from where it stopped, complete lines
only, and keeps the session's sources within the transcript's bounds
(:mod:`supervisor.transcript`), so a long session costs the new lines, not the whole file.

Bounds: at most the last :data:`MAX_READ_BYTES` of what is new are read a call, so a file
first seen larger than that (or one that grew by more since the last event) is read from
there: what came before is lost (its first request too: the check then says the request is
not known). A line longer than :data:`MAX_LINE_BYTES` is skipped. Anything unreadable is
skipped, never an error: the hook must answer.
"""

from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from supervisor.transcript import (
    ResultTrust,
    Source,
    Trust,
    bounded,
    message_text,
    request,
    result,
)

__all__ = ["MAX_READ_BYTES", "TranscriptFiles", "sources_of_line"]

MAX_READ_BYTES: Final = 4 << 20
MAX_LINE_BYTES: Final = 1 << 20
MAX_FILES: Final = 64


@dataclass
class _File:
    identity: tuple[int, int]  # (device, inode): a new file at the same path starts over
    offset: int = 0
    sources: list[Source] = field(default_factory=list)
    dropped: int = 0
    tools: dict[str, str] = field(default_factory=dict)  # tool_use id -> tool name
    lookups: dict[str, tuple[str, ...]] = field(default_factory=dict)  # -> what it looked up


LookupOf = Callable[[str, Mapping[str, Any]], tuple[str, ...]]


def sources_of_line(
    line: dict[str, Any],
    tools: dict[str, str],
    trust_of: Callable[[str | None], Trust | ResultTrust],
    lookup_of: LookupOf | None = None,
    lookups: dict[str, tuple[str, ...]] | None = None,
) -> list[Source]:
    """The sources one transcript line adds (``tools`` learns the names of tool calls, and
    ``lookups`` what each looked up, read by ``lookup_of`` from its input)."""
    message = line.get("message")
    if not isinstance(message, dict):
        return []
    content = message.get("content")
    kind = line.get("type")
    if kind == "assistant" and isinstance(content, list):
        for block in content:
            if (
                isinstance(block, dict)
                and block.get("type") == "tool_use"
                and isinstance(block.get("id"), str)
                and isinstance(block.get("name"), str)
            ):
                tools[block["id"]] = block["name"]
                given = block.get("input")
                if lookup_of is not None and lookups is not None and isinstance(given, dict):
                    looked_up = lookup_of(block["name"], given)
                    if looked_up:
                        lookups[block["id"]] = looked_up
        return []
    if kind != "user" or line.get("isMeta"):
        return []
    if isinstance(content, str):
        return [request(content)]
    if not isinstance(content, list):
        return []
    found: list[Source] = []
    texts: list[str] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif block.get("type") == "tool_result":
            use_id = block.get("tool_use_id")
            tool = tools.get(use_id) if isinstance(use_id, str) else None
            text = message_text(block.get("content"))
            known = use_id if tool else None
            lookup = lookups.get(known, ()) if lookups is not None and known else ()
            found.append(result(tool, text, trust_of(tool), known, lookup))
    if texts and not found:
        found.append(request("\n".join(texts)))
    return found


class TranscriptFiles:
    """The sources of the transcript files hook events name, read incrementally."""

    __slots__ = ("_files", "_lock")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._files: OrderedDict[str, _File] = OrderedDict()

    def sources(
        self,
        path: str,
        trust_of: Callable[[str | None], Trust | ResultTrust] | None = None,
        lookup_of: LookupOf | None = None,
    ) -> tuple[list[Source], int]:
        """The session's sources so far, and how many were dropped to stay bounded
        (``lookup_of``: what a tool call looked up, from its input)."""
        judge = trust_of or (lambda tool: Trust.THIRD_PARTY)
        with self._lock:
            try:
                with open(path, "rb") as handle:
                    status = os.fstat(handle.fileno())
                    known = self._known(path, (status.st_dev, status.st_ino), status.st_size)
                    known.offset = max(known.offset, status.st_size - MAX_READ_BYTES)
                    handle.seek(known.offset)
                    chunk = handle.read(status.st_size - known.offset)
            except OSError:
                return [], 0
            end = chunk.rfind(b"\n") + 1  # complete lines only; the rest is read next time
            for raw in chunk[:end].splitlines():
                if not raw.strip() or len(raw) > MAX_LINE_BYTES:
                    continue
                try:
                    line = json.loads(raw)
                except (ValueError, RecursionError):
                    continue
                if isinstance(line, dict):
                    found = sources_of_line(line, known.tools, judge, lookup_of, known.lookups)
                    known.sources.extend(found)
            known.offset += end
            kept = bounded(known.sources, known.dropped)
            known.sources, known.dropped = list(kept.sources), kept.dropped
            return list(known.sources), known.dropped

    def _known(self, path: str, identity: tuple[int, int], size: int) -> _File:
        known = self._files.pop(path, None)
        if known is None or known.identity != identity or known.offset > size:
            known = _File(identity)
        self._files[path] = known
        while len(self._files) > MAX_FILES:
            self._files.popitem(last=False)
        return known
