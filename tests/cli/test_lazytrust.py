"""The CA bundle is read before the first TLS handshake, not at start-up (issue 13).

aiohttp fills two SSL contexts from the system CA bundle when it is imported (29 %
of a whole one-page crawl).  The CLI defers those loads to the first handshake
(:mod:`sitemapkit.lazytrust`).  These tests run the real command in a fresh
interpreter: a plain-http crawl never reads the bundle, and an https crawl
verifies certificates exactly as before, against the default verify paths
(``SSL_CERT_FILE`` is honoured, an unknown CA is refused).
"""

from __future__ import annotations

import json
import os
import shutil
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from crawl.fixture_site import FixtureSite

#: Run the CLI, then say what became of aiohttp's default contexts and of ``ssl``.
_PROBE = """
import json, ssl, sys
from sitemapkit.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
from aiohttp import connector
print(json.dumps({
    "code": code,
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
    assert answer["ssl_restored"] is True
    assert answer["fresh_context_loaded"] is True  # other contexts load as ever


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def make_certificates(folder: Path) -> tuple[Path, Path, Path]:
    """A test CA and a server certificate it signed for 127.0.0.1 (EC keys: fast)."""
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    _openssl(
        "req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
        "-subj", "/CN=sitemapkit test CA",
        "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        cwd=folder,
    )  # fmt: skip
    _openssl(
        "req", "-new", *ec, "-keyout", "server.key", "-out", "server.csr",
        "-subj", "/CN=127.0.0.1",
        cwd=folder,
    )  # fmt: skip
    (folder / "ext.cnf").write_text(
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n"
        "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n"
    )
    _openssl(
        "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
        "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "ext.cnf",
        cwd=folder,
    )  # fmt: skip
    return folder / "ca.pem", folder / "server.pem", folder / "server.key"


class _Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path == "/":
            body, status, kind = b"<html><head><title>Safe</title></head></html>", 200, "text/html"
        else:
            body, status, kind = b"not here", 404, "text/plain"
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def https_site(cert: Path, key: Path) -> Iterator[str]:
    """A real TLS server on 127.0.0.1 presenting ``cert``; yields its base URL."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
def test_https_is_verified_against_the_default_paths(tmp_path: Path) -> None:
    ca, cert, key = make_certificates(tmp_path)
    with https_site(cert, key) as base:
        argv = ["crawl", base + "/", "-o", str(tmp_path / "trusted"), "--workers", "1"]
        trusted = probe(argv, env={**os.environ, "SSL_CERT_FILE": str(ca)})
        assert trusted["code"] == 0, trusted["stderr"]
        assert f"<loc>{base}/</loc>" in (tmp_path / "trusted" / "sitemap.xml").read_text()
        assert trusted["pending"] == [False, True]  # loaded for the handshake, and only it

        argv = ["crawl", base + "/", "-o", str(tmp_path / "unknown"), "--workers", "1"]
        env = {k: v for k, v in os.environ.items() if k not in ("SSL_CERT_FILE", "SSL_CERT_DIR")}
        unknown = probe(argv, env=env)
        assert unknown["code"] == 1
        assert "certificate verify failed" in str(unknown["stderr"])
        assert not (tmp_path / "unknown" / "sitemap.xml").exists()
