"""The JSON API over a real crawl of the demo site, started from the API."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
import zipfile
from pathlib import Path

from sitemapkit.app.workspace import site_id_for
from sitemapkit.demo.expected import SITEMAP_PATHS

from .conftest import JSON, crawl


def _paths(urls: list[str], base: str) -> set[str]:
    return {"/" + u.removeprefix(base) for u in urls}


async def test_crawl_from_the_app_is_the_cli_crawl(client, demo, tmp_path: Path) -> None:
    site = await crawl(client, demo)
    sid = site_id_for(demo)
    assert site["id"] == sid
    assert site["start_url"] == demo
    assert site["job"]["exit_code"] == 0, site["job"]
    assert site["job"]["message"].startswith("crawl finished: crawled ")
    assert site["in_sitemap"] == len(SITEMAP_PATHS)
    assert site["sitemap"]["files"] == ["sitemap.xml"]
    assert site["last_run"]["state"] == "finished"
    assert not site["can_resume"]
    listed = await (await client.get("/api/sites")).json()
    assert [s["id"] for s in listed["sites"]] == [sid]
    # the same store the CLI reads: --why works on it from a terminal
    db = tmp_path / "ws" / "sites" / sid / "crawl.sqlite"
    why = subprocess.run(
        [sys.executable, "-m", "sitemapkit", "crawl", "--db", str(db), "--why", "/products/"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert why.returncode == 0
    assert "in the sitemap" in why.stdout
    one = await (await client.get(f"/api/sites/{sid}")).json()
    assert one["config"]["start_url"] == demo
    assert one["runs_list"][0]["state"] == "finished"
    assert "noindex" in one["reasons"]


async def test_pages_are_paged_sorted_filtered_searched(client, demo) -> None:
    await crawl(client, demo)
    sid = site_id_for(demo)
    first = await (await client.get(f"/api/sites/{sid}/pages?limit=5&wait=1")).json()
    assert first["total"] == first["all"] > 100
    assert len(first["rows"]) == 5
    assert first["facets"]["reasons"]["indexable"] == len(SITEMAP_PATHS)
    everything = await (await client.get(f"/api/sites/{sid}/pages?limit=1000")).json()
    urls = [r["url"] for r in everything["rows"]]
    second = await (await client.get(f"/api/sites/{sid}/pages?offset=5&limit=5")).json()
    assert [r["url"] for r in second["rows"]] == urls[5:10]
    by_in = await (
        await client.get(f"/api/sites/{sid}/pages?sort=inlinks&order=desc&limit=3")
    ).json()
    inlinks = [r["inlinks"] for r in by_in["rows"]]
    assert inlinks == sorted(inlinks, reverse=True)
    assert inlinks[0] == max(r["inlinks"] for r in everything["rows"])
    inside = await (await client.get(f"/api/sites/{sid}/pages?reason=indexable&limit=1000")).json()
    assert _paths([r["url"] for r in inside["rows"]], demo) == set(SITEMAP_PATHS)
    noindex = await (await client.get(f"/api/sites/{sid}/pages?reason=noindex")).json()
    assert noindex["total"] == everything["facets"]["reasons"]["noindex"]
    assert all(r["reason"] == "noindex" for r in noindex["rows"])
    missing = await (await client.get(f"/api/sites/{sid}/pages?status=4xx")).json()
    assert missing["total"] >= 1
    assert all(400 <= r["status"] < 500 for r in missing["rows"])
    products = await (await client.get(f"/api/sites/{sid}/pages?section=products")).json()
    assert products["total"]
    assert all("/products/" in r["url"] for r in products["rows"])
    found = await (await client.get(f"/api/sites/{sid}/pages?q=DESK")).json()
    assert found["total"]
    assert all("desk" in (r["url"] + (r["title"] or "")).lower() for r in found["rows"])
    compact = await (await client.get(f"/api/sites/{sid}/pages?format=compact")).json()
    assert len(compact["rows"]) == everything["all"]
    assert compact["columns"][0] == "url"
    assert compact["rows"][0][0] == urls[0]
    bad = await client.get(f"/api/sites/{sid}/pages?sort=evil")
    assert bad.status == 400
    assert "sort" in (await bad.json())["error"]


async def test_csv_export_is_the_inventory(client, demo) -> None:
    await crawl(client, demo)
    sid = site_id_for(demo)
    resp = await client.get(f"/api/sites/{sid}/pages.csv?reason=indexable")
    assert resp.status == 200
    assert resp.content_type == "text/csv"
    rows = list(csv.DictReader(io.StringIO(await resp.text())))
    assert _paths([r["url"] for r in rows], demo) == set(SITEMAP_PATHS)
    assert {r["indexable"] for r in rows} == {"yes"}


async def test_why_map_and_sitemaps(client, demo, tmp_path: Path) -> None:
    await crawl(client, demo)
    sid = site_id_for(demo)
    why = await (await client.get(f"/api/sites/{sid}/why?url=/products/")).json()
    assert why["decision"] == "in the sitemap"
    assert why["found_from"] == demo
    never = await client.get(f"/api/sites/{sid}/why?url=/nowhere-at-all")
    assert never.status == 404
    assert "never seen" in (await never.json())["error"]
    page = await client.get(f"/api/sites/{sid}/map")
    html = await page.text()
    assert page.status == 200
    assert 'id="sitemap-data"' in html
    # the map keeps its own hash-based policy (its inline script), not the app's
    assert page.headers["Content-Security-Policy"].startswith(
        "default-src 'none'; script-src 'sha256-"
    )
    payload = await (await client.get(f"/api/sites/{sid}/map.json")).json()
    assert payload["title"] == f"{sid} site map"
    sets = await (await client.get(f"/api/sites/{sid}/sitemaps")).json()
    assert sets["validation"]["ok"]
    assert sets["validation"]["errors"] == 0
    assert sets["robots_line"] == f"Sitemap: {demo}sitemap.xml"
    assert [f["name"] for f in sets["files"]] == ["sitemap.xml"]
    zipped = await client.get(f"/api/sites/{sid}/sitemaps.zip")
    assert zipped.content_type == "application/zip"
    folder = tmp_path / "unzipped"
    with zipfile.ZipFile(io.BytesIO(await zipped.read())) as zf:
        zf.extractall(folder)
    assert sets["robots_line"] in (folder / "README.txt").read_text()
    check = subprocess.run(
        [sys.executable, "-m", "sitemapkit", "validate", str(folder / "sitemap.xml")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert check.returncode == 0, check.stdout + check.stderr


async def test_publish_writes_only_under_the_publish_root(client, demo, tmp_path: Path) -> None:
    await crawl(client, demo)
    sid = site_id_for(demo)
    done = await client.post(f"/api/sites/{sid}/publish", json={"folder": "www/site"})
    body = await done.json()
    root = tmp_path / "ws" / "public"
    assert done.status == 200, body
    assert body["folder"] == str(root / "www" / "site")
    assert (root / "www" / "site" / "sitemap.xml").read_bytes() == (
        tmp_path / "ws" / "sites" / sid / "out" / "sitemap.xml"
    ).read_bytes()
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "link").symlink_to(outside)
    for folder in ("../escape", "/tmp/abs", "www/../../escape", "link", "link/deeper", ""):
        resp = await client.post(f"/api/sites/{sid}/publish", json={"folder": folder})
        assert resp.status == 400, (folder, await resp.text())
    assert list(outside.iterdir()) == []
    assert not (tmp_path / "ws" / "escape").exists()
    assert not (tmp_path / "escape").exists()


async def test_audit_from_the_app(client, demo) -> None:
    await crawl(client, demo)
    sid = site_id_for(demo)
    before = await (await client.get(f"/api/sites/{sid}/audit")).json()
    assert before == {"ran": False, "codes": [], "job": None}
    resp = await client.post(f"/api/sites/{sid}/audit", data=b"{}", headers=JSON)
    assert resp.status == 202
    from .conftest import wait_idle

    site = await wait_idle(client, sid)
    assert site["job"]["kind"] == "audit", site["job"]
    assert site["job"]["exit_code"] == 0, site["job"]
    view = await (await client.get(f"/api/sites/{sid}/audit")).json()
    codes = {c["code"]: c for c in view["codes"]}
    assert codes, view
    assert site["audit"]["findings"] == sum(c["count"] for c in view["codes"])
    some = view["codes"][0]
    assert some["meaning"]
    assert some["severity"] in ("error", "warning", "info")
    detail = await (await client.get(f"/api/sites/{sid}/audit?code={some['code']}")).json()
    assert detail["findings"]
    assert all(f["code"] == some["code"] for f in detail["findings"])
    assert all(f["evidence"] for f in detail["findings"])
    report = await client.get(f"/api/sites/{sid}/audit.html")
    assert report.status == 200
    assert "sha256-" in report.headers["Content-Security-Policy"]


async def test_conflicts_and_bad_input(client, demo) -> None:
    resp = await client.post("/api/sites", json={"url": "ftp://example.com/"})
    assert resp.status == 400
    assert "http" in (await resp.json())["error"]
    resp = await client.post("/api/sites", json={"url": demo, "max_pages": -3})
    assert resp.status == 400
    assert "max_pages" in (await resp.json())["error"]
    resp = await client.post("/api/sites", json={"url": demo, "shell": "rm -rf /"})
    assert resp.status == 400
    assert "unknown option" in (await resp.json())["error"]
    await crawl(client, demo)
    sid = site_id_for(demo)
    resp = await client.post(f"/api/sites/{sid}/resume", json={})
    assert resp.status == 409
    assert "nothing to resume" in (await resp.json())["error"]
    resp = await client.post(f"/api/sites/{sid}/stop", json={})
    assert resp.status == 409
    resp = await client.get("/api/sites/no-such-site")
    assert resp.status == 404
