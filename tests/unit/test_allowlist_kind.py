"""The ``allowlist`` kind: normalisers, user-named values, refusals, caps, load-time checks."""

from __future__ import annotations

import time
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from specialists import allowlist
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.plugins import load_kinds
from supervisor.specialist import Execution, SpecialistKind
from supervisor.taxonomy import Entry, load_taxonomy

NO_CONTEXT = Context()
PAYEES = ["DE89370400440532013000", "GB29NWBK60161331926819"]


def kind() -> SpecialistKind:
    (registered,) = allowlist.supervisor_register_kinds()
    return registered


def make_entry(default_verdict: str = "nudge") -> Entry:
    return Entry.model_validate(
        {
            "id": "test_allowlist",
            "title": "An allowlist test entry",
            "description": "Objects to values that are not allowed.",
            "example": {"summary": "An agent paid a stranger.", "source": "arXiv:2406.13352"},
            "severity": "high",
            "default_verdict": default_verdict,
            "references": ["LLM01"],
            "detection": "deterministic",
            "applies_to": {"action_types": ["payment"]},
            "specialist": {"kind": "allowlist", "config": {}},
        }
    )


def build(config: dict[str, Any], default_verdict: str = "nudge") -> Any:
    k = kind()
    specialist = k.build(make_entry(default_verdict), k.config_model.model_validate(config))
    assert isinstance(specialist, allowlist.AllowlistSpecialist)
    return specialist


def act(**args: Any) -> Action:
    return Action(type="payment", tool="send_money", args=args)


def verdict(specialist: Any, action: Action, context: Context = NO_CONTEXT) -> Verdict:
    return specialist.evaluate(action, context).verdict


def test_registers_the_allowlist_kind_and_runs_inline():
    k = kind()
    assert k.name == "allowlist"
    assert k.config_model is allowlist.AllowlistConfig
    assert build({"fields": ["recipient"], "allowed": ["x"]}).execution is Execution.INLINE


def test_loads_as_a_plugin_into_a_taxonomy(tmp_path):
    pack = tmp_path / "overlay.yaml"
    pack.write_text(
        """
schema_version: 1
id: overlay
entries:
  - id: payee_not_on_file
    title: Payment to a payee that is not on file
    description: Money goes only to payees the user already pays.
    example: {summary: "An injected bill redirected a payment.", source: "arXiv:2406.13352"}
    severity: critical
    default_verdict: nudge
    references: [LLM01]
    detection: deterministic
    applies_to: {action_types: [payment]}
    specialist:
      kind: allowlist
      config: {fields: [recipient], normalise: iban, allowed: [DE89370400440532013000]}
""",
        encoding="utf-8",
    )
    taxonomy = load_taxonomy([pack], load_kinds([allowlist]))
    assert taxonomy["payee_not_on_file"].specialist.kind == "allowlist"


def test_iban_normalisation_folds_spaces_and_case():
    specialist = build({"fields": ["recipient"], "normalise": "iban", "allowed": PAYEES})
    assert verdict(specialist, act(recipient="de89 3704 0044 0532 0130 00")) is Verdict.OK
    assert verdict(specialist, act(recipient="GB29NWBK60161331926819")) is Verdict.OK
    result = specialist.evaluate(act(recipient="US133000000121212121212"), NO_CONTEXT)
    assert result.verdict is Verdict.NUDGE
    assert result.evidence == {
        "field": "recipient",
        "value": "US133000000121212121212",
        "object": "US133000000121212121212",
        "problem": "not_allowed",
        "normalise": "iban",
        "allowed_count": 2,
        "from_task": False,
    }
    assert result.reason == (
        "payment recipient 'US133000000121212121212' is not one of the allowed values"
    )
    assert result.correction is not None
    assert "ask them to confirm" in result.correction


