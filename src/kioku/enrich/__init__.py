"""Search enrichment written by a model: requests, checked answers, the items in scope, runs, files.

``kioku.retrieval.enrichment`` keeps what is written; ``kioku.retrieval.expansion`` searches it.
"""
