"""The public API is exactly what __all__ says (httpx's test of the same name)."""

import sitemapkit


def test_all_names_exist() -> None:
    for name in sitemapkit.__all__:
        assert hasattr(sitemapkit, name), name


def test_all_is_sorted_and_unique() -> None:
    names = list(sitemapkit.__all__)
    assert names == sorted(names)
    assert len(set(names)) == len(names)


def test_public_members_are_exported() -> None:
    public = {
        name
        for name, value in vars(sitemapkit).items()
        if not name.startswith("_") and getattr(value, "__module__", "").startswith("sitemapkit")
    }
    assert public <= set(sitemapkit.__all__)


def test_lazy_exports_are_the_defining_objects() -> None:
    from sitemapkit.store.registry import iter_page_records
    from sitemapkit.write.writer import write_sitemaps

    assert sitemapkit.write_sitemaps is write_sitemaps
    assert sitemapkit.iter_page_records is iter_page_records


def test_import_stays_light() -> None:
    import subprocess
    import sys

    code = (
        "import sys, sitemapkit; "
        "print(sorted(m for m in ('aiohttp', 'selectolax', 'lxml') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