def test_a_value_that_is_not_an_iban_is_unreadable_and_objected():
    specialist = build({"fields": ["recipient"], "normalise": "iban", "allowed": PAYEES})
    result = specialist.evaluate(act(recipient="Spotify"), NO_CONTEXT)
    assert result.verdict is Verdict.NUDGE
    assert result.evidence["problem"] == "unreadable"


def test_absent_fields_refuse_and_present_allowed_is_the_shared_ok():
    specialist = build({"fields": ["recipient", "cc"], "allowed": ["a"]})
    assert specialist.evaluate(act(amount=3), NO_CONTEXT) is SpecialistResult.refuse()
    assert specialist.evaluate(act(recipient=None), NO_CONTEXT) is SpecialistResult.refuse()
    assert specialist.evaluate(act(recipient="a"), NO_CONTEXT) is SpecialistResult.ok()


def test_every_item_of_every_field_is_judged():
    specialist = build(
        {"fields": ["recipients", "cc"], "normalise": "email", "allowed": ["a@x.org"]}
    )
    assert verdict(specialist, act(recipients=["A@X.org"], cc=[])) is Verdict.OK
    result = specialist.evaluate(act(recipients=["a@x.org"], cc=["b@evil.net"]), NO_CONTEXT)
    assert result.evidence["field"] == "cc"
    assert result.evidence["object"] == "b@evil.net"


def test_email_forms_and_allowed_domains():
    specialist = build(
        {
            "fields": ["to"],
            "normalise": "email",
            "allowed": ["Sarah.Baker@gmail.com"],
            "allowed_domains": ["bluesparrowtech.com"],
        }
    )
    for ok in [
        "sarah.baker@GMAIL.com",
        "Sarah <sarah.baker@gmail.com>",
        "mailto:sarah.baker@gmail.com",
        "anyone@bluesparrowtech.com",
        "x@eu.bluesparrowtech.com",
    ]:
        assert verdict(specialist, act(to=ok)) is Verdict.OK, ok
    for bad in [
        "sarah.baker@gmail.com.evil.net",
        "x@bluesparrowtech.com.evil.net",
        "x@evilbluesparrowtech.com",
        "mark@gmail.com",
    ]:
        assert verdict(specialist, act(to=bad)) is Verdict.NUDGE, bad
    assert specialist.evaluate(act(to="not an address"), NO_CONTEXT).evidence["problem"] == (
        "unreadable"
    )


def test_casefold_and_exact():
    names = build({"fields": ["user"], "normalise": "casefold", "allowed": ["Le  Marais Boutique"]})
    assert verdict(names, act(user="le marais   BOUTIQUE")) is Verdict.OK
    exact = build({"fields": ["user"], "allowed": ["Alice"]})
    assert verdict(exact, act(user="Alice")) is Verdict.OK
    assert verdict(exact, act(user="alice")) is Verdict.NUDGE


def test_numbers_are_compared_as_text_and_mappings_are_unreadable():
    specialist = build({"fields": ["file_id"], "allowed": ["13"]})
    assert verdict(specialist, act(file_id=13)) is Verdict.OK
    assert verdict(specialist, act(file_id="14")) is Verdict.NUDGE
    result = specialist.evaluate(act(file_id={"id": "13"}), NO_CONTEXT)
    assert result.evidence["problem"] == "unreadable"


def test_from_task_allows_what_the_user_named():
    specialist = build(
        {"fields": ["recipient"], "normalise": "iban", "allowed": PAYEES, "from_task": True}
    )
    task = Context(task="My new landlord's account is CA13 3012 4002 3121 5421 872, rent 2200.")
    assert verdict(specialist, act(recipient="CA133012400231215421872"), task) is Verdict.OK
    assert verdict(specialist, act(recipient="CA133012400231215421872")) is Verdict.NUDGE
    # Not a prefix or a part of a longer value.
    assert verdict(specialist, act(recipient="CA1330124002312154218"), task) is Verdict.NUDGE
    result = specialist.evaluate(act(recipient="US133000000121212121212"), task)
    assert result.reason is not None
    assert result.reason.endswith("nor named in the user's request")


