"""Talking to language models: an OpenAI-compatible chat client and reply parsing."""
