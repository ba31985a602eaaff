"""A real TLS server on 127.0.0.1 with a throwaway CA made by the ``openssl`` command."""

from __future__ import annotations

import ssl
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


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
