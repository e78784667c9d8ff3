"""Tuile's Gradio web app; ``create_app()`` builds it without launching (see ``app.py``)."""
from __future__ import annotations


def create_app(*args, **kwargs):
    from assistant.ui.app import create_app as _create
    return _create(*args, **kwargs)
