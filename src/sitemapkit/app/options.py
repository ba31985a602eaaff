"""The New crawl form's options, checked, as ``sitemapkit crawl`` arguments.

The form sends JSON; each option maps to the crawl command's own flag, so its
meaning and its limits are the CLI's (one truth), and a bad value is one line
naming the option before any process starts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sitemapkit.errors import InputError

#: JSON option -> (crawl flag, type).  Booleans become bare flags.
NUMBERS: dict[str, tuple[str, type]] = {
    "max_pages": ("--max-pages", int),
    "max_depth": ("--max-depth", int),
    "max_duration": ("--max-duration", float),
    "rate": ("--rate", float),
    "concurrency": ("--concurrency", int),
    "per_host": ("--per-host", int),
}
FLAGS = {
    "ignore_robots": "--ignore-robots",
    "subdomains": "--subdomains",
    "follow_nofollow": "--follow-nofollow",
    "images": "--images",
    "seed_from_sitemaps": "--seed-from-sitemaps",
}
LISTS = {"include": "--include", "exclude": "--exclude", "allow_host": "--allow-host"}
RENDER_MODES = ("never", "auto", "always")
#: What a resume may change (scope and rules stay as stored, as with ``--resume``).
RESUME_OPTIONS = frozenset({"max_pages", "max_duration"})
KNOWN = frozenset({"url", "render", *NUMBERS, *FLAGS, *LISTS})


def _number(name: str, kind: type, value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(f"{name}: a number, not {value!r}")
    if kind is int and value != int(value):
        raise InputError(f"{name}: a whole number, not {value!r}")
    if value < 0 or (value == 0 and name != "max_depth"):
        raise InputError(f"{name}: must be more than 0, not {value!r}")
    return str(int(value)) if kind is int else repr(float(value))


def crawl_options(body: Mapping[str, Any], allowed: frozenset[str] = KNOWN) -> list[str]:
    """The crawl flags for ``body``'s options (``url`` excluded); unknown keys are refused."""
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise InputError(f"unknown option(s): {', '.join(unknown)}")
    args: list[str] = []
    for name, (flag, kind) in NUMBERS.items():
        if body.get(name) is not None:
            args += [flag, _number(name, kind, body[name])]
    for name, flag in FLAGS.items():
        value = body.get(name, False)
        if not isinstance(value, bool):
            raise InputError(f"{name}: true or false, not {value!r}")
        if value:
            args.append(flag)
    for name, flag in LISTS.items():
        values = body.get(name) or []
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise InputError(f"{name}: a list of strings")
        for v in values:
            args += [flag, v]
    render = body.get("render")
    if render is not None:
        if render not in RENDER_MODES:
            raise InputError(f"render: one of {', '.join(RENDER_MODES)}, not {render!r}")
        args += ["--render", render]
    return args
