"""The CLI's warnings as Python warnings: one category per warning code.

A result's JSON carries each warning as ``{"code", "message"}``
(analysis.Warning); the code picks the category, so a caller filters or
escalates a kind of warning with the ``warnings`` module, never by its
text::

    import warnings
    import limbo_toolkit as lt

    warnings.simplefilter("error", lt.SeparationWarning)   # separation fails the analysis
"""

from __future__ import annotations

import re
import warnings
from typing import Any


class LimboWarning(UserWarning):
    """A warning of ``limbo-analyze`` (the base of every category)."""

    code = ""


class LedgerWarning(LimboWarning):
    """A ledger row the reader accepted with a plausibility warning."""

    code = "ledger"


# One class per code of analysis.WarningCode (analysis/warning.go); a test
# checks the list against the Go source.

class MissingRowsWarning(LimboWarning):
    """Rows with a missing value were left out."""

    code = "missing-rows"


class UnweightedWarning(LimboWarning):
    """A weight is absent or does not apply to every statistic."""

    code = "unweighted"


class ZeroWeightWarning(LimboWarning):
    """A group's weights are all zero."""

    code = "zero-weight"


class SmallSampleWarning(LimboWarning):
    """An effective sample size below 1."""

    code = "small-sample"


class UndefinedWarning(LimboWarning):
    """A statistic the data cannot define (one row, one cluster, one pair, a zero standard error)."""

    code = "undefined"


class IccUndefinedWarning(LimboWarning):
    """The intraclass correlation is undefined; n_eff falls back to Kish's."""

    code = "icc-undefined"


class UnmatchedWarning(LimboWarning):
    """Episodes without a partner were dropped from a paired comparison."""

    code = "unmatched"


class NoPairsWarning(LimboWarning):
    """No matched pairs at all."""

    code = "no-pairs"


class ZeroDifferencesWarning(LimboWarning):
    """Zero differences were dropped by the signed-rank test."""

    code = "zero-differences"


class DroppedTermWarning(LimboWarning):
    """A model column was left out: a single level, a constant, an empty or aliased column."""

    code = "dropped-term"


class SeparationWarning(LimboWarning):
    """(Quasi-)separation: estimates without a finite maximum."""

    code = "separation"


class FewClustersWarning(LimboWarning):
    """Too few clusters for the robust sandwich."""

    code = "few-clusters"


class SingularWarning(LimboWarning):
    """A boundary (singular) mixed-model fit."""

    code = "singular"


class NotConvergedWarning(LimboWarning):
    """The fitter stopped before converging."""

    code = "not-converged"


class FallbackWarning(LimboWarning):
    """A fit failed and a fallback was fitted instead."""

    code = "fallback"


class FitWarning(LimboWarning):
    """Another diagnostic of the fitter."""

    code = "fit"


class AdjustedWarning(LimboWarning):
    """p-values adjusted over a family of tests."""

    code = "adjusted"


#: Every code and its category.
CATEGORIES: dict[str, type[LimboWarning]] = {c.code: c for c in (
    MissingRowsWarning,
    UnweightedWarning,
    ZeroWeightWarning,
    SmallSampleWarning,
    UndefinedWarning,
    IccUndefinedWarning,
    UnmatchedWarning,
    NoPairsWarning,
    ZeroDifferencesWarning,
    DroppedTermWarning,
    SeparationWarning,
    FewClustersWarning,
    SingularWarning,
    NotConvergedWarning,
    FallbackWarning,
    FitWarning,
    AdjustedWarning,
)}


def category(code: str) -> type[LimboWarning]:
    """The category of a warning code (LimboWarning for one this package
    does not know: a newer binary's)."""
    return CATEGORIES.get(code, LimboWarning)


def _collect(doc: Any, out: list[tuple[str, str]]) -> None:
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k == "warnings" and isinstance(v, list):
                for w in v:
                    if isinstance(w, dict):
                        out.append((str(w.get("code", "")), str(w.get("message", ""))))
                    else:  # results whose warnings are text (tables, hypotheses)
                        out.append(("", str(w)))
            else:
                _collect(v, out)
    elif isinstance(doc, list):
        for v in doc:
            _collect(v, out)


_LEDGER_LINE = re.compile(r"^limbo-analyze: (?!warning: )(.+)$")


def emit(doc: Any, stderr: str, stacklevel: int = 3) -> list[tuple[str, str]]:
    """Issue the warnings of a result's JSON and the ledger warnings the
    CLI wrote on stderr; returns them as (code, message)."""
    found: list[tuple[str, str]] = []
    _collect(doc, found)
    seen = set()
    for code, msg in found:
        if (code, msg) in seen:
            continue
        seen.add((code, msg))
        warnings.warn(msg, category(code), stacklevel=stacklevel)
    for line in stderr.splitlines():
        m = _LEDGER_LINE.match(line.strip())
        if m:
            found.append(("ledger", m.group(1)))
            warnings.warn(m.group(1), LedgerWarning, stacklevel=stacklevel)
    return found