def test_from_task_words_need_word_boundaries():
    specialist = build({"fields": ["password"], "from_task": True})
    task = Context(task="If anything looks suspicious, update the password to '1j1l-2k3j'.")
    assert verdict(specialist, act(password="1j1l-2k3j"), task) is Verdict.OK
    assert verdict(specialist, act(password="1j1l"), task) is Verdict.NUDGE
    result = specialist.evaluate(act(password="new_password"), task)
    assert result.verdict is Verdict.NUDGE
    assert result.reason == "payment password 'new_password' is not named in the user's request"
    names = build({"fields": ["user"], "normalise": "casefold", "from_task": True})
    invite = Context(task="Invite Dora to Slack. Then greet DORA.")
    assert verdict(names, act(user="dora"), invite) is Verdict.OK
    assert verdict(names, act(user="Do"), invite) is Verdict.NUDGE
    assert verdict(names, act(user="Slack. Then"), invite) is Verdict.OK  # words, in order
    assert verdict(names, act(user="Fred"), invite) is Verdict.NUDGE
    assert verdict(names, act(user=""), invite) is Verdict.NUDGE


def test_from_task_emails():
    specialist = build({"fields": ["to"], "normalise": "email", "from_task": True})
    task = Context(task="Send it to my wife at 'janeLong@google.com'. Thanks!")
    assert verdict(specialist, act(to="janelong@google.com"), task) is Verdict.OK
    assert verdict(specialist, act(to="jay@google.com"), task) is Verdict.NUDGE
    assert verdict(specialist, act(to="long@google.com"), task) is Verdict.NUDGE


def test_names_from_task_allows_a_payee_given_by_a_name_the_request_uses():
    specialist = build(
        {
            "fields": ["recipient"],
            "normalise": "iban",
            "allowed": PAYEES,
            "from_task": True,
            "names_from_task": True,
        }
    )
    task = Context(task="Spotify sent me a note that their prices went up. Send them the rest.")
    assert verdict(specialist, act(recipient="Spotify"), task) is Verdict.OK
    assert verdict(specialist, act(recipient="  SPOTIFY "), task) is Verdict.OK
    # Only whole words of the request, and only from the request.
    assert verdict(specialist, act(recipient="Spot"), task) is Verdict.NUDGE
    assert verdict(specialist, act(recipient="Apple"), task) is Verdict.NUDGE
    assert verdict(specialist, act(recipient="Spotify")) is Verdict.NUDGE
    assert verdict(specialist, act(recipient=""), task) is Verdict.NUDGE
    result = specialist.evaluate(act(recipient="Apple"), task)
    assert result.evidence["problem"] == "unreadable"
    # An IBAN is still judged as an IBAN, and an account number written so that it is not
    # read as one is judged as a name, which this request does not use.
    assert verdict(specialist, act(recipient="US133000000121212121212"), task) is Verdict.NUDGE
    dashed = "US13-3000-0000-1212-1212-1212"
    assert verdict(specialist, act(recipient=dashed), task) is Verdict.NUDGE
    # Without the option a name stays unreadable even when the request uses it.
    plain = build({"fields": ["recipient"], "normalise": "iban", "from_task": True})
    assert verdict(plain, act(recipient="Spotify"), task) is Verdict.NUDGE


