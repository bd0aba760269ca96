"""LIMBO toolkit for Python: thin over the ``limbo-analyze`` binary.

- :func:`run` runs a command; :func:`find_binary` locates the executable
  (the one a platform wheel carries before PATH).
- :func:`read_episodes`, :func:`read_calls`, :func:`read_effects` read exports
  into pandas (or polars) with the schema's enumerations as categoricals.
- :mod:`limbo_toolkit.analyze` returns the engine's analyses as DataFrames
  (percent throughout, categoricals for grouping columns) and issues the
  CLI's warnings as Python warnings, one category per code
  (:class:`LimboWarning` and its subclasses).
- :mod:`limbo_toolkit.inspect` is the Inspect AI task (``inspect eval
  limbo_toolkit/limbo``).
"""

from ._binary import SCHEMA_VERSION, BinaryNotFound, IncompatibleBinary, LimboError, binary_version, find_binary, run
from ._io import read_calls, read_effects, read_episodes
from ._warn import CATEGORIES as WARNING_CATEGORIES
from ._warn import (
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
    LedgerWarning,
    LimboWarning,
)

__version__ = "0.1.0"
__all__ = ["SCHEMA_VERSION", "WARNING_CATEGORIES", "BinaryNotFound", "IncompatibleBinary", "LedgerWarning", "LimboError",
           "LimboWarning", "__version__", "binary_version", "find_binary", "read_calls", "read_effects", "read_episodes",
           "run",
           "MissingRowsWarning",
           "UnweightedWarning",
           "ZeroWeightWarning",
           "SmallSampleWarning",
           "UndefinedWarning",
           "IccUndefinedWarning",
           "UnmatchedWarning",
           "NoPairsWarning",
           "ZeroDifferencesWarning",
           "DroppedTermWarning",
           "SeparationWarning",
           "FewClustersWarning",
           "SingularWarning",
           "NotConvergedWarning",
           "FallbackWarning",
           "FitWarning",
           "AdjustedWarning",
           ]
