"""Measure families, one module each; importing this package registers them all.

- :mod:`.adhoc` — trec_eval's family, ERR, RBP, Q-measure, P+ (docs/conventions.md#adhoc).
- :mod:`.diversity` — ndeval's family, subtopic recall, the intent-aware wrapper (docs/conventions.md#ndeval).
- :mod:`.sakai` — D-, D#-, DIN-, DIN#-measures, P+Q, P+Q#, effective precision (docs/conventions.md#sakai).
- :mod:`.alpha_sharp` — the α#-IA family of Golbus, Aslam & Clarke, Inf. Retr. 2013 (docs/conventions.md#alpha-sharp).
- :mod:`.truncated` — terminal-document, utility and OIE measures for truncated rankings
  (docs/conventions.md#truncated).
- :mod:`.cubetest` — the Cube Test family of the TREC Dynamic Domain track (docs/conventions.md#cube-test).
- :mod:`.dd_jig` — the TREC DD jig's sDCG, nsDCG and expected utility EU (docs/dynamic-domain.md).
- :mod:`.cwl` — the C/W/L framework's measures as cwl_eval computes them (docs/cwl.md).
- :mod:`.ncu` — O-measure, P-measure and NCU, as NTCIREVAL computes them.
- :mod:`.trec_experimental` — trec_eval's remaining set and experimental measures (its all_trec set).
- :mod:`.trec_eval10` — trec_eval 10's rbp, rbp_resid and unj, and yaap (docs/migration.md#trec_eval-10).
- :mod:`.fairness` — expected exposure (EE-L, EE-D, EE-R), AWRF and nDCG*AWRF over stochastic
  rankings (docs/fairness.md).
- :mod:`.extra` — Judged@k, unnormalised DCG@k and Compat (docs/conventions.md#judged-dcg-compat).
"""

from cranfield.measures import (  # noqa: F401  (each family registers its measures on import)
    adhoc,
    alpha_sharp,
    aspects,
    cubetest,
    cwl,
    dd_jig,
    diversity,
    extra,
    fairness,
    ir_measures_names,  # parse_measure reads ir_measures' objects
    ncu,
    nuggets,  # the registry names the nugget measures as such
    registry,  # noqa: F401  (first: the families register into it)
    sakai,
    trec_eval10,
    trec_experimental,
    truncated,
)
