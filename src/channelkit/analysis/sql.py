"""Small helpers for building and running parameterised SQL."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import duckdb
import pandas as pd


@dataclass(frozen=True)
class Sql:
    """A SQL fragment and its parameters; `+` concatenates both in order.

    >>> (Sql("a = ?", (1,)) + Sql(" AND b = ?", (2,))).params
    (1, 2)
    """

    text: str
    params: tuple[object, ...] = ()

    def __add__(self, other: Sql) -> Sql:
        return Sql(self.text + other.text, self.params + other.params)


def first_row(
    con: duckdb.DuckDBPyConnection, query: str, params: Sequence[object] = ()
) -> tuple[Any, ...] | None:
    """The first row of `query`, reading the whole (small) result so the connection is free."""
    rows = con.execute(query, list(params)).fetchall()
    return rows[0] if rows else None


def plain_frame(
    con: duckdb.DuckDBPyConnection, query: str, params: Sequence[object] = ()
) -> pd.DataFrame:
    """The result of `query` as a DataFrame with pandas' default dtypes (internal sums)."""
    frame: pd.DataFrame = con.sql(query, params=list(params)).to_arrow_table().to_pandas()
    return frame
