"""Axiomatic analysis: which formal properties a measure satisfies, checked by scoring
constructed rankings in batches through the ordinary kernels.

- :mod:`.enumeration` — the case analysis of Albahem et al., ADCS 2018: every ranking up to a depth over m aspects,
  Relevance and Irrelevance Monotonicity, Redundancy, and the relations they induce.
- :mod:`.truncation` — the seven properties of Amigó, Mizzaro & Spina, SIGIR 2022, §2 (Priority, Top-weightedness,
  Deepness and Shallowness thresholds, Confidence, Recall, Redundancy) on single-intent
  binary cases.
"""

from .enumeration import PAPER_000, Check, Space, check_space
from .truncation import PROPERTIES, PropertyCheck, check_property, property_table

__all__ = ["PAPER_000", "Check", "Space", "check_space", "PROPERTIES", "PropertyCheck", "check_property",
           "property_table"]