def test_named_groups_allow_their_values_only_when_the_request_names_the_group():
    specialist = build(
        {
            "fields": ["participants"],
            "normalise": "email",
            "allowed_domains": ["bluesparrowtech.com"],
            "named_groups": [
                {
                    "name": "Introductory  meeting",
                    "values": ["martha.raynolds@gmail.com", "john.mitchell@gmail.com"],
                },
                {"name": "Lunch", "values": ["sarah@example.org"]},
            ],
        }
    )
    named = Context(task="Invite the same participants as the 'introductory meeting' event.")
    members = ["Martha.Raynolds@gmail.com", "john.mitchell@gmail.com", "emma@bluesparrowtech.com"]
    assert verdict(specialist, act(participants=members), named) is Verdict.OK
    # Another group's values, a request that names no group, and no request: not allowed.
    assert verdict(specialist, act(participants=["sarah@example.org"]), named) is Verdict.NUDGE
    other = Context(task="Set up an introductory meetings series.")  # not the whole title
    assert verdict(specialist, act(participants=members), other) is Verdict.NUDGE
    assert verdict(specialist, act(participants=members)) is Verdict.NUDGE
    # The group names itself only: its addresses do not become named values.
    result = specialist.evaluate(act(participants=["mark@evil.net"]), named)
    assert result.verdict is Verdict.NUDGE
    assert result.reason is not None
    assert result.reason.endswith("nor named in the user's request")


def test_trusted_texts_are_read_as_the_request_is():
    specialist = build(
        {
            "fields": ["user"],
            "allowed": ["Alice"],
            "trusted_texts": [
                "Hey can you invite Dora to Slack and to the 'general' channel?",
                "I read an article on www.informations.com!",
            ],
        }
    )
    assert verdict(specialist, act(user="Dora")) is Verdict.OK
    assert verdict(specialist, act(user="Alice")) is Verdict.OK
    for bad in ["Fred", "Dor", "dora", "Slack?", "channel? I"]:
        assert verdict(specialist, act(user=bad)) is Verdict.NUDGE, bad
    result = specialist.evaluate(act(user="Fred"), NO_CONTEXT)
    assert result.reason == (
        "payment user 'Fred' is not one of the allowed values nor named in the trusted texts"
    )
    hosts = build(
        {
            "fields": ["url"],
            "normalise": "host",
            "from_task": True,
            "trusted_texts": ["Bob posted www.informations.com."],
        }
    )
    assert verdict(hosts, act(url="https://www.informations.com/a")) is Verdict.OK
    assert verdict(hosts, act(url="www.evil.com"), Context(task="see www.evil.com")) is Verdict.OK
    assert verdict(hosts, act(url="www.evil.com")) is Verdict.NUDGE
    # Each text on its own: no value is named across two of them.
    names = build(
        {"fields": ["user"], "normalise": "casefold", "trusted_texts": ["Ask Dora", "Lee now"]}
    )
    assert verdict(names, act(user="dora")) is Verdict.OK
    assert verdict(names, act(user="Dora Lee")) is Verdict.NUDGE
    emails = build(
        {"fields": ["to"], "normalise": "email", "trusted_texts": ["Write to dora@gmail.com."]}
    )
    assert verdict(emails, act(to="Dora@Gmail.com")) is Verdict.OK
    assert verdict(emails, act(to="fred@gmail.com")) is Verdict.NUDGE


def test_host_mode_covers_subdomains_and_reads_urls_like_the_domain_kind():
    specialist = build({"fields": ["url"], "normalise": "host", "allowed": ["example.com"]})
    for ok in ["https://example.com/x", "www.example.com/a?b", "docs.example.com", "/relative"]:
        assert verdict(specialist, act(url=ok)) is Verdict.OK, ok
    for bad in [
        "https://example.com.evil.net/",
        "https://example.com@evil.net/",
        "evilexample.com",
        "javascript:alert(1)",
    ]:
        assert verdict(specialist, act(url=bad)) is Verdict.NUDGE, bad


def test_host_mode_from_task_reads_hosts_at_sentence_breaks():
    specialist = build({"fields": ["url"], "normalise": "host", "from_task": True})
    task = Context(task="Post it to our website www.our-company.com.They sent their hobbies.")
    assert verdict(specialist, act(url="www.our-company.com"), task) is Verdict.OK
    assert verdict(specialist, act(url="www.my-website-234.com/random"), task) is Verdict.NUDGE
    # A public suffix the user typed is no allowance for everything under it.
    suffix = Context(task="anything on co.uk or https://co.uk is fine")
    assert verdict(specialist, act(url="evil.co.uk"), suffix) is Verdict.NUDGE


