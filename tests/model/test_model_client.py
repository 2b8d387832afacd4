"""The one way a model is called: opt-out, caps, a pause after a broken setup, one call at a time, usage."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from kioku.model import client, usage
from kioku.model.request import ModelReply, ModelRequest, ModelUnavailable
from kioku.model.settings import ModelSettings

REQUEST = ModelRequest(purpose="judge", system="s", prompt="p" * 400, schema={"type": "object"}, max_output_tokens=100)


def _settings(**kw) -> ModelSettings:
    return ModelSettings(backend="command", command=("true",), **kw)


def _backend(monkeypatch, fn) -> None:
    monkeypatch.setattr(client, "_backend", lambda name: fn)


def test_a_call_is_recorded_with_its_cost_and_tokens(monkeypatch) -> None:
    _backend(monkeypatch, lambda r, s: ModelReply("{}", model="m", input_tokens=1000, output_tokens=200, cost_usd=0.01))
    client.complete(REQUEST, settings=_settings())
    _backend(monkeypatch, lambda r, s: ModelReply("{}", model="m", input_tokens=1000, output_tokens=200))
    client.complete(REQUEST, settings=_settings())
    day = usage.totals(usage.today(), "judge")
    assert (day.calls, day.input_tokens, day.output_tokens) == (2, 2000, 400)
    assert day.cost_usd == pytest.approx(0.01)
    assert day.estimated_usd == pytest.approx(0.01 + (1000 * 1.0 + 200 * 5.0) / 1e6)


def test_a_purpose_turned_off_makes_no_call(monkeypatch) -> None:
    _backend(monkeypatch, lambda r, s: pytest.fail("no call may be made"))
    with pytest.raises(ModelUnavailable, match="turned off") as caught:
        client.complete(REQUEST, settings=_settings(off={"judge": "turned off by the user"}))
    assert caught.value.transient is False and usage.totals(usage.today()).calls == 0


def test_the_daily_call_cap_stops_calls_until_tomorrow(monkeypatch) -> None:
    _backend(monkeypatch, lambda r, s: ModelReply("{}", input_tokens=10, output_tokens=1))
    client.complete(REQUEST, settings=_settings(daily_calls=1))
    with pytest.raises(client.BudgetSpent, match="daily_calls"):
        client.complete(REQUEST, settings=_settings(daily_calls=1))


def test_the_daily_token_cap_counts_the_request_about_to_be_sent(monkeypatch) -> None:
    _backend(monkeypatch, lambda r, s: pytest.fail("no call may be made"))
    with pytest.raises(client.BudgetSpent, match="daily_tokens"):
        client.complete(REQUEST, settings=_settings(daily_tokens=50))


def test_a_broken_setup_pauses_calls_and_says_why(monkeypatch) -> None:
    def broken(r, s):
        raise ModelUnavailable("claude could not log in: Invalid API key", transient=False)

    _backend(monkeypatch, broken)
    with pytest.raises(ModelUnavailable):
        client.complete(REQUEST, settings=_settings())
    reason = client.unavailable_reason("judge", _settings())
    assert reason.startswith("paused until") and "Invalid API key" in reason
    _backend(monkeypatch, lambda r, s: pytest.fail("paused: no call"))
    with pytest.raises(ModelUnavailable, match="paused"):
        client.complete(REQUEST, settings=_settings())
    assert usage.snapshot()["last_error"]["message"].startswith("claude could not log in")


def test_a_transient_failure_does_not_pause(monkeypatch) -> None:
    def flaky(r, s):
        raise ModelUnavailable("rate limited", transient=True)

    _backend(monkeypatch, flaky)
    with pytest.raises(ModelUnavailable):
        client.complete(REQUEST, settings=_settings())
    assert client.unavailable_reason("judge", _settings()) == ""
    assert usage.totals(usage.today(), "judge").failures == 1


def test_one_call_at_a_time_per_home(monkeypatch) -> None:
    inside = threading.Event()
    release = threading.Event()
    order: list[str] = []

    def slow(r, s):
        order.append("first in")
        inside.set()
        release.wait(10)
        order.append("first out")
        return ModelReply("{}")

    def quick(r, s):
        order.append("second in")
        return ModelReply("{}")

    _backend(monkeypatch, slow)
    first = threading.Thread(target=lambda: client.complete(REQUEST, settings=_settings()))
    first.start()
    assert inside.wait(10)
    _backend(monkeypatch, quick)
    second = threading.Thread(target=lambda: client.complete(REQUEST, settings=_settings()))
    second.start()
    second.join(0.5)
    assert second.is_alive() and order == ["first in"]   # the second call waits for the lock
    release.set()
    first.join(10)
    second.join(10)
    assert order == ["first in", "first out", "second in"]


def test_no_backend_is_said_plainly(project: Path) -> None:
    assert client.unavailable_reason("judge", ModelSettings(backend="heuristic")) == '[model] backend is "heuristic"'
