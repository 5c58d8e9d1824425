"""What a hook process answers: stdout, stderr and exit status. Standard library only.

The thin client imports this module, so it must stay free of pydantic and the supervisor's
other dependencies.

Errors are answered the same way for both hosts. With ``--on-error deny`` the answer is
exit status 2 with the message on stderr: both Claude Code and Codex treat exit 2 as "do not
run this tool call" and show stderr to the model, and this path needs no JSON to be parsed by
the host, so it holds even when something upstream is broken. Any other failure of the hook
process (another exit status, a crash, a timeout) is treated by both hosts as a failed hook,
and the call goes through: that is why every failure must end here.
"""

from __future__ import annotations

import json
import sys
from collections import namedtuple

TYPE_CHECKING = False  # not typing's: the thin client imports this module (see supervisor)
if TYPE_CHECKING:
    from typing import Any, Final, Literal, NamedTuple, TypeAlias

    OnError: TypeAlias = Literal["allow", "deny"]
    FlagAs: TypeAlias = Literal["allow", "ask"]

    class _Fields(NamedTuple):
        stdout: str = ""
        stderr: str = ""
        exit_code: int = 0

else:
    # The same tuple at run time, without importing typing (several milliseconds for the
    # thin client); OnError and FlagAs are types only: import them under TYPE_CHECKING.
    _Fields = namedtuple("_Fields", ("stdout", "stderr", "exit_code"), defaults=("", "", 0))

__all__ = [
    "DEFAULT_BUDGET_MS",
    "EMPTY",
    "MAX_REASON_CHARS",
    "HookAnswer",
    "error_answer",
    "json_answer",
    "not_text",
    "read_event",
    "refusal_answer",
    "truncate",
]


def read_event() -> str:
    """The hook event on stdin, as UTF-8 text.

    Read as bytes and decoded strictly, whatever the locale (a text stdin decodes strictly
    in most locales and with ``surrogateescape`` in C.UTF-8): input that is not UTF-8 is a
    :class:`UnicodeDecodeError` the caller turns into its ``--on-error`` answer.
    """
    binary = getattr(sys.stdin, "buffer", None)
    if binary is None:
        return sys.stdin.read()
    return bytes(binary.read()).decode("utf-8")


def not_text(exc: UnicodeDecodeError) -> str:
    """What to say of hook input that is not UTF-8."""
    return (
        f"the hook input is not UTF-8 text ({exc.reason} at byte {exc.start}); this command "
        "must be run by the agent host as a PreToolUse/PostToolUse hook, with the event on stdin"
    )


# Below the 30 s host timeout that ``supervise hook install`` writes, so the hook answers
# (deny, by default) before the host gives up on it and lets the call through.
DEFAULT_BUDGET_MS: Final = 20_000
# Claude Code caps hook strings at 10,000 characters; Codex shows the model about 2,500
# tokens of hook output. Stay under both.
MAX_REASON_CHARS: Final = 8_000
BLOCK_EXIT: Final = 2


class HookAnswer(_Fields):
    """A hook process's whole answer: ``stdout``, ``stderr``, ``exit_code``. (A named tuple,
    not a dataclass: importing ``dataclasses`` would cost the thin client milliseconds.)"""

    __slots__ = ()

    def to_json(self) -> dict[str, Any]:
        return {"stdout": self.stdout, "stderr": self.stderr, "exit_code": self.exit_code}

    @classmethod
    def from_json(cls, data: object) -> HookAnswer:
        """The answer a daemon sent; TypeError when it is not one."""
        if not isinstance(data, dict):
            raise TypeError(f"expected a JSON object, got {type(data).__name__}")
        stdout, stderr, code = data.get("stdout"), data.get("stderr"), data.get("exit_code")
        if not (isinstance(stdout, str) and isinstance(stderr, str) and isinstance(code, int)):
            raise TypeError("expected stdout, stderr (strings) and exit_code (integer)")
        return cls(stdout, stderr, code)


EMPTY: Final = HookAnswer()


def truncate(text: str, limit: int = MAX_REASON_CHARS) -> str:
    if len(text) <= limit:
        return text
    return text[: limit - 14].rstrip() + " … (truncated)"


def json_answer(payload: dict[str, Any], *, stderr: str = "") -> HookAnswer:
    return HookAnswer(json.dumps(payload, ensure_ascii=False) + "\n", stderr, 0)


def error_answer(message: str, on_error: OnError, *, post: bool = False) -> HookAnswer:
    """The answer when the supervisor could not decide (bad input, broken set-up, budget).

    Before a call: ``deny`` refuses it (exit 2, the message to the model); ``allow`` lets it
    run and warns the user with a ``systemMessage``. After a call nothing can be refused:
    the message goes to stderr with exit 1, which both hosts report as a non-blocking error.
    """
    text = truncate(f"supervise: {message}")
    if post:
        return HookAnswer("", text + "\n", 1)
    if on_error == "deny":
        return HookAnswer(
            "",
            text + "\nThe action was refused because supervise is set to deny when it cannot "
            "check an action (--on-error deny). Tell the user; do not try to work around it.\n",
            BLOCK_EXIT,
        )
    return json_answer({"systemMessage": text + " (allowed: --on-error allow)"}, stderr=text + "\n")


def refusal_answer(message: str) -> HookAnswer:
    """Refuse a call for what its input is (a key given twice, nesting past the limit),
    whatever ``on_error`` says: the supervisor did not fail, it will not judge an ambiguous
    action. Exit 2 with the message to the model, as for ``deny``, for both hosts."""
    return HookAnswer(
        "",
        truncate(f"supervise refused this action: {message}") + "\nThe call did not run; send "
        "it again in the form the message asks for.\n",
        BLOCK_EXIT,
    )
