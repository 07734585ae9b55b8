"""Safe arithmetic for the calculator tool: the expression is parsed, never evaluated as Python."""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable
from typing import Any

_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type, Callable[[Any], Any]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}
_PERCENT_OF = re.compile(r"(\d+(?:\.\d+)?)\s*%\s*of\s*", re.IGNORECASE)
CURRENCY = "$€£¥"  # a symbol before an amount: the sum is money


class CalculatorError(ValueError):
    pass


def normalise(expression: str) -> str:
    """Accept the ways people write sums: 1,000 x 2, 3×4, 10÷2, 2^8, 15% of 89, $12."""
    e = re.sub(f"[{CURRENCY}]", "", expression.strip()).replace("×", "*").replace("÷", "/").replace("^", "**")
    e = re.sub(r"(?<=\d),(?=\d{3}\b)", "", e)
    e = re.sub(r"(?<=[\d)\s])[xX](?=[\s\d(])", "*", e)
    e = _PERCENT_OF.sub(lambda m: f"{m.group(1)}/100*", e)
    return e.replace("%", "/100")


def calculate(expression: str) -> float | int:
    text = normalise(expression)
    if len(text) > 200:
        raise CalculatorError("expression too long (200 characters at most)")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as e:
        raise CalculatorError(f"not an arithmetic expression: {expression!r}") from e
    value = _eval(tree.body)
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        raise CalculatorError("the result is not a finite number")
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return int(value)
    return value


def format_number(value: float | int, expression: str = "") -> str:
    """The result as people write it: money (an expression whose amounts carry a currency symbol) with its symbol
    and cents ("$40.80", "$36"), other numbers with thousands separators and up to six significant digits."""
    money = re.search(f"[{CURRENCY}]", expression)
    if money:
        amount = f"{abs(value):,.2f}".removesuffix(".00")
        return f"{'-' if value < 0 else ''}{money[0]}{amount}"
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.6g}" if abs(value) >= 1e-4 else f"{value:.6g}"


def _eval(node: ast.AST) -> float | int:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow) and (abs(right) > 100 or abs(left) > 1e6):
            raise CalculatorError("exponent too large")
        try:
            return _BINARY[type(node.op)](left, right)
        except ZeroDivisionError as e:
            raise CalculatorError("division by zero") from e
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_eval(node.operand))
    raise CalculatorError("only numbers, + - * / // % ** and parentheses are allowed")
