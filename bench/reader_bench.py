"""Reader benchmark: ``sitemapkit urls`` / ``validate`` vs ultimate-sitemap-parser and xmllint.

Data (generated once, deterministically, into bench/.scratch/reader-data-*):

* ``urlset.xml``: 50,000 URLs, ~48 MB (under the 52,428,800-byte limit):
  long-ish URLs, two ``image:image`` per URL and reciprocal ``xhtml:link``
  hreflang alternates (en/de pairs + x-default), so the file is valid under
  every rule and the validator has to do all its work. ``urlset.xml.gz``
  is the same file gzipped.
* ``index.xml``: a sitemap index of 20 parts x 50,000 = 1,000,000 unique
  URLs (loc + lastmod), ``part-NN.xml``.

All ``loc`` values live on ``http://127.0.0.1:PORT/`` and a
``python -m http.server`` serves the data folder there, so the network path
(index -> 20 parts over HTTP) is measured as well as plain files.

Peers, in the same run: ultimate-sitemap-parser (PyPI, scratch venv) parsing
the same files and iterating every page; ``xmllint --noout --schema`` with
``../shared/xsd/all.xsd`` (urlsets) and ``siteindex.xsd`` (the index).

Targets (issue 3): urls >= 5x faster than usp; validate within 2x of
xmllint --schema; our peak RSS < 100 MB on the million-URL index.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c

XSD = c.REPO.parent / "shared" / "xsd"
if not XSD.exists():
    XSD = Path("/work/shared/xsd")
GEN_VERSION = "4"
DEFAULT_PORT = int(os.environ.get("BENCH_READER_PORT", "8765"))

NS = (
    'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
    'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
    'xmlns:xhtml="http://www.w3.org/1999/xhtml"'
)


def _lastmod(i: int) -> str:
    # Spread over 2023-2024 so lastmod-uniform never fires.
    day = i % 700
    month = 1 + (day // 28) % 12
    year = 2023 + (day // 336) % 2
    return (
        f"{year:04d}-{month:02d}-{1 + day % 28:02d}T"
        f"{i % 24:02d}:{i % 60:02d}:{(i * 7) % 60:02d}+00:00"
    )


def _rich_loc(base: str, lang: str, group: int) -> str:
    dept = group % 37
    cat = group % 211
    return (
        f"{base}/{lang}/catalogue/department-{dept:02d}/category-{cat:03d}/"
        f"product-{group:06d}-stainless-steel-kitchen-accessory-"
        f"slug.html"
    )


def _rich_entry(base: str, lang: str, group: int, i: int) -> str:
    en = _rich_loc(base, "en", group)
    de = _rich_loc(base, "de", group)
    loc = en if lang == "en" else de
    img = f"{base}/media/catalogue/products/{group:06d}"
    return (
        f"<url><loc>{loc}</loc><lastmod>{_lastmod(i)}</lastmod>"
        f"<image:image><image:loc>{img}/main-photo-front-view-1600x1200.jpg</image:loc>"
        "</image:image>"
        f"<image:image><image:loc>{img}/detail-photo-side-view-1600x1200.jpg</image:loc>"
        "</image:image>"
        f'<xhtml:link rel="alternate" hreflang="en" href="{en}"/>'
        f'<xhtml:link rel="alternate" hreflang="de" href="{de}"/>'
        f'<xhtml:link rel="alternate" hreflang="x-default" href="{en}"/>'
        "</url>\n"
    )


def _write(path: Path, chunks: list[str]) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.writelines(chunks)
    tmp.replace(path)


def generate(data: Path, base: str, n_urlset: int, parts: int, per_part: int) -> dict[str, object]:
    """Write the data set unless the same one is already there."""
    stamp = data / ".generated"
    want = json.dumps([GEN_VERSION, base, n_urlset, parts, per_part])
    if stamp.exists() and stamp.read_text() == want:
        return json.loads((data / "manifest.json").read_text())  # type: ignore[no-any-return]
    c.log(f"generating reader data in {data}")
    data.mkdir(parents=True, exist_ok=True)
    head = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS}>\n'
    chunks = [head]
    for i in range(n_urlset):
        chunks.append(_rich_entry(base, "en" if i % 2 == 0 else "de", i // 2, i))
    chunks.append("</urlset>\n")
    _write(data / "urlset.xml", chunks)
    with (
        open(data / "urlset.xml", "rb") as src,
        gzip.open(data / "urlset.xml.gz.tmp", "wb", compresslevel=6) as dst,
    ):
        while block := src.read(1 << 20):
            dst.write(block)
    (data / "urlset.xml.gz.tmp").replace(data / "urlset.xml.gz")

    part_head = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
    )
    names = []
    n = 0
    for p in range(1, parts + 1):
        name = f"part-{p:02d}.xml"
        names.append(name)
        chunks = [part_head]
        for _ in range(per_part):
            chunks.append(
                f"<url><loc>{base}/archive/{n % 97:02d}/{n // 1000:04d}/"
                f"article-{n:07d}-about-something.html</loc>"
                f"<lastmod>{_lastmod(n)}</lastmod></url>\n"
            )
            n += 1
        chunks.append("</urlset>\n")
        _write(data / name, chunks)
    index = ['<?xml version="1.0" encoding="UTF-8"?>\n']
    index.append('<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n')
    for i, name in enumerate(names):
        index.append(
            f"<sitemap><loc>{base}/{name}</loc><lastmod>{_lastmod(i)}</lastmod></sitemap>\n"
        )
    index.append("</sitemapindex>\n")
    _write(data / "index.xml", index)
    manifest = {
        "urlset_urls": n_urlset,
        "urlset_bytes": (data / "urlset.xml").stat().st_size,
        "urlset_gz_bytes": (data / "urlset.xml.gz").stat().st_size,
        "index_parts": parts,
        "index_urls": n,
        "index_bytes": sum((data / x).stat().st_size for x in names),
        "parts": names,
    }
    (data / "manifest.json").write_text(json.dumps(manifest, indent=2))
    stamp.write_text(want)
    return manifest


DIRTY_VERSION = "1"


def generate_dirty(data: Path, parts: list[str]) -> tuple[list[Path], Path, int]:
    """The index again with findings sprinkled in: every 1,000th loc repeats the one 500
    entries before it (loc-duplicate, across parts too) and every 5,000th lastmod is in
    2030 (lastmod-future). Returns the part files, the index and the findings expected.
    """
    stamp = data / ".dirty"
    names = [f"dirty-{p}" for p in parts]
    index = data / "dirty-index.xml"
    n = 0
    recent: list[str] = []
    expected = 0
    fresh = not (stamp.exists() and stamp.read_text() == DIRTY_VERSION)
    for src_name, name in zip(parts, names, strict=True):
        out: list[str] = []
        for line in (data / src_name).read_text().splitlines(keepends=True):
            if line.startswith("<url>"):
                n += 1
                loc = line[5 : line.index("</loc>")]
                if n % 1000 == 0:
                    line = line.replace(loc, recent[-500])
                    expected += 1
                if n % 5000 == 0:
                    line = line.replace("<lastmod>202", "<lastmod>203")
                    expected += 1
                recent.append(loc)
                del recent[:-600]
            out.append(line)
        if fresh:
            _write(data / name, out)
    if fresh:
        text = (data / "index.xml").read_text()
        for src_name, name in zip(parts, names, strict=True):
            text = text.replace(f"/{src_name}<", f"/{name}<")
        _write(index, [text])
        stamp.write_text(DIRTY_VERSION)
    return [data / x for x in names], index, expected


def xmllint_index(index: Path, parts: list[Path]) -> list[str]:
    """xmllint has no index-following: it validates the index and each part file."""
    return [
        "sh",
        "-c",
        'x="$1"; a="$2"; shift 2; '
        'xmllint --noout --schema "$0" "$x" && xmllint --noout --schema "$a" "$@"',
        str(XSD / "siteindex.xsd"),
        str(index),
        str(XSD / "all.xsd"),
        *[str(p) for p in parts],
    ]


def count_lines(path: Path) -> int:
    with open(path, "rb") as fh:
        return sum(1 for _ in fh)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="5,000-URL urlset, 100,000-URL index")
    ap.add_argument("--port", type=int, default=DEFAULT_PORT)
    ap.add_argument(
        "--repeat", type=int, default=3, help="runs per command; the fastest counts (default 3)"
    )
    ap.add_argument("--skip-ours", action="store_true")
    ap.add_argument("--skip-peers", action="store_true")
    args = ap.parse_args()

    load_start = c.machine_note()
    n_urlset, parts, per_part = (5_000, 20, 5_000) if args.quick else (50_000, 20, 50_000)
    tag = "quick" if args.quick else "full"
    data = c.SCRATCH / f"reader-data-{tag}-{args.port}"
    base = f"http://127.0.0.1:{args.port}"
    manifest = generate(data, base, n_urlset, parts, per_part)
    part_files = [data / p for p in manifest["parts"]]  # type: ignore[attr-defined]
    work = c.SCRATCH / f"reader-out-{tag}"
    work.mkdir(parents=True, exist_ok=True)

    c.ensure_apt("libxml2-utils")
    usp_bin = c.scratch_venv("usp", ["ultimate-sitemap-parser==1.8.1"])
    usp_py = usp_bin / "python"
    usp_script = c.BENCH_DIR / "peers" / "usp_parse.py"
    ours_urls = not args.skip_ours and c.our_command_available("urls")
    ours_validate = not args.skip_ours and c.our_command_available("validate")
    exe = str(c.our_cli()) if (ours_urls or ours_validate) else ""
    if not ours_urls:
        c.log("sitemapkit urls is not available on this branch: running peers only")
    if not ours_validate:
        c.log("sitemapkit validate is not available on this branch: running peers only")

    results: list[c.Measurement] = []

    def run(label: str, cmd: list[str], kind: str, expect: int | None = None) -> c.Measurement:
        slug = label.replace(" ", "_").replace("/", "-")
        out = work / f"{slug}.out"
        err = work / f"{slug}.err"
        m = c.run_best(label, cmd, args.repeat, stdout=out, stderr=err, timeout=1800)
        m.extra["kind"] = kind
        if kind == "urls":
            m.extra["lines"] = count_lines(out)
            if expect is not None and m.extra["lines"] != expect:
                c.log(f"  !! {label}: {m.extra['lines']} URLs printed, expected {expect}")
        m.extra["stderr_tail"] = err.read_text(errors="replace")[-400:]
        if kind == "validate":
            text = (out.read_text(errors="replace") + m.extra["stderr_tail"]).strip()
            lines = text.splitlines() or [""]
            # Our summary line ("N sitemaps, M entries: 0 error(s) ..."), else the last line.
            summary = [x for x in lines if "error(s)" in x] or lines[-1:]
            m.extra["last_line"] = summary[0].replace(str(data) + "/", "")[:80]
        results.append(m)
        return m

    server_log = work / "http-server.log"
    server = [c.PYTHON, "-m", "http.server", "--bind", "127.0.0.1", "-d", str(data), str(args.port)]
    cases: dict[str, dict[str, c.Measurement | None]] = {}
    n_index = int(manifest["index_urls"])  # type: ignore[call-overload]
    urlset, urlset_gz = data / "urlset.xml", data / "urlset.xml.gz"
    index = data / "index.xml"
    all_xsd = str(XSD / "all.xsd")
    index_url = f"{base}/index.xml"

    with c.background(server, args.port, server_log):
        k = f"{n_urlset // 1000}k"
        for case, path in ((f"urlset {k}", urlset), (f"urlset {k} .gz", urlset_gz)):
            row: dict[str, c.Measurement | None] = {}
            row["usp"] = (
                None
                if args.skip_peers
                else run(
                    f"usp {case}",
                    [str(usp_py), str(usp_script), "file", str(path)],
                    "urls",
                    n_urlset,
                )
            )
            row["xmllint"] = (
                None
                if args.skip_peers
                else run(
                    f"xmllint {case}",
                    ["xmllint", "--noout", "--schema", all_xsd, str(path)],
                    "validate",
                )
            )
            row["urls"] = (
                run(f"ours urls {case}", [exe, "urls", str(path)], "urls", n_urlset)
                if ours_urls
                else None
            )
            row["validate"] = (
                run(
                    f"ours validate {case}",
                    [exe, "validate", "--sitemap-url", f"{base}/{path.name}", str(path)],
                    "validate",
                )
                if ours_validate
                else None
            )
            cases[case] = row

        ik = "1M" if n_index == 1_000_000 else f"{n_index // 1000}k"
        # The million-URL index, over HTTP (index -> 20 parts): the network path.
        row = {}
        row["usp"] = (
            None
            if args.skip_peers
            else run(
                f"usp index {ik} http",
                [str(usp_py), str(usp_script), "url", index_url],
                "urls",
                n_index,
            )
        )
        row["xmllint"] = (
            None
            if args.skip_peers
            else run(f"xmllint index {ik} files", xmllint_index(index, part_files), "validate")
        )
        row["urls"] = (
            run(f"ours urls index {ik} http", [exe, "urls", index_url], "urls", n_index)
            if ours_urls
            else None
        )
        row["validate"] = (
            run(f"ours validate index {ik} http", [exe, "validate", index_url], "validate")
            if ours_validate
            else None
        )
        cases[f"index {ik} (http)"] = row

    # The same million URLs from files, with the HTTP server stopped so that nothing
    # can come over the network: the 20 parts parsed from disk.
    row = {}
    row["usp"] = (
        None
        if args.skip_peers
        else run(
            f"usp index {ik} files",
            [str(usp_py), str(usp_script), "file", *[str(p) for p in part_files]],
            "urls",
            n_index,
        )
    )
    row["xmllint"] = cases[f"index {ik} (http)"]["xmllint"]
    row["urls"] = (
        # A local index: the reader opens the listed parts as sibling files.
        run(f"ours urls index {ik} files", [exe, "urls", str(index)], "urls", n_index)
        if ours_urls
        else None
    )
    row["validate"] = (
        run(
            f"ours validate index {ik} files",
            [exe, "validate", "--sitemap-url", f"{base}/index.xml", str(index)],
            "validate",
        )
        if ours_validate
        else None
    )
    cases[f"index {ik} (file)"] = row

    # The same million URLs with 0.12% of them drawing a finding (1,000 duplicates, 200
    # dates in the future): what the validator costs when it must name entries.
    dirty_parts, dirty_index, dirty_expected = generate_dirty(data, list(manifest["parts"]))  # type: ignore[call-overload]
    c.log(f"dirty index: {dirty_expected:,} findings expected")
    row = {"usp": None, "urls": None}
    row["xmllint"] = (
        None
        if args.skip_peers
        else run(f"xmllint index {ik} dirty", xmllint_index(dirty_index, dirty_parts), "validate")
    )
    dirty_cmd = [exe, "validate", "--sitemap-url", f"{base}/dirty-index.xml", str(dirty_index)]
    row["validate"] = (
        run(f"ours validate index {ik} dirty", dirty_cmd, "validate") if ours_validate else None
    )
    cases[f"index {ik} (file, 0.12% findings)"] = row

    text = report(manifest, cases, results, usp_bin, args.repeat, load_start)
    print(text)
    c.save_results(
        f"reader_bench{'_quick' if args.quick else ''}",
        {"manifest": manifest, "runs": [m.as_dict() for m in results]},
        text,
    )
    return 0


def _t(m: c.Measurement | None) -> str:
    if m is None:
        return "-"
    flag = "" if m.returncode == 0 else f" (exit {m.returncode})"
    return f"{m.wall_s:.2f}{flag}"


def _mb(m: c.Measurement | None) -> str:
    return "-" if m is None else f"{m.peak_mb:.1f}"


def report(
    manifest: dict[str, object],
    cases: dict[str, dict[str, c.Measurement | None]],
    results: list[c.Measurement],
    usp_bin: Path,
    repeat: int,
    load_start: str,
) -> str:
    lines = [
        "Reader benchmark: sitemapkit urls/validate vs ultimate-sitemap-parser, xmllint --schema",
        f"data: urlset {manifest['urlset_urls']:,} URLs, {manifest['urlset_bytes']:,} bytes "
        f"(gz {manifest['urlset_gz_bytes']:,}); index {manifest['index_parts']} parts, "
        f"{manifest['index_urls']:,} URLs, {manifest['index_bytes']:,} bytes",
        f"peers: ultimate-sitemap-parser {c.pip_version(usp_bin, 'ultimate-sitemap-parser')}, "
        f"{c.tool_version(['xmllint', '--version'])}",
        f"ours: {c.our_revision()}",
        c.ru_maxrss_note(),
        f"each command run {repeat}x, fastest wall time shown, highest peak memory",
        f"{load_start} at start; {c.machine_note()} at end",
        "",
    ]
    rows = []
    for case, r in cases.items():
        urls, usp, val, xl = r["urls"], r["usp"], r["validate"], r["xmllint"]
        rows.append(
            [
                case,
                _t(urls),
                _t(usp),
                c.ratio(usp.wall_s, urls.wall_s) if usp and urls else "n/a",
                _t(val),
                _t(xl),
                c.ratio(val.wall_s, xl.wall_s) if val and xl else "n/a",
                _mb(urls),
                _mb(val),
                _mb(usp),
                _mb(xl),
            ]
        )
    lines.append(
        c.table(
            [
                "case",
                "urls s",
                "usp s",
                "usp/urls",
                "validate s",
                "xmllint s",
                "validate/xmllint",
                "urls MB",
                "validate MB",
                "usp MB",
                "xmllint MB",
            ],
            rows,
        )
    )
    lines.append("")
    lines.append(
        c.table(
            ["run", "wall s", "peak MB", "tree MB", "maxrss MB", "exit", "URLs out / last line"],
            [
                [
                    m.label,
                    m.wall_s,
                    m.peak_mb,
                    m.tree_peak_kib / 1024,
                    m.maxrss_kib / 1024,
                    m.returncode,
                    m.extra.get("lines", m.extra.get("last_line", "-")),
                ]
                for m in results
            ],
        )
    )
    lines.append("")
    lines.extend(targets(cases))
    return "\n".join(lines)


def targets(cases: dict[str, dict[str, c.Measurement | None]]) -> list[str]:
    out = ["Targets"]
    speed: list[bool] = []
    val: list[bool] = []
    for case, r in cases.items():
        if r["urls"] and r["usp"]:
            speed.append(r["usp"].wall_s / r["urls"].wall_s >= 5 and r["urls"].returncode == 0)
        if r["validate"] and r["xmllint"] and "findings" not in case:  # the target: clean files
            val.append(r["validate"].wall_s <= 2 * r["xmllint"].wall_s)
    out.append(
        f"  urls >= 5x faster than usp (every case): {c.verdict(all(speed) if speed else None)}"
    )
    out.append(
        "  validate within 2x of xmllint --schema (the generated files; the 0.12%-findings "
        f"row is shown, not judged): {c.verdict(all(val) if val else None)}"
    )
    peaks = [
        m.peak_mb
        for case, r in cases.items()
        if case.startswith("index")
        for m in (r["urls"], r["validate"])
        if m is not None
    ]
    out.append(
        "  peak RSS < 100 MB on the 1M-URL index: "
        + (c.verdict(max(peaks) < 100) + f" (max {max(peaks):.1f} MB)" if peaks else "not run")
    )
    return out


if __name__ == "__main__":
    sys.exit(main())
