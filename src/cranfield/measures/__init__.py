"""Measure families, one module each; importing this package registers them all.

- :mod:`.adhoc` — trec_eval's family, ERR, RBP, Q-measure, P+ (SPEC §1).
"""

from . import adhoc  # noqa: F401
