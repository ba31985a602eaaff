"""ISO code lists the hreflang and video rules check against.

Why lists and not a shape regex: ``en-UK`` and a region alone (``gb``) have
the right shape and are still wrong ([GHL]); only the lists tell.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final


def _words(text: str) -> list[str]:
    return text.split()


#: ISO 639-1 two-letter language codes.
ISO639_1: Final = frozenset(
    _words(
        """aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv
    cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr
    ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw
    ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv
    ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr
    ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi
    yo za zh zu"""
    )
)

#: ISO 3166-1 alpha-2 country codes (upper case).
ISO3166_1: Final = frozenset(
    _words(
        """AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ
    BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM
    DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS
    GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN
    KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ
    MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM
    PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV
    SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI
    VN VU WF WS YE YT ZA ZM ZW"""
    )
)


@lru_cache(maxsize=1024)
def hreflang_problem(code: str) -> str | None:
    """Why ``code`` is not a valid hreflang value, or ``None`` when it is."""
    if code == "x-default":
        return None
    if "_" in code:
        return "uses '_' as separator (use '-')"
    parts = code.split("-")
    lang = parts[0].lower()
    if lang not in ISO639_1:
        if lang.upper() in ISO3166_1 and len(parts) == 1:
            return "is a region alone (a language is required first)"
        return f'"{parts[0]}" is not an ISO 639-1 language code'
    rest = parts[1:]
    if rest and len(rest[0]) == 4 and rest[0].isalpha():
        rest = rest[1:]  # ISO 15924 script
    if len(rest) > 1:
        return "has too many parts (language[-script][-region])"
    return _region_problem(rest[0]) if rest else None


def _region_problem(region: str) -> str | None:
    """An ISO 3166-1 region, or a UN M.49 area such as 419."""
    if (region.isdigit() and len(region) == 3) or region.upper() in ISO3166_1:
        return None
    return f'"{region}" is not an ISO 3166-1 region code'
