"""Re-crawl benchmark: a second run over unchanged JDK 17 API docs, ours vs Scrapy's HTTP cache.

Issue 12's targets, measured as users run them (the whole CLI process, one run):

* ``sitemapkit crawl URL --db site.sqlite`` run twice over the unchanged site: the second
  run must download <= 5% of the first run's bytes and take <= 40% of its time;
* Scrapy doing the same second pass with ``HTTPCACHE_ENABLED`` and
  ``HTTPCACHE_POLICY = 'scrapy.extensions.httpcache.RFC2616Policy'`` (its cache filled by a
  first pass; the issue's ``scrapy.extras`` path does not exist in Scrapy 2.x): ours must
  reach >= 5x its pages/s.

The site is Debian's ``openjdk-17-doc`` (~10,100 HTML pages; unpacked once into
bench/.scratch by ``crawl_bench.unpack``), served by nginx on 127.0.0.1 from
``crawl_bench.nginx_conf``.  nginx answers ``304`` to ``If-None-Match`` /
``If-Modified-Since`` for unchanged files, as it does for any static file.  It also sends
``Cache-Control: max-age=0`` here, so that a second pass is a *revalidation* for both
crawlers: without it, RFC2616Policy's heuristic freshness (10% of the file's age, months
for these files) would let Scrapy answer from its cache without asking the server at all,
which is not a re-crawl; and with ``no-cache`` Scrapy 2.19 refetches every page in full
without validators (its policy returns before setting them), which is not a fair one.
Bytes are counted twice: by nginx (``$body_bytes_sent`` in its access log, per run) and
by our store (``sitemapkit history``).

Scrapy runs in a scratch venv (``bench/.scratch/venv-scrapy``), with the spider of the
crawl benchmark (``peers/scrapy_spider.py``), at the same concurrency as ours.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c
from crawl_bench import SITES, list_pages, nginx_conf, sitemap_pages, unpack

SITE = "openjdk-17-doc"
SCRAPY = "scrapy==2.19.0"
#: The issue writes ``scrapy.extras.httpcache``; Scrapy 2.x has the policy in ``extensions``.
RFC2616 = "scrapy.extensions.httpcache.RFC2616Policy"
#: ``combined`` log lines: the status and body bytes after the quoted request.
_LOG_LINE = re.compile(r'" (\d{3}) (\d+) ')


@dataclass
class Pass:
    """One crawl pass: the measured process, the pages it listed, what nginx sent."""

    who: str
    m: c.Measurement
    pages: int
    body_bytes: int
    answers: dict[str, int]

    @property
    def rate(self) -> float:
        return self.pages / self.m.wall_s if self.m.wall_s > 0 else 0.0


class AccessLog:
    """What nginx sent since the last call (the bench runs one crawler at a time)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = path.stat().st_size if path.exists() else 0

    def since_last(self) -> tuple[int, dict[str, int]]:
        total, answers = 0, {}
        with self.path.open("rb") as fh:
            fh.seek(self.offset)
            data = fh.read()
            self.offset = fh.tell()
        for line in data.decode("utf-8", "replace").splitlines():
            m = _LOG_LINE.search(line)
            if m:
                total += int(m.group(2))
                answers[m.group(1)] = answers.get(m.group(1), 0) + 1
        return total, answers


def ours_pass(label: str, url: str, d: Path, n: int, log: AccessLog) -> Pass:
    cmd = [
        str(c.our_cli()),
        "crawl",
        url,
        "--db",
        str(d / "ours.sqlite"),
        "-o",
        str(d / "ours-out"),
    ]
    cmd += ["--concurrency", str(n), "--per-host", str(n)]
    m = c.run_measured(
        label, cmd, stdout=d / f"{label}.out", stderr=d / f"{label}.err", timeout=3600
    )
    sent, answers = log.since_last()
    return Pass(label, m, len(sitemap_pages(d / "ours-out")), sent, answers)


def scrapy_pass(label: str, url: str, d: Path, n: int, scrapy_bin: Path, log: AccessLog) -> Pass:
    pages = d / f"{label}.txt"
    pages.unlink(missing_ok=True)
    cmd = [str(scrapy_bin / "scrapy"), "runspider", str(c.BENCH_DIR / "peers" / "scrapy_spider.py")]
    cmd += ["-a", f"start_url={url}", "-a", f"out={pages}"]
    cmd += ["-s", f"CONCURRENT_REQUESTS={n}", "-s", f"CONCURRENT_REQUESTS_PER_DOMAIN={n}"]
    cmd += ["-s", "HTTPCACHE_ENABLED=True", "-s", f"HTTPCACHE_POLICY={RFC2616}"]
    cmd += ["-s", f"HTTPCACHE_DIR={d / 'scrapy-cache'}"]
    m = c.run_measured(label, cmd, cwd=d, stderr=d / f"{label}.log", timeout=3600)
    sent, answers = log.since_last()
    return Pass(label, m, len(list_pages(pages)), sent, answers)


