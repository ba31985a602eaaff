#!/usr/bin/env python3
"""What a page costs to read, next to what the HTML parser alone costs (issue 13).

Loops the real parse path, :func:`sitemapkit.crawl.parseworker.parse_page` as the parse
process runs it (the facts, and ``--render auto``'s ``looks_scripted`` verdict), over
every HTML file of the crawl benchmark's two sites (``bench/.scratch/sites``, unpacked
by ``crawl_bench.py``): the PostgreSQL 15 manual and the JDK 17 API docs.  The floor is
Lexbor's parse alone of the same bytes (``LexborHTMLParser(body)``): what no Python
around it can save.

Each measurement is a child process (``--child``) that reads the files in chunks of
about 32 MB and times only the loop over a chunk, in CPU seconds of that process
(``time.process_time``), so the figures say something on a shared machine.
``--before REF`` runs the tree of git ref REF (exported as ``startup_bench.py`` does,
imported through ``PYTHONPATH``) in the same run, alternating with this checkout child
by child (floor, this, REF, this, REF ...), and checks that both give every page the
same facts and fingerprint (a digest of each page's :class:`PageFacts` fields and
verdict): a fingerprint that moves would move every page's lastmod on the first
re-crawl after an upgrade.  Medians of ``--rounds`` are printed with the ratios.

    .venv/bin/python bench/extract_bench.py --before main~3
    .venv/bin/python bench/extract_bench.py --sites postgresql-doc-15 --rounds 5
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from email.utils import formatdate
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c

#: Served folder of each site inside ``bench/.scratch/sites`` (as crawl_bench.SITES).
SITES = {
    "postgresql-doc-15": "postgresql-doc-15/usr/share/doc/postgresql-doc-15/html",
    "openjdk-17-doc": "openjdk-17-doc/usr/share/doc/openjdk-17-jre-headless/api",
}
#: Bytes of pages read before a timed loop over them (the reads are not timed).
CHUNK_BYTES = 32 << 20
#: The origin the pages are "fetched" from (what the crawl's URLs look like).
ORIGIN = "http://127.0.0.1:8080/"
#: The fixed ``Date`` of every answer, as nginx would send it.
SERVED = "Wed, 25 Nov 2026 04:40:00 GMT"


def site_root(name: str) -> Path:
    root = c.SCRATCH / "sites" / SITES[name]
    if not root.is_dir():
        raise SystemExit(f"{root} missing: run bench/crawl_bench.py once to unpack the sites")
    return root


def page_files(root: Path, limit: int | None) -> list[Path]:
    files = sorted(p for p in root.rglob("*.html") if p.is_file())
    return files[:limit] if limit else files


def nginx_headers(path: Path, size: int) -> list[tuple[str, str]]:
    """The header lines nginx sends for a static HTML file."""
    mtime = path.stat().st_mtime
    return [
        ("Server", "nginx/1.22.1"),
        ("Date", SERVED),
        ("Content-Type", "text/html"),
        ("Content-Length", str(size)),
        ("Last-Modified", formatdate(mtime, usegmt=True)),
        ("Connection", "keep-alive"),
        ("ETag", f'"{int(mtime):x}-{size:x}"'),
        ("Accept-Ranges", "bytes"),
    ]


def chunks(
    root: Path, files: list[Path]
) -> Iterator[list[tuple[bytes, str, list[tuple[str, str]]]]]:
    """The pages, about :data:`CHUNK_BYTES` at a time: ``(body, url, header lines)``."""
    batch: list[tuple[bytes, str, list[tuple[str, str]]]] = []
    held = 0
    for path in files:
        body = path.read_bytes()
        url = ORIGIN + path.relative_to(root).as_posix()
        batch.append((body, url, nginx_headers(path, len(body))))
        held += len(body)
        if held >= CHUNK_BYTES:
            yield batch
            batch, held = [], 0
    if batch:
        yield batch


def _digest(parsed: Any) -> str:
    """One page's facts and verdict as a digest, independent of how they pickle."""
    facts, scripted = parsed
    values = [getattr(facts, name) for name in facts.__dataclass_fields__]
    return hashlib.blake2b(repr((values, scripted)).encode(), digest_size=12).hexdigest()


