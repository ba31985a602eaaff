"""Run ``sitemapkit ARGS`` in this process and write where its CPU went (bench only).

Used by ``startup_bench.py``: ``python crawl_phases.py OUT.json crawl URL -o DIR``.
Nothing in the package is changed; the driver wraps, from outside, the few functions
that bound the phases of ``crawl`` (they have the same names in older trees, so a
``--before`` tree is measured the same way):

* ``interpreter``: CPU spent before this file's first line (start-up, ``site``);
* ``imports + CLI``: from there to the command's body (``sitemapkit.cli``, click,
  the command module and everything it imports);
* ``store open``: ``open_store`` (lock, file, migrations);
* ``crawl loop``: ``run_crawl`` (the event loop: fetch, parse, store, finish);
* ``publish``: ``_publish`` (shrink guard, sitemap set, inventory, map, summary);
* ``rest of the command``: the command's body minus those three;
* ``exit``: after the body (the parent adds interpreter finalisation: whole-process
  CPU from ``wait4`` minus what this driver saw).

``process_time`` counts this process only: run it with ``--workers 1``.
"""

from __future__ import annotations

import time

STARTED = time.process_time()  # first statement: the interpreter's own start-up before it

import atexit  # noqa: E402 - after the first clock reading, on purpose
import functools  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

marks: dict[str, float] = {"interpreter": STARTED}
clock: dict[str, float] = {}


def timed(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(func)
    def run(*args: Any, **kwargs: Any) -> Any:
        begin = time.process_time()
        try:
            return func(*args, **kwargs)
        finally:
            marks[name] = marks.get(name, 0.0) + time.process_time() - begin

    return run


def main() -> int:
    out_path, argv = sys.argv[1], sys.argv[2:]
    from sitemapkit import cli

    original = cli.LazyGroup.get_command

    def get_command(self: Any, ctx: Any, name: str) -> Any:
        command = original(self, ctx, name)
        module = sys.modules[cli._COMMANDS[name][0]]
        for func, phase in (("open_store", "store open"), ("run_crawl", "crawl loop")):
            if hasattr(module, func):
                setattr(module, func, timed(phase, getattr(module, func)))
        if hasattr(module, "_publish"):
            module._publish = timed("publish", module._publish)
        body = command.callback

        def callback(*args: Any, **kwargs: Any) -> Any:
            clock["body"] = time.process_time()
            try:
                return body(*args, **kwargs)
            finally:
                clock["body_end"] = time.process_time()

        command.callback = callback
        return command

    cli.LazyGroup.get_command = get_command  # type: ignore[method-assign]

    def report() -> None:
        now = time.process_time()
        body = clock.get("body", now)
        end = clock.get("body_end", now)
        marks["imports + CLI"] = body - STARTED
        inner = sum(marks.get(k, 0.0) for k in ("store open", "crawl loop", "publish"))
        marks["rest of the command"] = end - body - inner
        marks["exit"] = now - end
        marks["seen"] = now
        with open(out_path, "w", encoding="utf-8") as fh:
            json.dump(marks, fh)

    atexit.register(report)
    return cli.main(argv)


if __name__ == "__main__":
    sys.exit(main())
