"""Measure families, one module each; importing this package registers them all.

- :mod:`.adhoc` — trec_eval's family, ERR, RBP, Q-measure, P+ (SPEC §1).
- :mod:`.diversity` — ndeval's family, subtopic recall, the intent-aware wrapper (SPEC §2).
- :mod:`.sakai` — D-, D#-, DIN-, DIN#-measures, P+Q, P+Q#, effective precision (SPEC §2).
- :mod:`.alpha_sharp` — the α#-IA family of paper 001 (SPEC §2).
- :mod:`.truncated` — terminal-document, utility and OIE measures for truncated rankings (SPEC §3).
- :mod:`.cubetest` — the Cube Test family of the TREC Dynamic Domain track (SPEC §2).
- :mod:`.ncu` — O-measure, P-measure and NCU, as NTCIREVAL computes them.
- :mod:`.trec_experimental` — trec_eval's remaining set and experimental measures (its all_trec set).
"""

from . import adhoc, alpha_sharp, diversity, sakai, truncated, cubetest, ncu, trec_experimental  # noqa: F401