def child(kind: str, site: str, limit: int | None) -> dict[str, Any]:
    """One measurement in this process: ``floor`` (the parse alone) or ``extract``."""
    from selectolax.lexbor import LexborHTMLParser

    from sitemapkit.crawl.headers import Headers
    from sitemapkit.crawl.parseworker import parse_page
    from sitemapkit.crawl.urlnorm import QueryPolicy

    root = site_root(site)
    policy = QueryPolicy()
    cpu = 0.0
    pages = 0
    digests: list[str] = []
    for batch in chunks(root, page_files(root, limit)):
        if kind == "floor":
            start = time.process_time()
            for body, _url, _lines in batch:
                LexborHTMLParser(body)
            cpu += time.process_time() - start
        else:
            answers = []
            start = time.process_time()
            for body, url, lines in batch:
                answers.append(parse_page(body, url, Headers(lines), policy, True))
            cpu += time.process_time() - start
            digests += map(_digest, answers)
        pages += len(batch)
    return {"pages": pages, "cpu_s": cpu, "digests": digests}


def run_child(kind: str, site: str, limit: int | None, src: Path | None) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", kind, "--sites", site]
    if limit:
        cmd += ["--limit", str(limit)]
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{kind} child failed ({site}):\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def us_per_page(runs: list[dict[str, Any]]) -> float:
    return statistics.median(r["cpu_s"] / max(1, r["pages"]) * 1e6 for r in runs)


def measure_site(site: str, rounds: int, limit: int | None, before: Path | None) -> dict[str, Any]:
    """Floor, this checkout and (``before``) the other tree, alternating child by child."""
    runs: dict[str, list[dict[str, Any]]] = {"floor": [], "after": [], "before": []}
    for _ in range(rounds):
        runs["floor"].append(run_child("floor", site, limit, None))
        runs["after"].append(run_child("extract", site, limit, None))
        if before is not None:
            runs["before"].append(run_child("extract", site, limit, before))
        c.log(f"{site}: round done, {c.machine_note()}")
    out: dict[str, Any] = {
        "pages": runs["after"][0]["pages"],
        "floor_us": us_per_page(runs["floor"]),
        "after_us": us_per_page(runs["after"]),
        "runs_us": {
            k: [round(r["cpu_s"] / max(1, r["pages"]) * 1e6, 1) for r in v] for k, v in runs.items()
        },
        "load": c.machine_note(),
    }
    if before is not None:
        mine, theirs = runs["after"][0]["digests"], runs["before"][0]["digests"]
        out["before_us"] = us_per_page(runs["before"])
        out["differing_pages"] = sum(a != b for a, b in zip(mine, theirs, strict=True))
    return out


def report(results: dict[str, dict[str, Any]], before: str | None, start_load: str) -> str:
    headers = ["site", "pages", "floor (parse) us/page", "ours us/page", "ours / floor"]
    if before:
        headers += [f"{before} us/page", f"ours / {before}", "pages with other facts"]
    rows = []
    for site, r in results.items():
        row: list[object] = [
            site,
            r["pages"],
            f"{r['floor_us']:.0f}",
            f"{r['after_us']:.0f}",
            c.ratio(r["after_us"], r["floor_us"]),
        ]
        if before:
            row += [f"{r['before_us']:.0f}", c.ratio(r["after_us"], r["before_us"])]
            row.append(r["differing_pages"])
        rows.append(row)
    title = "parse_page (extract_page + looks_scripted) CPU per page, medians of the rounds"
    loads = "; ".join(f"{s}: {r['load']}" for s, r in results.items())
    return "\n".join(
        [c.table(headers, rows, title), f"{start_load} at start; after each site: {loads}"]
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sites", nargs="*", choices=sorted(SITES), help="default: both")
    ap.add_argument("--rounds", type=int, default=3, help="children of each kind (default 3)")
    ap.add_argument("--limit", type=int, help="only the first N pages of each site (sorted)")
    ap.add_argument("--before", metavar="REF", help="also the tree of git ref REF, alternating")
    ap.add_argument("--quick", action="store_true", help="the PostgreSQL manual, 2 rounds")
    ap.add_argument("--child", choices=["floor", "extract"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.sites[0], args.limit)))
        return 0
    names = args.sites or (["postgresql-doc-15"] if args.quick else list(SITES))
    rounds = 2 if args.quick else args.rounds
    start_load = c.machine_note()
    before_src = None
    if args.before:
        import startup_bench

        before_src = startup_bench.export_tree(args.before)
    results = {name: measure_site(name, rounds, args.limit, before_src) for name in names}
    text = report(results, args.before, start_load)
    print(text)
    c.save_results(f"extract_bench{'_quick' if args.quick else ''}", {"sites": results}, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
