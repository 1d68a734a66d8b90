"""Talking to language models: an OpenAI-compatible chat client and reply parsing.

Holds the client (``client``: requests, retries, structured output), failure
classification (``failures``), the rate limiter (``ratelimit``), the reply cache
and replay (``cache``, ``exchange``), and reading replies (``reading``,
``jsonscan``, ``genelists``).

May import: ``utils`` and the rest of ``genotex.methods``; never ``download``, save
the retry policy of ``download.fetch`` until the HTTP client moves to ``utils``
(issue 26).
"""
