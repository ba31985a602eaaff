"""Audit tests run against :mod:`audit.audit_site` on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from audit.audit_site import AuditSite, serve_audit_site
from headless import chromium, playwright


@pytest.fixture
def audit_site() -> Iterator[AuditSite]:
    with serve_audit_site() as served:
        yield served


@pytest.fixture
def pw_page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[object, list[str]]]:
    """A page in Debian's headless Chromium and the console errors it logs."""
    profile = tmp_path_factory.mktemp("chromium-audit")
    with playwright() as driver, chromium(driver, profile) as ctx:
        page = ctx.new_page()
        page.set_default_timeout(10_000)
        errors: list[str] = []
        page.on(
            "console",
            lambda m: errors.append(m.text) if m.type in ("error", "warning") else None,
        )
        page.on("pageerror", lambda e: errors.append(str(e)))
        yield page, errors
