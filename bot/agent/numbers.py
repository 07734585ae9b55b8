"""What a question asks of numbers: an amount the answer must quote, or a sum to compute."""

from __future__ import annotations

import re
from collections.abc import Callable

from bot.agent.calculator import CURRENCY

_DIGITS = r"(?:\d{1,3}(?:,\d{3})+|\d+)"  # 1,200 or 1200, never a trailing comma
_NUM = rf"\(?[{CURRENCY}]?{_DIGITS}(?:\.\d+)?%?\)?"
_OP = r"(?:[*/×÷x^+\-]|\bof\b)"
_EXPRESSION = re.compile(rf"{_NUM}(?:\s*{_OP}\s*{_NUM})+", re.IGNORECASE)
_ASKS_FOR_A_NUMBER = re.compile(
    r"\bhow (long|many|much|often|soon|far|big|old)\b|^\s*when\b|\bwhat (time|day|version|price)\b|\b(cost|price|fee)s?\b",
    re.IGNORECASE,
)
# A quantity only a number answers ("how many", "how long", "what does it cost"); "when" may be "on Fridays". A cost
# word asks for one where the question asks what it is ("what's the price of ...", "is there a fee", "what does it
# cost?", "express delivery fee?"), not where it is what a step acts on ("fix the price of a stock i typed in wrong",
# "get share prices to update on their own"): that asks how.
_ASKS_HOW_MUCH = re.compile(
    r"\bhow (long|many|much|often|old|big|far)\b|\bwhat(?:'s|’s|s| is| are| was)? (?:the |a |an )?(cost|price|fee)s?\b"
    r"|\bwhat (?:does|do|did|will|would)\b.*\b(cost|charge)s?\b|\b(?:is|are) there (?:a|an|any) (cost|price|fee|charge)s?\b"
    r"|\b(cost|price|fee|charge)s?\W*$",
    re.IGNORECASE,
)
_ASKS_TO_COMPUTE = re.compile(
    rf"^\s*(what(?:'s|’s|s| is)|how much is|calculate|compute)\b|[*/×÷^=]|\d\s*x\s*[{CURRENCY}]?\d|%\s*of\b", re.I
)


