"""``sitemapkit validate SOURCE...``: every rule of the rule book, as text, JSON or SARIF.

Exit 0 when no errors, 1 with errors (or warnings under ``--strict``), 2 when
a SOURCE cannot be read or a flag is wrong.  The summary never says "valid"
for a check that did not run; it lists what was skipped and why.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from sitemapkit.cli.readcaps import check_source, read_limit_options, read_limits
from sitemapkit.cli.status import ExitStatus
from sitemapkit.errors import InputError, PublishError
from sitemapkit.fileio import atomic_open
from sitemapkit.model import Finding, Severity
from sitemapkit.read.walk import is_url
from sitemapkit.rulebook.codes import ALL_CODES, meaning
from sitemapkit.terminal import for_people, json_for_terminals
from sitemapkit.validate.validator import ValidationReport
from sitemapkit.validate.validator import validate as run_validate

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _finding_dict(f: Finding) -> dict[str, Any]:
    return {
        "code": f.code,
        "severity": f.severity.value,
        "message": f.message,
        "source": f.source,
        "line": f.line,
        "column": f.column,
        "url": f.url,
    }


def _summary(rep: ValidationReport) -> str:
    n = len(rep.sitemaps)
    head = (
        f"{n} sitemap{'s' if n != 1 else ''}, {rep.entries:,} entries: "
        f"{rep.errors} error(s), {rep.warnings} warning(s), {rep.infos} note(s)"
    )
    if rep.errors == 0 and not rep.unreadable:
        head += " — no errors in the checks that ran"
    return head


def _text(rep: ValidationReport) -> str:
    lines = [f.render() for f in rep.findings]
    lines.append(_summary(rep))
    lines.extend(for_people(f"not checked: {what}: {why}") for what, why in rep.skipped.items())
    return "\n".join(lines) + "\n"


def _json(rep: ValidationReport) -> str:
    return json_for_terminals(
        json.dumps(
            {
                "sitemaps": rep.sitemaps,
                "entries": rep.entries,
                "errors": rep.errors,
                "warnings": rep.warnings,
                "infos": rep.infos,
                "checked": rep.checked,
                "skipped": rep.skipped,
                "findings": [_finding_dict(f) for f in rep.findings],
            },
            indent=2,
            ensure_ascii=False,
        )
        + "\n"
    )


def _artifact(source: str) -> str:
    if is_url(source):
        return source
    return Path(source).as_posix()


def sarif(rep: ValidationReport) -> dict[str, Any]:
    """The report as a SARIF 2.1.0 log (one run), so CI systems show findings inline."""
    used = sorted({f.code for f in rep.findings})
    rules = [
        {
            "id": code,
            "name": code,
            "shortDescription": {"text": meaning(code)},
            "defaultConfiguration": {"level": _LEVEL[ALL_CODES.get(code, Severity.ERROR)]},
        }
        for code in used
    ]
    index = {code: i for i, code in enumerate(used)}
    results = []
    for f in rep.findings:
        region: dict[str, int] = {}
        if f.line is not None:
            region["startLine"] = f.line
            if f.column is not None:
                region["startColumn"] = f.column
        loc: dict[str, Any] = {"artifactLocation": {"uri": _artifact(f.source)}}
        if region:
            loc["region"] = region
        results.append(
            {
                "ruleId": f.code,
                "ruleIndex": index[f.code],
                "level": _LEVEL[f.severity],
                "message": {"text": f.message},
                "locations": [{"physicalLocation": loc}],
            }
        )
    from sitemapkit import __version__

    notes = [
        {"level": "warning", "message": {"text": f"not checked: {what}: {why}"}}
        for what, why in rep.skipped.items()
    ]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "sitemapkit",
                        "version": __version__,
                        "informationUri": "https://github.com/sitemapkit/sitemapkit",
                        "rules": rules,
                    }
                },
                "invocations": [
                    {
                        "executionSuccessful": not rep.unreadable,
                        "toolExecutionNotifications": notes,
                    }
                ],
                "results": results,
            }
        ],
    }


def _parse_now(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise click.BadParameter(f'"{value}" is not an ISO 8601 date or datetime') from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _run_schema(rep: ValidationReport, folder: str) -> None:
    from sitemapkit.validate.xsd import SchemaSet

    schemas = SchemaSet(folder)
    checked = 0
    roots = _roots(rep)
    for source in rep.sitemaps:
        if is_url(source) or source == "-" or not Path(source).is_file():
            rep.skipped[f"xsd ({source})"] = "XSD runs on local files only"
            continue
        root = roots.get(source)
        if root is None:
            rep.skipped[f"xsd ({source})"] = "not an XML urlset or sitemapindex"
            continue
        found, why = schemas.check(source, root, source)
        if why is not None:
            rep.skipped[f"xsd ({source})"] = why
            continue
        rep.findings.extend(found)
        checked += 1
    if checked:
        rep.checked.append(f"xsd ({folder}, {checked} file(s))")


def _roots(rep: ValidationReport) -> dict[str, str]:
    return dict(rep.roots)


@click.command("validate")
@click.argument("sources", nargs=-1, required=True)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "sarif"]),
    default="text",
    show_default=True,
    help="Report format.",
)
@click.option(
    "--schema",
    "schema_dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Also validate against the XSD files in this folder (needs lxml).",
)
@click.option("--strict", is_flag=True, help="Warnings fail too (exit 1).")
@click.option(
    "--sitemap-url",
    default=None,
    help="The URL a local file is served at (or a base URL ending in '/'), for the scope rules.",
)
@click.option(
    "--now",
    "now_text",
    default=None,
    help="The moment lastmod-future and news-stale are judged against (ISO 8601).",
)
@read_limit_options
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, allow_dash=True),
    default="-",
    help="Write the report here instead of stdout.",
)
@click.pass_context
def validate(
    ctx: click.Context,
    sources: tuple[str, ...],
    fmt: str,
    schema_dir: str | None,
    strict: bool,
    sitemap_url: str | None,
    now_text: str | None,
    max_download_bytes: int,
    max_decompressed_bytes: int,
    max_depth: int,
    max_sitemaps: int,
    timeout: float,
    allow_other_hosts: bool,
    allow_private: bool,
    output: str,
) -> int:
    """Check SOURCE... (files, '-', sitemap/robots.txt/home URLs) against the rule book."""
    sources = tuple(check_source(source) for source in sources)
    now = _parse_now(now_text)
    lim = read_limits(
        max_download_bytes,
        max_decompressed_bytes,
        max_depth,
        max_sitemaps,
        timeout,
        allow_other_hosts,
        allow_private,
    )
    if schema_dir is not None:
        from sitemapkit.validate.xsd import SchemaSet

        try:
            SchemaSet(schema_dir)
        except InputError as exc:
            raise click.UsageError(str(exc)) from None
    try:
        rep = run_validate(list(sources), sitemap_url=sitemap_url, now=now, limits=lim)
    except InputError as exc:
        raise click.UsageError(str(exc)) from None
    if schema_dir is not None:
        _run_schema(rep, schema_dir)
    else:
        rep.skipped["xsd"] = "not requested (give --schema DIR to also run the XSDs)"
    if fmt == "text":
        text = _text(rep)
    elif fmt == "json":
        text = _json(rep)
    else:
        text = json_for_terminals(json.dumps(sarif(rep), indent=2, ensure_ascii=False)) + "\n"
    if output == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        try:
            with atomic_open(Path(output), what="the report") as fh:
                fh.write(text)
        except PublishError as exc:
            click.echo(f"sitemapkit validate: {exc}", err=True)
            return ctx.exit(ExitStatus.ERROR)
    if rep.unreadable:
        return ctx.exit(ExitStatus.USAGE)
    failed = rep.errors > 0 or (strict and rep.warnings > 0)
    return ctx.exit(ExitStatus.ERROR if failed else ExitStatus.OK)
