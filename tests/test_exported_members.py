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
