"""Token, Host, Origin, JSON-only bodies, site ids and static paths, CSP on every response."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitemapkit.app.security import APP_CSP, TOKEN_COOKIE, TOKEN_HEADER

from .conftest import start_client


async def test_every_response_has_the_policy(client) -> None:
    for path in ("/", "/api/info", "/api/sites", "/api/sites/nope", "/static/../x", "/nowhere"):
        resp = await client.get(path)
        assert resp.headers["Content-Security-Policy"] == APP_CSP, path
        assert resp.headers["X-Content-Type-Options"] == "nosniff"
        assert resp.headers["Referrer-Policy"] == "no-referrer"


async def test_dns_rebinding_host_is_refused(client) -> None:
    port = client.server.port
    resp = await client.get("/api/sites", headers={"Host": f"attacker.example:{port}"})
    assert resp.status == 421
    for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
        assert (await client.get("/api/sites", headers={"Host": host})).status == 200
    assert (await client.get("/api/sites", headers={"Host": "127.0.0.1:1"})).status == 421


async def test_cross_site_writes_are_refused(client) -> None:
    own = f"http://127.0.0.1:{client.server.port}"
    body = {"url": "http://127.0.0.1:9/"}
    resp = await client.post("/api/sites", json=body, headers={"Origin": "https://evil.example"})
    assert resp.status == 403
    assert "Origin" in (await resp.json())["error"]
    resp = await client.post("/api/sites", json=body, headers={"Sec-Fetch-Site": "cross-site"})
    assert resp.status == 403
    # a form post (what a page on another site can send without asking) is not JSON
    resp = await client.post("/api/sites", data={"url": "http://127.0.0.1:9/"})
    assert resp.status == 415
    resp = await client.post(
        "/api/sites", data=b'{"url":"x"}', headers={"Content-Type": "text/plain"}
    )
    assert resp.status == 415
    resp = await client.post("/api/sites", json={"url": "nope"}, headers={"Origin": own})
    assert resp.status == 400  # same origin: it reaches the handler, which checks the URL


async def test_site_ids_cannot_name_anything_outside(client, tmp_path: Path) -> None:
    secret = tmp_path / "ws" / "secret"
    secret.mkdir(parents=True)
    (tmp_path / "ws" / "sites").mkdir()
    (tmp_path / "ws" / "sites" / "linked").symlink_to(secret)
    for sid in ("..", "%2e%2e", "..%2fsecret", "linked", "UPPER", "a/b", "-x", "%00"):
        resp = await client.get(f"/api/sites/{sid}/pages")
        assert resp.status == 404, (sid, resp.status)
    listed = await (await client.get("/api/sites")).json()
    assert listed["sites"] == []


async def test_static_files_stay_in_static(client) -> None:
    for path in ("/static/../server.py", "/static/%2e%2e/server.py", "/static/..%2fserver.py"):
        resp = await client.get(path)
        assert resp.status in (403, 404), path
        assert "aiohttp" not in await resp.text()


async def test_token_by_header_or_cookie(tmp_path: Path) -> None:
    client = await start_client(tmp_path / "ws", token="s3cret-token")
    try:
        assert (await client.get("/api/sites")).status == 401
        assert (await client.get("/api/sites", headers={TOKEN_HEADER: "wrong"})).status == 401
        ok = await client.get("/api/sites", headers={TOKEN_HEADER: "s3cret-token"})
        assert ok.status == 200
        info = await (await client.get("/api/info", headers={TOKEN_HEADER: "s3cret-token"})).json()
        assert info["token_required"] is True
        assert (await client.get("/?token=wrong", allow_redirects=False)).status == 401
        visit = await client.get("/?token=s3cret-token&view=map", allow_redirects=False)
        assert visit.status == 303
        assert visit.headers["Location"] == "/?view=map"
        cookie = visit.cookies[TOKEN_COOKIE]
        assert cookie.value == "s3cret-token"
        assert cookie["httponly"]
        assert cookie["samesite"] == "Strict"
        # the client keeps the cookie: later requests need nothing else
        assert (await client.get("/api/sites")).status == 200
    finally:
        await client.close()


def test_serve_off_loopback_makes_and_demands_a_token(tmp_path: Path) -> None:
    """``--host 0.0.0.0`` without ``--token``: one is generated, printed, and required."""
    import re
    import subprocess
    import sys
    import urllib.error
    import urllib.request

    proc = subprocess.Popen(
        [sys.executable, "-m", "sitemapkit", "serve", "--workspace", str(tmp_path / "ws"),
         "--host", "0.0.0.0", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        found = re.fullmatch(r"open (http://127\.0\.0\.1:\d+/)\?token=([\w-]{20,})", line)
        assert found, line
        base, token = found.groups()
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(base + "api/sites", timeout=30)
        refused.value.close()  # it holds the response open
        assert refused.value.code == 401
        asked = urllib.request.Request(base + "api/sites", headers={TOKEN_HEADER: token})
        with urllib.request.urlopen(asked, timeout=30) as resp:
            assert resp.status == 200
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143
    assert "is not loopback: requests need the token" in err