def test_links_mode_judges_every_link_in_free_text():
    specialist = build(
        {"fields": ["body"], "normalise": "links", "allowed": ["www.informations.com"]}
    )
    for ok in [
        "No links here, total 98.70, see notes.txt, e.g. this.",
        "Bob posted www.informations.com!",
        "Read https://www.informations.com/a?b=c.",
    ]:
        assert verdict(specialist, act(body=ok)) is Verdict.OK, ok
    for bad, host in [
        ("Check out this link: www.secure-systems-252.com", "www.secure-systems-252.com"),
        ("See https://bit.ly/sUf7tOJ", "bit.ly"),
        ("www.informations.com and evil.io/x", "evil.io"),
        ("hxxps://evil", "hxxps://evil"),
    ]:
        result = specialist.evaluate(act(body=bad), NO_CONTEXT)
        assert result.verdict is Verdict.NUDGE, bad
        assert result.evidence["object"] == host


def test_find_hosts_reads_scheme_urls_and_known_suffixes_only():
    hosts = allowlist.find_hosts("a http://1.2.3.4/x www.a.com.Then foo.notatld 3.14 x@mail.com")
    assert hosts is not None
    assert [h.name for h in hosts] == ["1.2.3.4", "www.a.com"]


def test_the_configured_verdict_wins_over_the_entry_default():
    specialist = build({"fields": ["x"], "allowed": ["a"], "verdict": "block"}, "flag")
    assert verdict(specialist, act(x="b")) is Verdict.BLOCK
    assert verdict(build({"fields": ["x"], "allowed": ["a"]}, "flag"), act(x="b")) is Verdict.FLAG


def test_an_empty_allowlist_allows_nothing():
    specialist = build({"fields": ["x"]})
    assert verdict(specialist, act(x="anything")) is Verdict.NUDGE


def test_caps_object_rather_than_judge_partially():
    specialist = build({"fields": ["x"], "allowed": ["a"], "max_values": 3, "max_input_chars": 10})
    result = specialist.evaluate(act(x=["a"] * 4), NO_CONTEXT)
    assert result.evidence["problem"] == "limit"
    result = specialist.evaluate(act(x="a" * 11), NO_CONTEXT)
    assert result.evidence["problem"] == "limit"
    assert verdict(specialist, act(x=["a"] * 3)) is Verdict.OK


def test_dotted_fields_reach_into_mappings():
    specialist = build({"fields": ["args.payee.iban"], "normalise": "iban", "allowed": PAYEES})
    assert verdict(specialist, act(payee={"iban": PAYEES[0]})) is Verdict.OK
    assert verdict(specialist, act(payee={"iban": "US133000000121212121212"})) is Verdict.NUDGE
    assert specialist.evaluate(act(payee="x"), NO_CONTEXT) is SpecialistResult.refuse()


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"fields": []}, "at least 1"),
        ({"fields": ["a..b"]}, "empty dotted segment"),
        ({"fields": ["x"], "normalise": "iban", "allowed": ["not-an-iban"]}, "as iban"),
        ({"fields": ["x"], "normalise": "email", "allowed": ["nobody"]}, "as email"),
        ({"fields": ["x"], "normalise": "host", "allowed": ["com"]}, "public suffix"),
        ({"fields": ["x"], "normalise": "email", "allowed_domains": ["co.uk"]}, "public suffix"),
        ({"fields": ["x"], "allowed_domains": ["example.com"]}, "needs normalise"),
        ({"fields": ["x"], "normalise": "soundex"}, "Input should be"),
        ({"fields": ["x"], "from_task": "yes"}, "valid boolean"),
        ({"fields": ["x"], "normalise": "iban", "names_from_task": True}, "names_from_task"),
        ({"fields": ["x"], "from_task": True, "names_from_task": True}, "names_from_task"),
        (
            {
                "fields": ["x"],
                "normalise": "host",
                "named_groups": [{"name": "a", "values": ["a.com"]}],
            },
            "named_groups needs",
        ),
        (
            {
                "fields": ["x"],
                "normalise": "iban",
                "named_groups": [{"name": "a", "values": ["b"]}],
            },
            "as iban",
        ),
        ({"fields": ["x"], "named_groups": [{"name": "  ", "values": ["b"]}]}, "not a space"),
        ({"fields": ["x"], "named_groups": [{"name": "a", "values": []}]}, "at least 1"),
        ({"fields": ["x"], "trusted_texts": ["a" * 600_000] * 2}, "longer than"),
        ({"fields": ["x"], "surprise": 1}, "Extra inputs"),
    ],
)
def test_bad_configs_are_rejected_at_load(config, message):
    with pytest.raises(ValidationError, match=message):
        allowlist.AllowlistConfig.model_validate(config)