_PCT, _AMOUNT = r"(\d+(?:\.\d+)?)\s*%", rf"([{CURRENCY}]?{_DIGITS}(?:\.\d+)?)"  # the amount keeps its currency
_ARTICLE = r"(?:(?:a|an|the|my|our|your|each)\s+)?"
_NOUN = r"(?:\s+[a-z]+){0,2}?"  # "order", "seats", "monthly plan": what an amount is of
_LEVY = r"(?:\s+(?:tip|tax|vat|gst|interest|commission|fee|surcharge|service charge))?"  # "18% tip on $62.50"
_DISCOUNT = re.compile(
    rf"{_PCT}\s*(?:off(?:\s+of)?|discount\s+on|less\s+than)\s+{_ARTICLE}{_AMOUNT}"
    rf"|{_AMOUNT}{_NOUN}\s+(?:with|at|after)\s+(?:an?\s+)?{_PCT}\s*(?:off|discount)",  # "$45 with 20% off"
    re.IGNORECASE,
)
_MARKUP = re.compile(
    rf"{_AMOUNT}{_NOUN}\s+(?:plus|with|\+)\s+{_PCT}(?!\s*(?:off|discount))|{_PCT}{_LEVY}\s+on\s+top\s+of\s+{_ARTICLE}{_AMOUNT}",
    re.IGNORECASE,
)
_MARKDOWN = re.compile(rf"{_AMOUNT}{_NOUN}\s+(?:minus|less)\s+{_PCT}", re.IGNORECASE)  # "$200 minus 15%"
_PERCENT_OF = re.compile(rf"{_PCT}{_LEVY}\s*(?:of|on)\s+{_ARTICLE}{_AMOUNT}", re.IGNORECASE)
_EACH = re.compile(rf"\b({_DIGITS}){_NOUN}\s+(?:at|for|x|×)\s+{_AMOUNT}\s*(?:each|apiece|a piece|per\s+\w+)", re.IGNORECASE)
_RATE = re.compile(  # "$12 per seat for 3 seats": a price per unit, times as many of the same unit ("for 2 years" is not)
    rf"{_AMOUNT}\s+(?:per|a|an|each)\s+([a-z]+?)s?\s+(?:for|x|×|times)\s+({_DIGITS})\s+\2s?\b", re.IGNORECASE
)
_EACH_OF = re.compile(  # "$60 for 5 seats, how much is each": a total over its units
    rf"{_AMOUNT}\s+for\s+({_DIGITS})\b[^.?!]*?\b(?:each|apiece|a piece|per\s+[a-z]+)\b", re.IGNORECASE
)
_SPLIT = re.compile(  # "split $90 between 4 people", "$90 split 4 ways"
    rf"\b(?:split|divide|share)\s+{_ARTICLE}{_AMOUNT}{_NOUN}\s+(?:between|among|across|by|into)\s+({_DIGITS})\b"
    rf"|{_AMOUNT}{_NOUN}\s+(?:split|divided|shared)\s+(?:between\s+|among\s+|across\s+|by\s+)?({_DIGITS})\b",
    re.IGNORECASE,
)
_WORDS = (  # people's words for operators, between two numbers
    (re.compile(r"\bper\s*cent\b|\bpercent\b", re.I), "%"),
    (re.compile(r"\b(\d[\d,]*(?:\.\d+)?)\s*(?:dollars?|bucks|usd)\b", re.I), r"$\1"),  # "80 dollars": $80
    (re.compile(r"\b(\d[\d,]*(?:\.\d+)?)\s*(?:euros?|eur)\b", re.I), r"€\1"),
    (re.compile(r"\b(\d[\d,]*(?:\.\d+)?)\s*gbp\b", re.I), r"£\1"),  # "5 pounds" may be a weight
    (re.compile(rf"(?<=\d)\s+(?:times|multiplied by)\s+(?=[{CURRENCY}]?\d)", re.I), " * "),
    (re.compile(rf"(?<=\d)\s+divided by\s+(?=[{CURRENCY}]?\d)", re.I), " / "),
    (re.compile(rf"(?<=\d)\s+plus\s+(?=[{CURRENCY}]?\d)(?!\S*%)", re.I), " + "),  # "plus 12%" is a markup
    (re.compile(rf"(?<=\d)\s+minus\s+(?=[{CURRENCY}]?\d)(?!\S*%)", re.I), " - "),  # "minus 15%" is a markdown
)


def arithmetic_in(question: str) -> str | None:
    """The arithmetic expression a question asks to compute, in people's words too ("12% of a $340 order": 12% of $340;
    "20 percent off 45": 45 - 20% of 45; "$340 plus 12%": $340 + 12% of $340; "$200 minus 15%"; "18% tip on $62.50":
    18% of $62.50; "3 seats at $12 each": 3 * $12; "split $90 between 4 people": $90 / 4)."""
    for words, op in _WORDS:
        question = words.sub(op, question)
    worded = (_DISCOUNT, _MARKUP, _MARKDOWN, _PERCENT_OF, _EACH, _RATE, _EACH_OF, _SPLIT)
    if not (_ASKS_TO_COMPUTE.search(question) or any(pattern.search(question) for pattern in worded)):
        return None
    question = _DISCOUNT.sub(lambda m: f"{m[2]} - {m[1]}% of {m[2]}" if m[1] else f"{m[3]} - {m[4]}% of {m[3]}", question)
    question = _MARKUP.sub(lambda m: f"{m[1]} + {m[2]}% of {m[1]}" if m[1] else f"{m[4]} + {m[3]}% of {m[4]}", question)
    question = _MARKDOWN.sub(lambda m: f"{m[1]} - {m[2]}% of {m[1]}", question)
    question = _PERCENT_OF.sub(lambda m: f"{m[1]}% of {m[2]}", question)
    question = _EACH.sub(lambda m: f"{m[1]} * {m[2]}", question)
    question = _RATE.sub(lambda m: f"{m[1]} * {m[3]}", question)
    question = _EACH_OF.sub(lambda m: f"{m[1]} / {m[2]}", question)
    question = _SPLIT.sub(lambda m: f"{m[1]} / {m[2]}" if m[1] else f"{m[3]} / {m[4]}", question)
    found = [m.group(0) for m in _EXPRESSION.finditer(question)]
    return max(found, key=len).strip() if found else None


