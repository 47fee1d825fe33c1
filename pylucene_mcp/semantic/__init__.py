"""The semantic path (docs/semantic.md): an embedding model run in this process, and documents cut
into chunks with their vectors. Off by default (``vectors``); nothing here is imported while it
is off, so numpy and the tokenizer cost nothing then."""
