"""The pool and web-server settings of the one configuration object."""
from __future__ import annotations

import pytest

from ingest.config import load_config
from ingest.errors import ConfigError


def test_scheduler_and_limits_from_the_environment(monkeypatch):
    monkeypatch.setenv("TUILE_SCHEDULER", "tcp://gpu1:8786")
    monkeypatch.setenv("TUILE_UI_CHAT_CONCURRENCY", "3")
    config = load_config()
    assert config.scheduler == "tcp://gpu1:8786" and config.ui_chat_concurrency == 3
    assert load_config(scheduler="tcp://autre:8786").scheduler == "tcp://autre:8786"   # the flag wins
    monkeypatch.delenv("TUILE_SCHEDULER")
    monkeypatch.delenv("TUILE_UI_CHAT_CONCURRENCY")
    assert load_config().scheduler == "" and load_config().ui_chat_concurrency == 2


@pytest.mark.parametrize("value", ["beaucoup", "0", "-2"])
def test_a_bad_limit_is_a_french_message(monkeypatch, value):
    monkeypatch.setenv("TUILE_UI_KERNEL_CONCURRENCY", value)
    with pytest.raises(ConfigError, match="TUILE_UI_KERNEL_CONCURRENCY\u00a0:"):
        load_config()
