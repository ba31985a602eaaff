"""The CLI front door: help lists commands, unknown commands are usage errors."""

import subprocess
import sys

import click

from sitemapkit.cli import cli, main


def test_help_lists_commands(capsys) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "Usage: sitemapkit" in out
    names = cli.list_commands(click.Context(cli))
    assert names == [
        "build",
        "validate",
        "urls",
        "crawl",
        "worker",
        "inventory",
        "history",
        "write",
        "diff",
        "indexnow",
        "visualize",
        "audit",
        "serve",
        "demo",
    ]
    for name in names:
        assert name in out


def test_unknown_command_is_usage_error(capsys) -> None:
    assert main(["no-such-command"]) == 2
    assert "no-such-command" in capsys.readouterr().err


def test_python_dash_m_runs() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "sitemapkit", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0
    assert "0.1.0" in proc.stdout


def test_one_version_for_the_command_and_the_installed_package() -> None:
    """``--version`` prints ``sitemapkit.__version__`` (no metadata lookup at run time);
    the packaging metadata takes its version from there (pyproject: dynamic)."""
    from importlib.metadata import version

    import sitemapkit

    proc = subprocess.run(
        [sys.executable, "-m", "sitemapkit", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert proc.stdout == f"sitemapkit, version {sitemapkit.__version__}\n"
    assert version("sitemapkit") == sitemapkit.__version__
