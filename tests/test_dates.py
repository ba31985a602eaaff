from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitemapkit.dates import classify, format_lastmod, is_w3c, parse
from sitemapkit.errors import InputError


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("2024-01-01", None),
        ("2024-02-29", None),
        ("2024-01-01T10:00:00Z", None),
        ("2024-01-01T10:00:00.5+02:00", None),
        ("2024-01-01T10:00:00.123456-11:30", None),
        ("2024-13-01", "lastmod-invalid"),
        ("2023-02-29", "lastmod-invalid"),
        ("2024-01-01T24:00:00Z", "lastmod-invalid"),
        ("yesterday", "lastmod-invalid"),
        ("01/02/2024", "lastmod-invalid"),
        ("", "lastmod-invalid"),
        ("2024", "lastmod-imprecise"),
        ("2024-05", "lastmod-imprecise"),
        ("2024-01-01T10:00Z", "lastmod-imprecise"),
        ("2024-01-01T10:00:00", "lastmod-no-timezone"),
        ("2024-01-01T10:00", "lastmod-no-timezone"),
        ("2024-01-01+02:00", "lastmod-no-timezone"),
    ],
)
def test_classify(text: str, code: str | None) -> None:
    assert classify(text) == code


def test_format_accepts_the_three_kinds() -> None:
    assert format_lastmod(date(2024, 2, 29)) == "2024-02-29"
    assert format_lastmod(datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)) == "2024-01-02T03:04:05Z"
    tz = timezone(timedelta(hours=5, minutes=30))
    assert format_lastmod(datetime(2024, 1, 2, 3, 4, 5, 7, tzinfo=tz)) == (
        "2024-01-02T03:04:05.000007+05:30"
    )
    assert format_lastmod(" 2024-01-02 ") == "2024-01-02"


def test_format_refuses_naive_and_bad() -> None:
    with pytest.raises(InputError) as err:
        format_lastmod(datetime(2024, 1, 1, 12))
    assert err.value.rule == "lastmod-no-timezone"
    with pytest.raises(InputError) as err:
        format_lastmod("2024-13-01")
    assert err.value.rule == "lastmod-invalid"
    assert '"2024-13-01"' in str(err.value)


@given(st.datetimes(timezones=st.timezones()))
def test_every_aware_datetime_formats_to_an_accepted_form(value: datetime) -> None:
    offset = value.utcoffset()
    assert offset is not None
    if offset % timedelta(minutes=1):  # offsets with seconds exist in old tz data
        with pytest.raises(InputError, match="offset with seconds"):
            format_lastmod(value)
        return
    text = format_lastmod(value)
    assert classify(text) is None
    parsed = parse(text)
    assert parsed is not None
    # Same wall time and the same offset as written (zoneinfo equality is wall-clock based).
    assert parsed.replace(tzinfo=None) == value.replace(tzinfo=None)
    assert parsed.utcoffset() == offset


@pytest.mark.parametrize(
    "text",
    [
        "\u0662\u0660\u0662\u0664-\u0660\u0661-\u0660\u0661",  # Arabic-Indic digits
        "2024-01-0\u0661",
        "\uff12\uff10\uff12\uff14-01-01",  # full-width
        "2024-01-01T10:00:00+0\u0661:00",
    ],
)
def test_other_scripts_digits_are_no_date(text: str) -> None:
    """``\\d`` took them, so ``classify`` passed the value and ``parse`` raised ValueError
    (``audit``'s lastmod comparison calls ``parse`` on a listed lastmod); now invalid."""
    assert classify(text) == "lastmod-invalid"
    assert parse(text) is None
    assert not is_w3c(text)
