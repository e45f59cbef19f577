"""Schemathesis against the app in-process: every operation of the OpenAPI document, in every
phase -- examples, coverage and fuzzing for each operation, and the stateful phase, which
follows the document's links from one answer to the next request (the ledger head to an action
under If-Match, an action to the hand as of its event, the reports to one report) -- with every
check (no 5xx, every answer as the document says, bad data refused), without a token and with a
player's token, on both backends.

The app is made at import (schemathesis reads its document then) around a stand-in that passes
every call on to the game of the running test. The failed-token limit is lifted for the run (it
is tested in test_api.py): otherwise the fuzzer's wrong tokens would soon be answered 429 and
leave the rest untested."""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import CHECKS

from nomic_cards.core.nomic import Nomic
from nomic_cards.server import create_app
from nomic_cards.server.auth import FailureLimiter
from tests.server.conftest import Served

#: every test here takes seconds (a server, a browser, subprocesses): the full run only
pytestmark = pytest.mark.slow


class _CurrentGame:
    """Stands for the game of the test being run."""

    game: Nomic | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)


CURRENT = _CurrentGame()
APP = create_app(CURRENT, stream_max_age=0.0)  # type: ignore[arg-type]
APP.state.limiter = FailureLimiter(limit=10**9)
schema = schemathesis.openapi.from_asgi("/api/v1/openapi.json", APP)
schema.config.phases.update(phases=["examples", "coverage", "fuzzing", "stateful"])
# a body past 16 KiB (hypothesis makes long lists) is refused 413 before it is read: a refusal
schema.config.checks.negative_data_rejection.expected_statuses = [
    *schema.config.checks.negative_data_rejection.expected_statuses, "413"]
BOUNDED = settings(max_examples=25, deadline=None, derandomize=True,
                   suppress_health_check=list(HealthCheck))


@pytest.fixture
def current(served: Served) -> Served:
    CURRENT.game = served.game
    return served


def _checks(case: Any) -> list[Any]:
    checks = list(CHECKS.get_all())
    assert len(checks) > 10  # every check schemathesis has, not only the default one
    if case.path == "/api/v1/me/actions":
        # an action's body valid by its schema may still be refused by the rules (a card not
        # in the hand, a vote that is neither yes nor no): 400/409 with the reason, so the
        # check that schema-valid data is accepted does not apply to this one operation
        checks = [c for c in checks if c.__name__ != "positive_data_acceptance"]
        assert len(checks) == len(list(CHECKS.get_all())) - 1
    return checks


@schema.parametrize()
@BOUNDED
def test_every_operation_without_a_token(case: Any, current: Served) -> None:
    case.call_and_validate(checks=_checks(case))


@schema.parametrize()
@BOUNDED
def test_every_operation_with_a_token(case: Any, current: Served) -> None:
    case.call_and_validate(headers={"Authorization": f"Bearer {current.tokens['ann']}"},
                           checks=_checks(case))


class Workflow(schema.as_state_machine()):  # type: ignore[misc]
    """Sequences of requests along the document's links, with ann's token."""

    token = ""

    def get_call_kwargs(self, case: Any) -> dict[str, Any]:
        return {"headers": {"Authorization": f"Bearer {self.token}"}}

    def validate_response(self, response: Any, case: Any, **kwargs: Any) -> None:
        case.validate_response(response, checks=_checks(case))


def test_the_links_are_followed_statefully(current: Served) -> None:
    assert Workflow.bundles or Workflow.root_rules  # the document's links make transitions
    Workflow.token = current.tokens["ann"]
    Workflow.run(settings=settings(max_examples=15, stateful_step_count=6, deadline=None,
                                   derandomize=True, suppress_health_check=list(HealthCheck)))
