"""The CA bundle is read before the first TLS handshake, not at start-up (issue 13).

aiohttp fills two SSL contexts from the system CA bundle when it is imported (29 %
of a whole one-page crawl).  The CLI defers those loads to the first handshake
(:mod:`sitemapkit.lazytrust`) for the commands that use aiohttp; the crawl has its own
client, whose one context is made on its first https URL (``tls.client_context``).
These tests run the real command in a fresh interpreter: a plain-http crawl never
reads the bundle, and an https crawl verifies certificates exactly as before, against
the default verify paths (``SSL_CERT_FILE`` is honoured, an unknown CA is refused).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from crawl.fixture_site import FixtureSite
from tls_site import https_site, make_certificates

#: Run the CLI, then say what became of aiohttp's default contexts and of ``ssl``.
_PROBE = """
import json, ssl, sys
from sitemapkit.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
crawl_tls = sys.modules.get("sitemapkit.tls")
crawl_contexts = [] if crawl_tls is None else crawl_tls._CLIENT
aiohttp_used = "aiohttp" in sys.modules
from aiohttp import connector
print(json.dumps({
    "code": code,
    "aiohttp_used": aiohttp_used,
    "crawl_context_cas": [c.cert_store_stats()["x509_ca"] for c in crawl_contexts],
    "pending": [c.trust_pending for c in
                (connector._SSL_CONTEXT_VERIFIED, connector._SSL_CONTEXT_UNVERIFIED)],
    "ssl_restored": "set_default_verify_paths" not in vars(ssl.SSLContext)
    and ssl.SSLContext.load_default_certs.__module__ == "ssl",
    "fresh_context_loaded": ssl.create_default_context().cert_store_stats()["x509_ca"] > 0,
}))
"""


def probe(argv: list[str], env: dict[str, str] | None = None) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    answer: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    answer["stdout"], answer["stderr"] = out.stdout, out.stderr
    return answer


def test_a_plain_http_crawl_never_reads_the_ca_bundle(site: FixtureSite, tmp_path: Path) -> None:
    argv = ["crawl", site.base + "/", "-o", str(tmp_path / "out"), "--workers", "1"]
    answer = probe([*argv, "--max-pages", "5"])
    assert answer["code"] == 0
    assert answer["pending"] == [True, True]
    assert answer["aiohttp_used"] is False  # the crawl's own client (crawl/httpclient.py)
    assert answer["crawl_context_cas"] == []  # its TLS context is made on the first https URL
    assert answer["ssl_restored"] is True
    assert answer["fresh_context_loaded"] is True  # other contexts load as ever


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
def test_https_is_verified_against_the_default_paths(tmp_path: Path) -> None:
    ca, cert, key = make_certificates(tmp_path)
    with https_site(cert, key) as base:
        argv = ["crawl", base + "/", "-o", str(tmp_path / "trusted"), "--workers", "1"]
        trusted = probe(argv, env={**os.environ, "SSL_CERT_FILE": str(ca)})
        assert trusted["code"] == 0, trusted["stderr"]
        assert f"<loc>{base}/</loc>" in (tmp_path / "trusted" / "sitemap.xml").read_text()
        # The crawl's client made its one context for the handshake, from SSL_CERT_FILE;
        # aiohttp's two contexts (other commands) were never loaded.
        assert trusted["crawl_context_cas"] == [1]
        assert trusted["pending"] == [True, True]

        argv = ["crawl", base + "/", "-o", str(tmp_path / "unknown"), "--workers", "1"]
        env = {k: v for k, v in os.environ.items() if k not in ("SSL_CERT_FILE", "SSL_CERT_DIR")}
        unknown = probe(argv, env=env)
        assert unknown["code"] == 1
        assert "certificate verify failed" in str(unknown["stderr"])
        assert not (tmp_path / "unknown" / "sitemap.xml").exists()
