"""BGE parts and law areas, before and after the 1995 reorganisation.

The Federal Supreme Court's official collection (BGE / ATF / DTF) appears in one yearly
volume (volume number = year − 1874) split into parts. Up to volume 120 (1994) the parts were
Ia constitutional law, Ib administrative and international public law, II civil law,
III debt enforcement and bankruptcy law, IV criminal law, V social security law. From volume
121 (1995): I constitutional law, II administrative and international public law, III civil
law and debt enforcement and bankruptcy law, IV criminal law, V social security law.
"""

from __future__ import annotations

FIRST_YEAR_NEW_SYSTEM = 1995
"""First year (volume 121) of the post-1995 parts I … V."""

VOLUME_YEAR_OFFSET = 1874
"""BGE yearly volume number = year − 1874 (volume 1 = 1875)."""

LAW_AREAS: tuple[str, ...] = (
    "constitutional_law",
    "administrative_and_international_public_law",
    "civil_law",
    "debt_enforcement_and_bankruptcy_law",
    "civil_and_debt_enforcement_and_bankruptcy_law",
    "criminal_law",
    "social_security_law",
)
"""ClassLabel names of the ``law_area`` field, in label order."""

PARTS_UNTIL_1994: dict[str, str] = {
    "Ia": "constitutional_law",
    "Ib": "administrative_and_international_public_law",
    "II": "civil_law",
    "III": "debt_enforcement_and_bankruptcy_law",
    "IV": "criminal_law",
    "V": "social_security_law",
}

PARTS_FROM_1995: dict[str, str] = {
    "I": "constitutional_law",
    "II": "administrative_and_international_public_law",
    "III": "civil_and_debt_enforcement_and_bankruptcy_law",
    "IV": "criminal_law",
    "V": "social_security_law",
}


def parts_in_year(year: int) -> dict[str, str]:
    """Return the part → law area table in force in ``year``."""
    return PARTS_FROM_1995 if year >= FIRST_YEAR_NEW_SYSTEM else PARTS_UNTIL_1994


def is_valid_part(part: str, year: int) -> bool:
    """True when BGE part ``part`` (e.g. ``"Ib"``) exists in ``year``'s system."""
    return part in parts_in_year(year)


def law_area(part: str, year: int) -> str:
    """Return the law-area label of BGE part ``part`` in ``year``.

    Raises:
        ValueError: the part does not exist in that year's system (the message lists the
            parts that do).
    """
    table = parts_in_year(year)
    if part not in table:
        system = "from 1995" if year >= FIRST_YEAR_NEW_SYSTEM else "until 1994"
        raise ValueError(f"BGE part {part!r} does not exist in {year} (parts {system}: "
                         f"{', '.join(table)})")
    return table[part]


def volume_number(year: int) -> int:
    """BGE yearly volume number of ``year`` (2025 -> 151)."""
    return year - VOLUME_YEAR_OFFSET
