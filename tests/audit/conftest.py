"""Audit tests run against :mod:`audit.audit_site` on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from audit.audit_site import AuditSite, serve_audit_site


@pytest.fixture
def audit_site() -> Iterator[AuditSite]:
    with serve_audit_site() as served:
        yield served
