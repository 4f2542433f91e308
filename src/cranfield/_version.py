"""The version of cranfield (one place; the package metadata reads the same number)."""

__version__ = "1.0.0rc1"
