"""RFC 8785 (JSON Canonicalization Scheme) bytes, fast enough for every decision.

Same output as the reference ``rfc8785`` package (a property test checks this over random
JSON), about three times faster: strings go through the C escaper of the standard library,
and only numbers are formatted by hand, the ECMAScript way (shortest round-trip digits,
``1e+21`` but ``100000000000000000000``, ``-0`` as ``0``). Object keys sort by UTF-16 code
units, as the RFC requires.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any, Final

__all__ = ["canonical"]

MAX_SAFE_INTEGER: Final = 2**53 - 1
_escape: Callable[[str], str] = json.encoder.encode_basestring


def _utf16(key: object) -> bytes:
    if not isinstance(key, str):
        raise TypeError(f"object keys must be strings, not {type(key).__name__}")
    return key.encode("utf-16-be", "surrogatepass")


def _number(value: float) -> str:
    if math.isnan(value) or math.isinf(value):
        raise ValueError("NaN and infinities are not JSON (RFC 8785 / I-JSON)")
    if value == 0:
        return "0"
    text = repr(value)  # Python's repr gives the shortest round-trip digits, like ECMAScript
    sign = ""
    if text[0] == "-":
        sign, text = "-", text[1:]
    mantissa, _, exponent = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    if fraction == "0":
        fraction = ""
    joined = whole + fraction
    stripped = joined.lstrip("0")
    digits = stripped.rstrip("0") or "0"
    # n: where the decimal point sits relative to the significant digits
    n = len(whole) + (int(exponent) if exponent else 0) - (len(joined) - len(stripped))
    k = len(digits)
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * -n + digits
    else:
        power = n - 1
        out = (
            digits[0]
            + ("." + digits[1:] if k > 1 else "")
            + "e"
            + ("+" if power > 0 else "-")
            + str(abs(power))
        )
    return sign + out


def _encode(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(_escape(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        if abs(value) > MAX_SAFE_INTEGER:
            raise ValueError(f"integer {value} is outside the I-JSON range")
        out.append(str(value))
    elif isinstance(value, float):
        out.append(_number(value))
    elif isinstance(value, dict):
        out.append("{")
        # ASCII keys (nearly all) sort the same by code point as by UTF-16 code unit.
        ascii_keys = all(isinstance(k, str) and k.isascii() for k in value)
        for index, key in enumerate(sorted(value) if ascii_keys else sorted(value, key=_utf16)):
            if index:
                out.append(",")
            out.append(_escape(key))
            out.append(":")
            _encode(value[key], out)
        out.append("}")
    elif isinstance(value, list | tuple):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _encode(item, out)
        out.append("]")
    else:
        raise TypeError(f"{type(value).__name__} is not a JSON value")


def canonical(value: Any) -> bytes:
    """The RFC 8785 canonical UTF-8 bytes of a JSON value.

    Raises:
        ValueError: NaN, an infinity, or an integer beyond 2**53 - 1.
        TypeError: something that is not JSON.
    """
    out: list[str] = []
    _encode(value, out)
    return "".join(out).encode("utf-8", "surrogatepass")
