"""Axiomatic analysis: which formal properties a measure satisfies, checked by scoring
constructed rankings in batches through the ordinary kernels.

- :mod:`.truncation` — the seven properties of paper 002 §2 (Priority, Top-weightedness,
  Deepness and Shallowness thresholds, Confidence, Recall, Redundancy) on single-intent
  binary cases.
"""

from .truncation import PROPERTIES, PropertyCheck, check_property, property_table

__all__ = ["PROPERTIES", "PropertyCheck", "check_property", "property_table"]
