"""A realistic little shop site as page records, hostile titles included (test data, no fixtures).

Shared by the model, page and browser tests so they all look at the same site:
sections with subsections, a folder without a page, query forms, a deep page
six levels down, a 1,200-product catalog (for "+N more"), every status class,
excluded pages with reasons, and titles that try to break out of the page.
"""

from __future__ import annotations

from sitemapkit.model import PageRecord

HOME = "https://shop.example/"
SCRIPT_TITLE = "</script><script>window.__pwned=1</script>"
IMG_TITLE = '<img src=x onerror="window.__pwned=2">'
DEEP_URL = "https://shop.example/help/guides/setup/advanced/network/needle-page"
DEEP_TITLE = "Needle: configuring the proxy"


def shop_records(catalog: int = 1200) -> list[PageRecord]:
    recs: list[PageRecord] = [
        PageRecord(
            HOME,
            status=200,
            depth=0,
            title="Example Shop",
            indexable=True,
            outlinks=9,
            lastmod="2026-11-01",
            lastmod_source="sitemap",
            content_type="text/html",
        )
    ]

    def page(
        url: str, parent: str, depth: int, title: str | None, status: int = 200, **kw: object
    ) -> None:
        ok = status == 200 and kw.get("reason") is None
        fields: dict[str, object] = {
            "status": status,
            "depth": depth,
            "title": title,
            "indexable": ok,
            "reason": None if ok else kw.pop("reason", f"http-{status}"),
            "inlinks": 3,
            "outlinks": 5,
            "lastmod": kw.pop("lastmod", "2026-10-01"),
            "content_type": "text/html",
        }
        fields.update(kw)
        recs.append(PageRecord(url, extra={"found_from": parent}, **fields))  # type: ignore[arg-type]

    sections = {
        "products": ["shoes", "bags", "hats", "socks"],
        "blog": ["2024", "2025", "2026"],
        "help": ["shipping", "returns", "guides"],
        "about": ["team", "jobs"],
    }
    for section, subs in sections.items():
        s_url = f"{HOME}{section}/"
        page(s_url, HOME, 1, section.title())
        for j, sub in enumerate(subs):
            sub_url = f"{s_url}{sub}/"
            page(
                sub_url,
                s_url,
                2,
                f"{section.title()}: {sub}",
                lastmod=f"202{4 + j % 3}-0{1 + j}-15",
            )
            for k in range(4):
                status = (200, 200, 301, 404)[k] if section == "products" else 200
                extra: dict[str, object] = {}
                if status == 301:
                    extra["redirect_to"] = f"{sub_url}item-{k}-new"
                page(f"{sub_url}item-{k}", sub_url, 3, f"{sub.title()} item {k}", status, **extra)
    page(
        f"{HOME}products/shoes/item-0?colour=red",
        f"{HOME}products/shoes/item-0",
        4,
        "Red shoe",
        reason="canonicalised-to",
        canonical=f"{HOME}products/shoes/item-0",
    )
    page(f"{HOME}about/private", f"{HOME}about/", 2, "Staff only", reason="noindex")
    page(f"{HOME}about/team/lead", f"{HOME}about/team/", 3, SCRIPT_TITLE)
    page(f"{HOME}about/team/designer", f"{HOME}about/team/", 3, IMG_TITLE)
    page(f"{HOME}help/guides/setup/advanced/", f"{HOME}help/guides/", 3, "Advanced setup")
    page(DEEP_URL, f"{HOME}help/guides/setup/advanced/", 4, DEEP_TITLE)
    page(f"{HOME}status-500", HOME, 1, "Broken", 500)
    for i in range(catalog):
        page(
            f"{HOME}catalog/p{i:04d}",
            HOME,
            1,
            f"Catalog product {i}",
            lastmod=f"20{20 + i % 7}-0{1 + i % 9}-01",
        )
    return recs
