"""The advertools way to audit a site against its sitemap (the peer of ``sitemapkit audit``).

What advertools' documentation teaches, as one script: ``adv.crawl`` the site
(Scrapy underneath, robots.txt obeyed), ``adv.sitemap_to_df`` the sitemaps
from robots.txt, crawl the listed URLs the site crawl did not reach in list
mode (``follow_links=False``, as ``sitemapkit audit`` does), then compare the
two DataFrames with pandas.  Writes one JSON object: code -> sorted URLs, for
the codes both tools can express.

Usage: python advertools_audit.py START_URL ROBOTS_URL OUT_DIR CONCURRENCY
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import advertools as adv
import pandas as pd


def _crawl(urls: list[str] | str, out: Path, follow: bool, n: int) -> pd.DataFrame:
    out.unlink(missing_ok=True)
    adv.crawl(
        urls,
        str(out),
        follow_links=follow,
        # Scrapy >= 2.13 drops a start URL whose allowed domain carries a port
        allowed_domains=["127.0.0.1"],
        custom_settings={
            "CONCURRENT_REQUESTS": n,
            "CONCURRENT_REQUESTS_PER_DOMAIN": n,
            "ROBOTSTXT_OBEY": True,
            "LOG_LEVEL": "WARNING",
            "HTTPERROR_ALLOW_ALL": True,
        },
    )
    return pd.read_json(out, lines=True) if out.exists() and out.stat().st_size else pd.DataFrame()


def _col(df: pd.DataFrame, name: str) -> pd.Series:
    return df[name] if name in df.columns else pd.Series([None] * len(df), index=df.index)


def main() -> int:
    start, robots, out_dir, n = sys.argv[1], sys.argv[2], Path(sys.argv[3]), int(sys.argv[4])
    out_dir.mkdir(parents=True, exist_ok=True)
    site = _crawl(start, out_dir / "site.jl", True, n)
    sitemap = adv.sitemap_to_df(robots)
    listed = set(sitemap["loc"].dropna())

    # the URL each row was asked for: the first of its redirect chain, else the URL itself
    def asked(df: pd.DataFrame) -> pd.Series:
        chains = _col(df, "redirect_urls")
        return pd.Series(
            [
                c.split("@@")[0] if isinstance(c, str) and c else u
                for c, u in zip(chains, df["url"], strict=False)
            ],
            index=df.index,
        )

    seen = set(asked(site)) | set(site["url"]) if len(site) else set()
    rest = sorted(u for u in listed - seen if u.startswith(start.split("/", 3)[0] + "//"))
    extra = _crawl(rest, out_dir / "listed.jl", False, n) if rest else pd.DataFrame()
    crawl = pd.concat([site, extra], ignore_index=True) if len(extra) else site
    # the comparison the docs teach works on URLs without their #fragment
    crawl["url"] = crawl["url"].astype(str).str.split("#").str[0]
    crawl["asked"] = asked(crawl)
    is_listed = crawl["asked"].isin(listed)
    status = pd.to_numeric(_col(crawl, "status"), errors="coerce")
    redirected = _col(crawl, "redirect_urls").notna()
    robots_meta = _col(crawl, "meta_robots").fillna("").astype(str).str.lower()
    robots_head = _col(crawl, "resp_headers_X-Robots-Tag").fillna("").astype(str).str.lower()
    noindex = robots_meta.str.contains("noindex") | robots_head.str.contains("noindex")
    canonical = _col(crawl, "canonical").fillna("").astype(str)
    ctype = _col(crawl, "resp_headers_Content-Type").fillna("").astype(str)
    html = ctype.str.contains("html")
    canonicalised = (canonical != "") & (canonical != crawl["url"])
    healthy = (status == 200) & ~redirected & ~noindex & ~canonicalised & html
    found = {
        "listed-redirect": crawl.loc[is_listed & redirected, "asked"],
        "listed-error": crawl.loc[is_listed & ~redirected & (status >= 400), "asked"],
        "listed-noindex": crawl.loc[is_listed & ~redirected & (status == 200) & noindex, "asked"],
        "listed-canonicalised": crawl.loc[
            is_listed & ~redirected & (status == 200) & ~noindex & canonicalised, "asked"
        ],
        "listed-not-html": crawl.loc[is_listed & ~redirected & (status == 200) & ~html, "asked"],
        "missing-indexable": crawl.loc[
            ~is_listed & healthy & (crawl.index < len(site)) & ~crawl["url"].isin(listed), "url"
        ],
    }
    result = {code: sorted(set(s.dropna())) for code, s in found.items()}
    result["fetched"] = sorted(set(crawl["asked"]))
    (out_dir / "findings.json").write_text(json.dumps(result, indent=1))
    print(json.dumps({code: len(urls) for code, urls in result.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
