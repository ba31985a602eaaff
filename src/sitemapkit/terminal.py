"""Text for people: control characters shown as escapes, never sent to the terminal raw.

Why: a loc or a message holds whatever a hostile sitemap put in it.  ESC, CSI
and OSC sequences (C0 ``\\x1b``, C1 ``\\x9b``/``\\x9d``), NUL, or a bare line
break printed as they are can rewrite the screen, retitle the window, forge a
line of our output, or hide text (bidi overrides).  Everything printed for
people passes :func:`for_people`; machine formats (JSON, CSV) quote by their own
rules.
"""

from __future__ import annotations

import re
from typing import Final

#: C0 controls (tab and line ends included: one finding, one line), DEL, C1 controls,
#: the Unicode line and paragraph separators, and the bidi embeddings/overrides/isolates
_UNSAFE: Final = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


#: the same, line feed aside (the separator of a batch joined for one search)
_UNSAFE_IN_LINES: Final = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)


#: printable ASCII: what plain locs are made of
_PRINTABLE: Final = bytes(range(0x20, 0x7F))


def _escape(m: re.Match[str]) -> str:
    code = ord(m[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def for_people(text: str) -> str:
    """``text`` with every control character written as ``\\xNN`` / ``\\uNNNN``."""
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(_escape, text)


def lines_for_people(lines: list[str]) -> str:
    """``lines`` (one item each, e.g. locs) joined by line feeds, each made safe to print.

    The common case (printable ASCII, no line feed inside an item) is found at C speed
    on the whole batch: a million locs cost a join, an encode and a ``translate``.
    """
    joined = "\n".join(lines)
    if joined.isascii():
        # what is left after deleting printable ASCII must be the separators, no more
        if len(joined.encode("ascii").translate(None, _PRINTABLE)) == len(lines) - 1:
            return joined
    elif joined.count("\n") == len(lines) - 1 and _UNSAFE_IN_LINES.search(joined) is None:
        return joined
    return "\n".join(for_people(line) for line in lines)


#: what ``json.dumps(..., ensure_ascii=False)`` leaves raw although a terminal acts on it:
#: DEL, C1 controls (CSI ``\x9b``, OSC ``\x9d``), line/paragraph separators, bidi controls
_JSON_RAW: Final = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _json_escape(m: re.Match[str]) -> str:
    return f"\\u{ord(m[0]):04x}"


def json_for_terminals(text: str) -> str:
    """JSON text (``ensure_ascii=False``) with the characters JSON leaves raw but terminals
    act on written as ``\\uXXXX``: the same JSON value, safe to print.  (JSON itself
    escapes C0 controls; these can only occur inside strings.)"""
    if _JSON_RAW.search(text) is None:
        return text
    return _JSON_RAW.sub(_json_escape, text)
