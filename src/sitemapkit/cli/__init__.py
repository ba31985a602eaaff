"""The ``sitemapkit`` command: one module per subcommand, loaded on demand.

Commands are looked up lazily so ``sitemapkit --help`` stays fast and one
command's heavy imports (aiohttp, lxml, Playwright) never slow another.
:func:`main` turns the package's exceptions into one stderr line and an
:class:`ExitStatus`; ``--traceback`` shows the rest.
"""

from __future__ import annotations

import atexit
import gc
import importlib
import importlib.util
import io
import os
import sys
from typing import Any

import click

from sitemapkit import __version__, lazytrust
from sitemapkit.cli.status import ExitStatus
from sitemapkit.errors import SitemapkitError

#: name -> (module, attribute, one-line help)
_COMMANDS: dict[str, tuple[str, str, str]] = {
    "build": (
        "sitemapkit.cli.build",
        "build",
        "Write a sitemap set from a URL list, CSV or JSON Lines.",
    ),
    "validate": (
        "sitemapkit.cli.validate",
        "validate",
        "Check sitemaps against every rule of the rule book.",
    ),
    "urls": (
        "sitemapkit.cli.urls",
        "urls",
        "Read any sitemap (or a site's sitemaps) and print its URLs.",
    ),
    "crawl": (
        "sitemapkit.cli.crawl",
        "crawl",
        "Crawl a website politely and write its sitemap set.",
    ),
    "worker": (
        "sitemapkit.cli.worker",
        "worker",
        "Join a `crawl --fleet` from another process or machine: more workers, same politeness.",
    ),
    "inventory": (
        "sitemapkit.cli.inventory",
        "inventory",
        "Export every URL a crawl saw, with its fate.",
    ),
    "history": (
        "sitemapkit.cli.history",
        "history",
        "List the runs of a crawl store: pages, 304s, changes, bytes.",
    ),
    "write": (
        "sitemapkit.cli.write",
        "write",
        "Write the sitemap set of a stored crawl (SQLite or PostgreSQL).",
    ),
    "diff": (
        "sitemapkit.cli.diff",
        "diff",
        "Show what changed between two crawls: added, removed, status, content ...",
    ),
    "indexnow": (
        "sitemapkit.cli.indexnow",
        "indexnow",
        "Submit the URLs a crawl added, changed or removed to IndexNow.",
    ),
    "visualize": (
        "sitemapkit.cli.visualize",
        "visualize",
        "Draw an interactive visual sitemap as one HTML file.",
    ),
    "audit": (
        "sitemapkit.cli.audit",
        "audit",
        "Audit a site against its own sitemaps: findings a CI can gate on.",
    ),
    "serve": (
        "sitemapkit.cli.serve",
        "serve",
        "Serve the local web app: crawl, explore, audit and publish in a browser.",
    ),
    "demo": (
        "sitemapkit.cli.demo",
        "demo",
        "Serve the bundled demo site, crawl it, write its sitemap and map.",
    ),
}


class LazyGroup(click.Group):
    """A group that imports a command's module only when that command runs."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for name in _COMMANDS if self._available(name)]

    @staticmethod
    def _available(name: str) -> bool:
        module = _COMMANDS[name][0]
        return importlib.util.find_spec(module) is not None

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = _COMMANDS.get(cmd_name)
        if entry is None or not self._available(cmd_name):
            return None
        module = _import_frozen(entry[0])
        command = getattr(module, entry[1])
        if not isinstance(command, click.Command):
            raise TypeError(f"{entry[0]}.{entry[1]} is not a click command")
        return command

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; a reader that closed stdout ends it quietly (exit 141).

        click turns a broken pipe into a bare ``sys.exit(1)``: the status of "errors
        found", which a ``validate ... | head -1`` did not earn.
        """
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            _silence_stdout()
            raise click.exceptions.Exit(ExitStatus.PIPE_CLOSED) from None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, _COMMANDS[name][2]) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
# The version from the package itself: asking the installed metadata
# (importlib.metadata) cost ``--version`` 30 ms of CPU, more than the rest of it.
@click.version_option(__version__, package_name="sitemapkit")
@click.option("--traceback", is_flag=True, help="Show the full traceback on errors.")
@click.pass_context
def cli(ctx: click.Context, traceback: bool) -> None:
    """Crawl sites, write standards-perfect sitemaps, validate any sitemap, draw visual maps."""
    ctx.ensure_object(dict)
    ctx.obj["traceback"] = traceback


def _import_frozen(name: str) -> Any:
    """Import a command's module with the collector off, then freeze the heap.

    Why: the functions, classes and module dicts a command loads (thousands) live to the
    end of the process and are no garbage, yet the collector walked them while they
    loaded (50 gen-0 and 5 gen-1 passes on a crawl: 6-9 ms under ``gc.callbacks``).  A
    collector merely paused walks them all in its next passes; frozen (``gc.freeze``),
    no pass walks them.  :func:`main` unfreezes when the command returns, so a caller in
    a longer-lived process keeps its collector; the process's exit freezes again
    (:func:`_freeze_at_exit`).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return importlib.import_module(name)
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()


def _freeze_at_exit() -> None:
    """Let the process's exit skip the interpreter's last garbage collection.

    Why: that collection walks every object the command left (the imported modules,
    their functions and classes): ~60 ms of a one-page crawl's ~0.37 s CPU, for memory
    the exit frees anyway.  An ``atexit`` hook runs only when the interpreter ends, after
    the command and its own exit hooks (registered later, run first), so a caller of
    :func:`main` in a longer-lived process (the tests) keeps its collector.
    """
    global _FREEZE_REGISTERED  # noqa: PLW0603 - once per process
    if not _FREEZE_REGISTERED:
        atexit.register(gc.freeze)
        _FREEZE_REGISTERED = True


_FREEZE_REGISTERED = False


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and return an exit status (never raises for expected errors)."""
    _freeze_at_exit()
    lazytrust.install()  # no CA bundle read at start-up for a command that never uses TLS
    args = sys.argv[1:] if argv is None else argv
    try:
        return _run(args)
    finally:
        gc.unfreeze()  # what _import_frozen froze: a longer-lived caller collects it again


def _run(args: list[str]) -> int:
    """:func:`main` for ``args``: the command's exit status."""
    show_tb = "--traceback" in args
    try:
        result: Any = cli.main(args=args, prog_name="sitemapkit", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("sitemapkit: interrupted", err=True)
        return ExitStatus.INTERRUPTED
    except KeyboardInterrupt:
        click.echo("sitemapkit: interrupted", err=True)
        return ExitStatus.INTERRUPTED
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        return ExitStatus.USAGE if isinstance(exc, click.UsageError) else exc.exit_code
    except SitemapkitError as exc:
        if show_tb:
            raise
        click.echo(f"sitemapkit: error: {exc}", err=True)
        return ExitStatus.ERROR
    except BrokenPipeError:
        _silence_stdout()
        return ExitStatus.PIPE_CLOSED
    try:
        sys.stdout.flush()  # what is still buffered, while a broken pipe can be answered
    except BrokenPipeError:
        _silence_stdout()
        return ExitStatus.PIPE_CLOSED
    if isinstance(result, int):
        return result
    return ExitStatus.OK


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, io.UnsupportedOperation):
        pass  # not a real file (a test runner's buffer): nothing will flush into a pipe


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