def store_bytes(db: Path) -> list[int]:
    """Body bytes per run, as ``sitemapkit history`` reports them."""
    out = subprocess.run(
        [str(c.our_cli()), "history", "--db", str(db), "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
    )
    return [int(json.loads(line)["bytes"] or 0) for line in out.stdout.splitlines()]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--concurrency", "-n", type=int, default=16)
    ap.add_argument(
        "--repeat", type=int, default=1, help="second passes per crawler; the fastest counts"
    )
    ap.add_argument("--skip-peers", action="store_true", help="ours only (no Scrapy)")
    ap.add_argument("--quick", action="store_true", help="the PostgreSQL 15 manual (1,170 pages)")
    args = ap.parse_args()
    site = "postgresql-doc-15" if args.quick else SITE
    load_start = c.machine_note()
    n = args.concurrency
    c.ensure_apt("nginx")
    root = unpack(SITES[site])
    port = c.free_port()
    work = c.SCRATCH / "recrawl-out"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    access = work / "access.log"
    extra = f'    add_header Cache-Control "max-age=0";\n    access_log {access} combined;\n'
    conf = nginx_conf({port: root}, name="nginx-recrawl", extra={port: extra})
    scrapy_bin = None if args.skip_peers else c.scratch_venv("scrapy", [SCRAPY])
    url = f"http://127.0.0.1:{port}{SITES[site].start}"
    nginx = ["nginx", "-p", str(conf.parent), "-c", str(conf), "-g", "daemon off;"]
    ours: list[Pass] = []
    peer: list[Pass] = []
    with c.background(nginx, port, work / "nginx.out"):
        log = AccessLog(access)
        ours.append(ours_pass("sitemapkit run 1", url, work, n, log))
        ours.extend(
            ours_pass(f"sitemapkit run {i + 2}", url, work, n, log) for i in range(args.repeat)
        )
        if scrapy_bin is not None:
            peer.append(scrapy_pass("scrapy pass 1", url, work, n, scrapy_bin, log))
            peer.extend(
                scrapy_pass(f"scrapy pass {i + 2}", url, work, n, scrapy_bin, log)
                for i in range(args.repeat)
            )
    text = report(site, ours, peer, store_bytes(work / "ours.sqlite"), n, scrapy_bin, load_start)
    print(text)
    c.save_results(
        f"recrawl_bench{'_quick' if args.quick else ''}",
        {
            "site": site,
            "concurrency": n,
            "passes": [
                {
                    **p.m.as_dict(),
                    "pages": p.pages,
                    "body_bytes": p.body_bytes,
                    "answers": p.answers,
                }
                for p in ours + peer
            ],
        },
        text,
    )
    return 0


def report(
    site: str,
    ours: list[Pass],
    peer: list[Pass],
    stored: list[int],
    n: int,
    scrapy_bin: Path | None,
    load_start: str,
) -> str:
    lines = [
        f"Re-crawl benchmark: {site} unchanged, second run vs first; Scrapy RFC2616Policy (c={n})",
        f"ours: {c.our_revision()}; "
        + (f"Scrapy {c.pip_version(scrapy_bin, 'scrapy')}; " if scrapy_bin else "")
        + c.tool_version(["nginx", "-v"]),
        f"{load_start} at start; {c.machine_note()} at end",
        "",
    ]
    rows = [
        [p.who, p.pages, p.m.wall_s, p.rate, p.body_bytes, _answers(p), p.m.peak_mb, p.m.returncode]
        for p in ours + peer
    ]
    heads = ["pass", "pages", "wall s", "pages/s", "body bytes (nginx)", "answers", "peak MB"]
    lines.append(c.table([*heads, "exit"], rows))
    lines.append(f"store's body bytes per run (sitemapkit history): {stored}")
    lines.append("")
    first, second = ours[0], min(ours[1:], key=lambda p: p.m.wall_s)
    byte_share = second.body_bytes / first.body_bytes if first.body_bytes else 1.0
    time_share = second.m.wall_s / first.m.wall_s if first.m.wall_s else 1.0
    lines.append(f"second run bytes / first: {100 * byte_share:.2f}% (target <= 5%)")
    lines.append(f"second run time / first:  {100 * time_share:.1f}% (target <= 40%)")
    verdicts = {"bytes": byte_share <= 0.05, "time": time_share <= 0.40}
    same = second.pages == first.pages
    lines.append(f"same sitemap size both runs: {first.pages:,} / {second.pages:,}")
    if len(peer) > 1:
        theirs = min(peer[1:], key=lambda p: p.m.wall_s)
        ratio = second.rate / theirs.rate if theirs.rate else 0.0
        lines.append(
            f"ours / Scrapy second-pass pages/s: {second.rate:.0f} / {theirs.rate:.0f} = "
            f"{ratio:.2f}x (target >= 5x)"
        )
        verdicts["scrapy"] = ratio >= 5
    lines.append("")
    lines.append("Targets")
    lines.append(
        f"  second run downloads <= 5% of the first's bytes: {c.verdict(verdicts['bytes'])}"
    )
    lines.append(f"  second run takes <= 40% of the first's time: {c.verdict(verdicts['time'])}")
    lines.append(f"  >= 5x Scrapy RFC2616Policy's pages/s: {c.verdict(verdicts.get('scrapy'))}")
    lines.append(f"  the same sitemap both runs: {c.verdict(same)}")
    return "\n".join(lines)


def _answers(p: Pass) -> str:
    return " ".join(f"{k}:{v:,}" for k, v in sorted(p.answers.items()))


if __name__ == "__main__":
    sys.exit(main())
