"""``sitemapkit serve``: the local web app (crawl, explore, audit, publish) in a browser.

Binds 127.0.0.1 by default.  Another ``--host`` needs ``--token`` (one is
generated and printed when none is given): anyone who can reach the port would
otherwise drive crawls and write files.  Ctrl-C or SIGTERM stops the running
crawls (each saves itself, resumable), then the server; exit 130 / 143.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from pathlib import Path

import click

from sitemapkit.cli.status import ExitStatus

DEFAULT_PORT = 8765


def _address(host: str, port: int, token: str | None) -> str:
    """The address to open; a server on every interface is opened through loopback."""
    host = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)  # noqa: S104
    shown = f"[{host}]" if ":" in host else host
    tail = f"?token={token}" if token else ""
    return f"http://{shown}:{port}/{tail}"


async def _serve(workspace: Path, publish_root: Path | None, host: str, port: int,
                 token: str | None) -> int:  # fmt: skip
    from aiohttp import web

    from sitemapkit.app.security import Guard
    from sitemapkit.app.server import make_app
    from sitemapkit.app.workspace import Workspace

    guard = Guard(host=host, token=token)
    app = make_app(Workspace(workspace, publish_root), guard)
    runner = web.AppRunner(app, handle_signals=False, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except OSError as exc:
        await runner.cleanup()
        click.echo(f"sitemapkit: error: cannot listen on {host}:{port}: {exc.strerror}", err=True)
        return ExitStatus.ERROR
    guard.port = int(runner.addresses[0][1])  # the bound port when --port 0
    click.echo(f"open {_address(host, guard.port, token)}", err=False)
    click.echo(f"workspace: {workspace}", err=True)
    stopped = asyncio.Event()
    why: list[int] = []

    def on_signal(signum: int) -> None:
        why.append(signum)
        stopped.set()

    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, on_signal, signum)
    await stopped.wait()
    click.echo("sitemapkit: stopping: running crawls are being saved", err=True)
    await runner.cleanup()
    return ExitStatus.TERMINATED if why and why[0] == signal.SIGTERM else ExitStatus.INTERRUPTED


@click.command("serve")
@click.option(
    "--workspace",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("sitemapkit-workspace"),
    show_default=True,
    help="Folder holding one store per site (the same files the CLI uses).",
)
@click.option("--port", type=click.IntRange(0, 65535), default=DEFAULT_PORT, show_default=True)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--token", help="Secret every request must show (required off loopback).")
@click.option(
    "--publish-root",
    type=click.Path(file_okay=False, path_type=Path),
    help="The only folder 'publish' may write under (default WORKSPACE/public).",
)
@click.pass_context
def serve(ctx: click.Context, workspace: Path, port: int, host: str, token: str | None,
          publish_root: Path | None) -> None:  # fmt: skip
    """Serve the sitemapkit app: crawl, explore, audit and publish from a browser."""
    from sitemapkit.app.security import is_loopback, new_token

    if not is_loopback(host) and not token:
        token = new_token()
        click.echo(f"sitemapkit: {host} is not loopback: requests need the token {token}",
                   err=True)  # fmt: skip
    try:
        workspace.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise click.UsageError(f"--workspace {workspace}: {exc.strerror or exc}") from exc
    code: int = ExitStatus.INTERRUPTED
    with contextlib.suppress(KeyboardInterrupt):
        code = asyncio.run(_serve(workspace.resolve(), publish_root, host, port, token))
    ctx.exit(code)
