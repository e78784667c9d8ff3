"""Starter templates, reference and naive solutions, read as source by the sandbox."""
