"""Year-based splits of SLDS.

Defaults follow the paper: train ≤ 2021, validation 2022, test 2023–2024. A year after the
last test year goes to its own split ``test_<year>`` (e.g. ``test_2025``), never silently
into ``test``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from courtbench.errors import CourtbenchError

BASE_SPLITS: tuple[str, ...] = ("train", "validation", "test")


@dataclass(frozen=True)
class SplitBoundaries:
    """Inclusive last years of the train, validation and test splits."""

    last_train_year: int = 2021
    last_validation_year: int = 2022
    last_test_year: int = 2024

    def __post_init__(self) -> None:
        if not self.last_train_year < self.last_validation_year < self.last_test_year:
            raise CourtbenchError(
                f"split boundaries last_train_year={self.last_train_year}, "
                f"last_validation_year={self.last_validation_year}, "
                f"last_test_year={self.last_test_year}: expected strictly increasing years")

    def split_of(self, year: int) -> str:
        """Name of the split that holds a decision of ``year``."""
        if year <= self.last_train_year:
            return "train"
        if year <= self.last_validation_year:
            return "validation"
        if year <= self.last_test_year:
            return "test"
        return f"test_{year}"


def split_order(names: Iterable[str]) -> list[str]:
    """Sort split names: train, validation, test, then ``test_<year>`` by year."""
    def key(name: str) -> tuple[int, str]:
        return (BASE_SPLITS.index(name), "") if name in BASE_SPLITS else (len(BASE_SPLITS), name)
    return sorted(set(names), key=key)
