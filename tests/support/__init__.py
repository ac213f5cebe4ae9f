"""Helpers the tests share (audio, servers, the virtual microphone, the reference models)."""
