"""Inspect AI entry point: importing it registers ``limbo_toolkit/limbo``."""

from .inspect._task import limbo  # noqa: F401
