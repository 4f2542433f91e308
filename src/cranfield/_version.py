"""The version of cranfield (one place; the package metadata reads the same number)."""

__version__ = "0.1.0"
