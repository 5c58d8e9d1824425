"""Values an agent computed: an amount that is arithmetic over trusted amounts.

An agent asked to "send back the difference", "add the 19.5 % VAT plus the 5.29 fee" or
"pay the total" sends a number that no source wrote. The ``provenance`` kind finds it
nowhere; :func:`derive` tells whether it is arithmetic over numbers that trusted sources
gave (the user's request, a trusted tool's result or field, the deployment's records), and
how: ``200.29 = 1000 * 19.5 % + 5.29``.

What is tried, over the operands ``a``, ``b``, ``c`` (each a trusted number):

- one step: ``a + b``, ``a - b``, ``a * b %``, ``a + b %`` and ``a - b %`` (``a``
  raised or lowered by ``b`` per cent, ``b`` from 0 to 100), ``a * b``, ``a / b``, and
  the sum of all the numbers of one source (a total);
- two steps: any of those, plus, minus, times or divided by ``c``.

Every derivation but a total needs a number of the user's request among its operands:
over the dozens of numbers a session's results hold, free arithmetic reaches many values
by chance (``1100 = 100 + 1000``, two unrelated payments), and a record that says a value
was computed must mean the user's numbers went into it.

Values are compared to the cent (two decimal places, half up). The operands are capped
(:data:`MAX_OPERANDS`, the first given first), so a check costs at most about
``7 * MAX_OPERANDS ** 2`` operations.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Final

__all__ = ["MAX_OPERANDS", "Derivation", "Operand", "derive"]

MAX_OPERANDS: Final = 32
_CENT: Final = Decimal("0.01")
_HUNDRED: Final = Decimal(100)


@dataclass(frozen=True, slots=True)
class Operand:
    """A trusted number and where it was found (``the user's request``)."""

    value: Decimal
    where: str


@dataclass(frozen=True, slots=True)
class Derivation:
    """How a value is had from trusted numbers, and where each of them was found."""

    expression: str  # "200.29 = 1000 * 19.5 % + 5.29"
    sources: tuple[str, ...]


def _cents(value: Decimal) -> Decimal | None:
    try:
        return value.quantize(_CENT, rounding=ROUND_HALF_UP)
    except InvalidOperation:
        return None


def _shown(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return text if "." not in text else text.rstrip("0").rstrip(".")


_Step = tuple[Decimal, str, tuple[Operand, ...]]  # the exact value, how, from what


_Operation = Callable[[Decimal, Decimal], Decimal | None]
_PERCENT_FIRST: Final[tuple[tuple[_Operation, str], ...]] = (
    # Percentages before products: 1000 * 19.5 % reads as the user meant it, 19.5 * 10 not.
    (lambda a, b: a + b, "{} + {}"),
    (lambda a, b: a - b, "{} - {}"),
    (lambda a, b: a * b / _HUNDRED if 0 < b <= _HUNDRED else None, "{} * {} %"),
    (lambda a, b: a * (1 + b / _HUNDRED) if 0 < b <= _HUNDRED else None, "{} + {} %"),
    (lambda a, b: a * (1 - b / _HUNDRED) if 0 < b <= _HUNDRED else None, "{} - {} %"),
    (lambda a, b: a * b, "{} * {}"),
    (lambda a, b: a / b if b else None, "{} / {}"),
)


class _Steps:
    """Every value one step gives, to the cent: all of them, and those that use a number
    of the user's request (or are a total); the first way found is kept for each."""

    __slots__ = ("asked", "every")

    def __init__(
        self, operands: Sequence[Operand], totals: Iterable[Operand], asked: frozenset[str]
    ):
        self.every: dict[Decimal, _Step] = {}
        self.asked: dict[Decimal, _Step] = {}
        for total in totals:
            self._add(total.value, f"the sum of the numbers of {total.where}", (total,), True)
        for operation, form in _PERCENT_FIRST:
            for i, a in enumerate(operands):
                for j, b in enumerate(operands):
                    if i != j:
                        value = operation(a.value, b.value)
                        shown = form.format(_shown(a.value), _shown(b.value))
                        by_request = a.where in asked or b.where in asked
                        self._add(value, shown, (a, b), by_request)

    def _add(self, value: Decimal | None, how: str, used: tuple[Operand, ...], asked: bool) -> None:
        if value is None:
            return
        cents = _cents(value)
        if cents is None:
            return
        self.every.setdefault(cents, (value, how, used))
        if asked:
            self.asked.setdefault(cents, (value, how, used))


def derive(
    target: str,
    operands: Iterable[Operand],
    totals: Iterable[Operand] = (),
    asked: frozenset[str] = frozenset(),
) -> Derivation | None:
    """How ``target`` (a decimal's text) is arithmetic over ``operands``; None if it is not.

    ``totals`` are sums of all the numbers of one source, taken as one-step values. Every
    derivation but a total needs a number of the user's request among its operands (an
    operand whose ``where`` is in ``asked``), and the third operand of a two-step one is
    not one of the first two: the more numbers a session holds, the more values free
    steps reach by chance.
    """
    try:
        wanted = _cents(Decimal(target))
    except InvalidOperation:
        return None
    if wanted is None:
        return None
    unique: dict[Decimal, Operand] = {}
    for operand in operands:
        unique.setdefault(operand.value, operand)
        if len(unique) >= MAX_OPERANDS:
            break
    chosen = list(unique.values())
    steps = _Steps(chosen, totals, asked)
    shown = _shown(wanted)
    if wanted in steps.asked:
        _, how, used = steps.asked[wanted]
        return _derivation(f"{shown} = {how}", used)
    for c in chosen:
        z = _shown(c.value)
        # The one-step value each operation with c would need, and the operation.
        tries = [
            (wanted - c.value, operator.add, f"{{}} + {z}"),
            (wanted + c.value, operator.sub, f"{{}} - {z}"),
        ]
        if c.value:
            tries += [
                (wanted / c.value, operator.mul, f"({{}}) * {z}"),
                (wanted * c.value, operator.truediv, f"({{}}) / {z}"),
            ]
        for before, redo, form in tries:
            cents = _cents(before)
            if cents is None:
                continue
            for table in (steps.asked, steps.every):
                step = table.get(cents)
                if (
                    step is not None
                    and c not in step[2]
                    and (table is steps.asked or c.where in asked)
                    and _cents(redo(step[0], c.value)) == wanted
                ):
                    return _derivation(f"{shown} = {form.format(step[1])}", (*step[2], c))
    return None


def _derivation(expression: str, used: tuple[Operand, ...]) -> Derivation:
    return Derivation(expression, tuple(dict.fromkeys(o.where for o in used)))
