"""Private fields: the user's own records that an outgoing message carries only on request.

A deployment marks the fields of its records that only the user may give out (a passport,
card or account number) ``private``; a message body (a ``links`` sink) that carries one is
refused unless the user's request gives the value or names its field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from specialists import provenance
from supervisor import Supervisor
from supervisor.adapters.readings import load_tool_annotations
from supervisor.models import Context, Verdict
from supervisor.transcript import ResultTrust, Source, Transcript, Trust, request, result
from tests.conftest import entry_dict

PROFILE = {
    "name": "Noor Haddad",
    "email": "noor.haddad@lakeside.example",
    "passport": "P4471920K",
    "card": {"number": "5105 1051 0510 5100", "expires": "09/29"},
}
PROFILE_TRUST = ResultTrust(
    trust=Trust.DEPLOYMENT, fields={"passport": Trust.PRIVATE, "card.number": Trust.PRIVATE}
)


def _sources(user: str) -> tuple[Source, ...]:
    return (request(user), result("get_profile", json.dumps(PROFILE), PROFILE_TRUST, "c1"))


def test_a_body_that_carries_a_private_field_is_private_and_named() -> None:
    sources = _sources("Write to my brother sami@lakeside.example that I land at 9.")
    body = "Hi Sami, I land at 9. Passport p4471920k, card 5105-1051-0510-5100."
    found = provenance.trace("body", "links", body, sources)
    assert found.found == "private"
    assert found.sources == ("the field passport of the result of get_profile (c1)",)
    assert found.value == "[private]"  # the value itself is not repeated
    card = provenance.trace("body", "links", "card 5105105105105100", sources)
    assert (card.found, card.needle) == ("private", "private card.number")
    # the record's other fields go out freely
    others = "Noor Haddad, noor.haddad@lakeside.example, card expires 09/29"
    assert provenance.trace("body", "links", others, sources).found == "trusted"


def test_a_request_that_names_the_field_or_gives_the_value_asks_for_it() -> None:
    body = "My passport is P4471920K."
    for asked in (
        "Email the travel desk my passport number.",
        "Send my passport details to the travel desk.",
        "Tell the desk my document is P4471920K.",
    ):
        assert provenance.trace("body", "links", body, _sources(asked)).found == "trusted"
    other = _sources("Email the travel desk my card number.")
    assert provenance.trace("body", "links", body, other).found == "private"
    # a field named by a path is named by all its words, not by its last one alone
    card = "Card: 5105 1051 0510 5100"
    flight = _sources("Email the travel desk my flight number.")
    assert provenance.trace("body", "links", card, flight).found == "private"
    assert provenance.trace("body", "links", card, other).found == "trusted"


def test_a_private_field_of_a_result_that_cannot_be_told_apart_makes_it_private() -> None:
    assert PROFILE_TRUST.least is Trust.PRIVATE
    text = result("get_profile", "P4471920K", PROFILE_TRUST, "c2")  # not JSON
    assert text.trust is Trust.PRIVATE
    found = provenance.trace("body", "links", "it is P4471920K", (request("Hi"), text))
    assert (found.found, found.sources) == ("private", ("the result of get_profile (c2)",))


def test_tools_file_and_supervisor_check(tmp_path: Path) -> None:
    tools = tmp_path / "tools.yaml"
    tools.write_text(
        "schema_version: 1\n"
        "tools:\n  send_email: {to: recipient, body: links}\n"
        "results:\n  get_profile: {trust: deployment, fields: {passport: private}}\n",
        encoding="utf-8",
    )
    trust = load_tool_annotations(tools).trust_of("get_profile")
    assert isinstance(trust, ResultTrust)
    assert trust.fields == {"passport": Trust.PRIVATE}
    entry = entry_dict(
        "value_from_untrusted_content",
        default_verdict="nudge",
        applies_to={"action_types": ["*"]},
        specialist={"kind": "provenance", "config": {}},
    )
    taxonomy = tmp_path / "provenance.yaml"
    document = {"schema_version": 1, "id": "t", "title": "T", "version": "0.1.0"}
    taxonomy.write_text(yaml.safe_dump({**document, "entries": [entry]}), encoding="utf-8")
    sup = Supervisor.from_taxonomy(taxonomy, record=False)
    seen = (
        request("Email sami@lakeside.example my arrival time: 9 pm."),
        result("get_profile", json.dumps(PROFILE), trust, "c1"),
    )

    def send(body: str) -> Any:
        action = {
            "type": "tool_call",
            "tool": "send_email",
            "args": {"to": "sami@lakeside.example", "body": body},
            "metadata": {"supervise_sinks": {"to": "recipient", "body": "links"}},
        }
        return sup.check(action, Context(transcript=Transcript(sources=seen)))

    assert send("I arrive at 9 pm.").verdict is Verdict.OK
    leak = send("I arrive at 9 pm. Passport: P4471920K")
    assert leak.verdict is Verdict.NUDGE
    assert "private passport" in leak.reason
    assert "the field passport of the result of get_profile (c1)" in leak.reason
    assert "P4471920K" not in leak.reason
    assert leak.corrections
    assert all("P4471920K" not in c.text for c in leak.corrections)
    sup.close()