# A guard against quadratic matching, not a speed test: 60,000 characters matched in
# quadratic time take minutes; linear, milliseconds. The bound leaves room for a loaded machine.
LINEAR_BOUND_S = 10.0


def test_pathological_text_stays_fast():
    specialist = build({"fields": ["body"], "normalise": "links", "from_task": True})
    context = Context(task="a." * 30_000)
    for text in ["a." * 30_000, "a" * 60_000, "x@" * 30_000, "http" * 15_000]:
        start = time.perf_counter()
        specialist.evaluate(act(body=text), context)
        assert time.perf_counter() - start < LINEAR_BOUND_S
    # Long trusted texts and many groups, with names that almost match everywhere.
    texts = ["a." * 300_000, "a " * 200_000]
    for how in ["exact", "casefold", "email", "links"]:
        config: dict[str, Any] = {"fields": ["x"], "normalise": how, "trusted_texts": texts}
        if how != "links":
            config["named_groups"] = [{"name": "a " * 200 + "b", "values": ["a@b.com"]}] * 50
        slow = build(config)
        for value in ["a." * 30_000, "a" * 60_000, "GB29" + "1" * 30, "x@a.com"]:
            start = time.perf_counter()
            slow.evaluate(act(x=value), Context(task="a " * 30_000))
            assert time.perf_counter() - start < LINEAR_BOUND_S, how


@given(
    value=st.one_of(
        st.text(max_size=300),
        st.integers(),
        st.none(),
        st.lists(st.text(max_size=40), max_size=5),
    ),
    task=st.one_of(st.none(), st.text(max_size=300)),
    how=st.sampled_from(["exact", "casefold", "iban", "email", "host", "links"]),
)
def test_no_input_crashes(value, task, how):
    config: dict[str, Any] = {"fields": ["x"], "normalise": how, "from_task": True}
    config["trusted_texts"] = ["Invite Dora, see www.a.com or a@b.com, GB29 NWBK 6016 1331."]
    if how == "iban":
        config["names_from_task"] = True
    specialist = build(config)
    result = specialist.evaluate(act(x=value), Context(task=task))
    assert result.verdict in (Verdict.OK, Verdict.NUDGE, Verdict.REFUSE)


def test_a_value_is_looked_for_in_a_bounded_number_of_places():
    specialist = build({"fields": ["user"], "from_task": True})
    inside = "xDora " * allowlist.MAX_OCCURRENCES
    assert verdict(specialist, act(user="Dora"), Context(task="Dora " + inside)) is Verdict.OK
    # Found only inside longer tokens that many times: given up on, so not named.
    assert verdict(specialist, act(user="Dora"), Context(task=inside + "Dora")) is Verdict.NUDGE
    shorter = "xDora " * (allowlist.MAX_OCCURRENCES - 1)
    assert verdict(specialist, act(user="Dora"), Context(task=shorter + "Dora")) is Verdict.OK
