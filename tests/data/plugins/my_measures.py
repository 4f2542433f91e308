"""My own measures for cranfield: load with `cranfield --plugin my_measures.py` or `import my_measures`."""

import cranfield


@cranfield.measure(
    "MyPrecision",
    params=[cranfield.param("rel", int, 1, "the least label of a relevant document", low=1)],
    value_range=(0, 1),
    cutoff="required",
    cite="Manning, Raghavan & Schütze, Introduction to Information Retrieval, 2008, Eq. 8.1 (precision)",
    doc="precision at rank k: the fraction of the first k documents with a label >= rel",
)
def my_precision(batch, *, cutoff, rel):
    """Relevant documents among the first k ranks, divided by k (missing ranks count as not relevant)."""
    labels = batch.labels.max(axis=3)  # (S, T, D): each document's largest label over the intents
    relevant = labels[:, :, :cutoff] >= rel  # ranks past a ranking's end have label 0
    return relevant.sum(axis=2) / cutoff  # (S, T)
