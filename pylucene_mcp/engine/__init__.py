"""The engine: the embedded Lucene index (writing, searching, explaining) behind
what the service asks of it.
"""