_UNIT = r"(?:second|sec|minute|min|hour|hr|day|night|week|month|year)s?\b"
_DURATION = re.compile(rf"\d[\d,.]*(?:\s*(?:-|–|to)\s*\d[\d,.]*)?[\s-]*(?:\w+[\s-]+)?{_UNIT}|\b(?:an?|one) {_UNIT}", re.I)
_LENGTH = re.compile(
    r"\d[\d,.]*\s*(?:mm|cm|m|km|ft|metres?|meters?|feet|foot|inch(?:es)?|miles?|characters?|chars|words|lines|pages)\b", re.I
)
_MONEY = re.compile(r"[$€£¥]\s?\d|\d\s?(?:USD|EUR|GBP|dollars?|euros?|pounds?|cents?)\b|\bfree\b", re.I)
_FREQUENCY = re.compile(
    rf"\bevery\s+(?:\d+\s+|other\s+)?{_UNIT}|\b(?:hourly|daily|weekly|monthly|yearly|annually)\b|\b(?:once|twice|\d+\s+times)\b"
    rf"|\b(?:a|per)\s+{_UNIT}|{_DURATION.pattern}",
    re.I,
)
_CLOCK = re.compile(
    r"\b\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\b\d{1,2}:\d{2}\b|\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|\bweekdays?\b",
    re.I,
)
# The kind of amount a question asks for, by the words that ask it (the "expected answer type" of question
# answering, Harabagiu et al., "FALCON: Boosting Knowledge for Answer Engines", TREC 2000): "how long" wants a
# duration or a length, "what does it cost" money, "how often" a frequency, "what time" a time of day; "how many" any number.
_KINDS = (
    (re.compile(r"\bhow soon\b", re.I), _DURATION),
    (re.compile(r"\bhow long\b", re.I), re.compile(f"{_DURATION.pattern}|{_LENGTH.pattern}", re.I)),
    (re.compile(r"\bhow often\b", re.I), _FREQUENCY),  # "every 90 days", or "they expire after 90 days"
    (re.compile(r"\b(?:cost|price|fee|charge)s?\b|\bhow much (?:is|are|does|do|will|would)\b", re.I), _MONEY),
    (re.compile(r"\bwhat time\b", re.I), _CLOCK),
)


def asked_amount(question: str) -> Callable[[str], bool] | None:
    """Whether a line gives the amount the question asks for, when it asks for one: a duration or a length for "how
    long", money for a cost, a frequency or a period for "how often", a time for "what time"; any number for "how many"
    or "when". None: it asks for no amount."""
    if not _ASKS_FOR_A_NUMBER.search(question):
        return None
    asked = [(found.start(), kind) for asks, kind in _KINDS if (found := asks.search(question))]
    if not asked:
        return has_amount
    kind = min(asked, key=lambda pair: pair[0])[1]  # the words that ask first: "what time does the charge finish"
    return lambda text: bool(kind.search(text))


def asks_how_much(question: str) -> bool:
    """Only a number answers it: an answer without one is no answer."""
    return bool(_ASKS_HOW_MUCH.search(question))


def has_amount(text: str) -> bool:
    """A number in the line's text, not just its list numbering."""
    return any(ch.isdigit() for ch in re.sub(r"^\s*(\d+[.)]|[-*])\s+", "", text))
