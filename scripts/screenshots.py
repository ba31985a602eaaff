"""Screenshots for the README (``make screenshots``): the visual map and every app view.

The map: builds the map of a small, realistic fixture shop with
``write_visual_map``, opens it from file:// in Debian's Chromium through
Playwright, drives the real controls (layout, expand to depth, search).
The app: serves the bundled demo site, runs ``sitemapkit serve`` on a free
port with a scratch workspace, crawls the demo from the New crawl form (the
Progress shot is taken while the crawl runs), runs the audit from the app and
shoots each view. PNGs go to docs/screenshots/.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from sitemapkit.app.launch import served_app
from sitemapkit.demo.server import serve_demo
from sitemapkit.model import PageRecord
from sitemapkit.visual.page import write_visual_map

REPO = Path(__file__).resolve().parent.parent
HOME = "https://www.riverside-outdoor.example/"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
    "--disable-background-networking", "--disable-component-update", "--no-first-run",
    "--disable-sync",
]  # fmt: skip

SITE: dict[str, tuple[str, dict[str, list[str]]]] = {
    "products": ("Shop all gear", {
        "tents": ["Ridge 2 tent", "Summit 4 tent", "Trail bivvy", "Family dome 6"],
        "backpacks": ["Day pack 20 L", "Trek pack 55 L", "Kids' pack"],
        "footwear": ["Trail runner", "Alpine boot", "Camp sandal"],
        "clothing": ["Rain shell", "Fleece mid-layer", "Merino base layer"],
    }),
    "blog": ("Field notes", {
        "2025": ["Packing for a wet weekend", "Five quiet lakes"],
        "2026": ["Winter camping basics", "Choosing a sleeping bag", "Trail etiquette"],
    }),
    "help": ("Help centre", {
        "shipping": ["Delivery times", "International orders"],
        "returns": ["Start a return", "Warranty claims"],
    }),
    "stores": ("Our stores", {"": ["Lakeside", "City centre", "Harbour"]}),
    "about": ("About us", {"": ["Our story", "Careers", "Press"]}),
}  # fmt: skip


def slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-").replace("--", "-")


def fixture_records() -> list[PageRecord]:
    recs = [
        PageRecord(
            HOME,
            status=200,
            depth=0,
            title="Riverside Outdoor Co.",
            indexable=True,
            outlinks=24,
            lastmod="2026-11-10",
            lastmod_source="sitemap",
        )
    ]
    n = 0
    for section, (title, subs) in SITE.items():
        s_url = f"{HOME}{section}/"
        recs.append(
            PageRecord(
                s_url,
                status=200,
                depth=1,
                title=title,
                indexable=True,
                inlinks=40,
                extra={"found_from": HOME},
                lastmod="2026-10-02",
            )
        )
        for sub, pages in subs.items():
            parent = s_url
            if sub:
                parent = f"{s_url}{sub}/"
                recs.append(
                    PageRecord(
                        parent,
                        status=200,
                        depth=2,
                        title=sub.title(),
                        indexable=True,
                        extra={"found_from": s_url},
                        lastmod="2026-06-15",
                    )
                )
            for page in pages:
                n += 1
                status = 404 if n % 11 == 0 else 301 if n % 13 == 0 else 200
                noindex = n % 9 == 0 and status == 200
                # every third page is linked from the home page ("featured"), so the
                # crawl-depth tree differs from the folder tree, as on real sites
                featured = n % 3 == 0
                recs.append(PageRecord(
                    f"{parent}{slug(page)}", status=status,
                    depth=1 if featured else 3 if sub else 2, title=page,
                    indexable=status == 200 and not noindex,
                    reason=None if status == 200 and not noindex else
                    ("noindex" if noindex else f"http-{status}"),
                    inlinks=3 + n % 7, outlinks=20 + n % 5,
                    extra={"found_from": HOME if featured else parent},
                    lastmod=f"202{4 + n % 3}-{1 + n % 12:02d}-0{1 + n % 9}",
                ))  # fmt: skip
    return recs


def shoot(page: Page, layout: str, out: Path, depth: int, focus_search: str | None) -> None:
    page.select_option("#layout", layout)
    page.fill("#depth-n", str(depth))
    page.click("#expand-depth")
    if focus_search:
        page.fill("#search", focus_search)
        page.press("#search", "Enter")
    page.click("#fit")
    page.wait_for_timeout(100)
    page.screenshot(path=str(out))


def shown(path: Path) -> Path:
    return path.relative_to(REPO) if path.is_relative_to(REPO) else path


def _wait_text(page: Page, selector: str, pattern: str, timeout: float = 120_000) -> None:
    page.wait_for_function(
        "([s, p]) => new RegExp(p).test((document.querySelector(s) || {}).textContent || '')",
        arg=[selector, pattern],
        timeout=timeout,
    )


def app_shots(page: Page, url: str, demo: str, out: Path) -> None:
    """Every view of the app on a crawl of the demo site, in the order a user meets them."""

    def snap(name: str) -> None:
        page.wait_for_timeout(300)
        target = out / f"app-{name}.png"
        page.screenshot(path=str(target))
        print(f"wrote {shown(target)}")

    page.goto(url)
    page.wait_for_selector("html[data-ready='1']")
    page.get_by_role("link", name="New crawl").first.click()
    page.get_by_label("Address").fill(demo)
    page.get_by_label("Rate (requests/s)").fill("12")
    snap("new-crawl")
    page.get_by_role("button", name="Start crawl").click()
    page.wait_for_function(
        "() => +document.querySelector('main').getAttribute('data-fetched') >= 40", timeout=120_000
    )
    page.wait_for_timeout(600)
    snap("progress")
    _wait_text(page, ".job-message", "finished")
    page.keyboard.press("6")
    page.get_by_role("button", name="Run audit").click()
    page.locator("table.codes button[data-code]").first.wait_for(timeout=120_000)
    page.locator("table.codes button[data-code]").first.click()
    page.locator(".findings tbody tr").first.wait_for()
    snap("audit")
    page.keyboard.press("1")
    page.locator("a.site-link").wait_for()
    snap("sites")
    page.keyboard.press("4")
    frame = page.frame_locator("iframe.map-frame")
    frame.locator("html[data-ready='1']").wait_for()
    frame.locator("#search").fill("lamps")
    frame.locator("#search").press("Enter")
    snap("map")
    page.get_by_role("link", name="Pages", exact=True).click()  # keys go to the map's frame
    page.locator(".vt[data-ready='1']").wait_for()
    page.locator(".vt-body .vt-row").nth(1).click()
    page.locator(".page-detail dl").wait_for()
    snap("pages")
    page.get_by_role("link", name="Sitemaps", exact=True).click()
    page.get_by_role("link", name="Download zip").wait_for()
    page.locator("code.robots").wait_for()
    snap("sitemaps")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--only", choices=("map", "app"), help="Shoot only the map or the app.")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    if args.only != "app":
        errors += map_shots(args)
    if args.only != "map":
        errors += run_app_shots(args)
    if errors:
        print("page errors: " + "; ".join(errors), file=sys.stderr)
        return 1
    return 0


def run_app_shots(args: argparse.Namespace) -> list[str]:
    errors: list[str] = []
    with (
        tempfile.TemporaryDirectory() as tmp,
        serve_demo() as demo,
        served_app(Path(tmp) / "workspace") as url,
        sync_playwright() as pw,
    ):
        ctx = pw.chromium.launch_persistent_context(
            str(Path(tmp) / "profile"), executable_path=args.chromium, args=CHROMIUM_ARGS,
            headless=True, viewport={"width": 1400, "height": 860},
        )  # fmt: skip
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        app_shots(page, url, demo, args.out)
        ctx.close()
    return errors


def map_shots(args: argparse.Namespace) -> list[str]:
    errors: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        html = write_visual_map(
            fixture_records(),
            Path(tmp) / "map.html",
            title="Riverside Outdoor Co.",
            source_kind="crawl",
        )
        with sync_playwright() as pw:
            ctx = pw.chromium.launch_persistent_context(
                str(Path(tmp) / "profile"), executable_path=args.chromium, args=CHROMIUM_ARGS,
                headless=True, viewport={"width": 1400, "height": 860},
            )  # fmt: skip
            page = ctx.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(html.as_uri())
            page.wait_for_selector("html[data-ready='1']")
            shots = [
                ("horizontal", 2, None),
                ("vertical", 2, None),
                ("radial", 3, None),
            ]
            for layout, depth, search in shots:
                target = args.out / f"visual-{layout}.png"
                shoot(page, layout, target, depth, search)
                print(f"wrote {shown(target)}")
            page.select_option("#view", "depth")
            page.select_option("#color", "status")
            shoot(page, "vertical", args.out / "visual-depth.png", 2, None)
            print(f"wrote {shown(args.out / 'visual-depth.png')}")
            page.select_option("#view", "path")
            page.select_option("#layout", "horizontal")
            page.select_option("#color", "indexability")
            page.fill("#search", "sleeping")
            page.press("#search", "Enter")
            target = args.out / "visual-search-details.png"
            page.screenshot(path=str(target))
            print(f"wrote {shown(target)}")
            ctx.close()
    return errors


if __name__ == "__main__":
    sys.exit(main())
