"""The ``domain`` kind: registrable-domain allow and deny lists, and the parsing tricks."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from specialists import domain
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.specialist import Execution, SpecialistKind
from supervisor.taxonomy import Entry

NO_CONTEXT = Context()


def kind() -> SpecialistKind:
    (registered,) = domain.supervisor_register_kinds()
    return registered


def make_entry(default_verdict: str = "block") -> Entry:
    return Entry.model_validate(
        {
            "id": "test_domain",
            "title": "A domain test entry",
            "description": "Objects to targets outside the allowed domains.",
            "example": {"summary": "An agent left the site.", "source": "https://example.org/x"},
            "severity": "high",
            "default_verdict": default_verdict,
            "references": ["CWE-601"],
            "detection": "deterministic",
            "applies_to": {"action_types": ["click", "http", "message"]},
            "specialist": {"kind": "domain", "config": {}},
        }
    )


def build(config: dict[str, Any], default_verdict: str = "block") -> domain.DomainSpecialist:
    k = kind()
    specialist = k.build(make_entry(default_verdict), k.config_model.model_validate(config))
    assert isinstance(specialist, domain.DomainSpecialist)
    return specialist


def click(url: Any, action_type: str = "click") -> Action:
    return Action(type=action_type, args={"url": url})


ALLOW_EXAMPLE = build({"allowed": ["example.com"]})


def verdict_of(
    url: Any, specialist: domain.DomainSpecialist = ALLOW_EXAMPLE, context: Context = NO_CONTEXT
) -> Verdict:
    return specialist.evaluate(click(url), context).verdict


def test_registers_the_domain_kind_and_runs_inline():
    k = kind()
    assert k.name == "domain"
    assert k.config_model is domain.DomainConfig
    assert ALLOW_EXAMPLE.execution is Execution.INLINE


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com",
        "https://example.com/path?q=1#frag",
        "http://www.example.com",
        "https://a.b.c.example.com:8443/x",
        "HTTPS://WWW.EXAMPLE.COM/",
        "https://example.com./",  # trailing dot
        "https://user:pw@example.com/",
        "example.com/path",  # scheme-less
        "www.example.com",
        "//cdn.example.com/lib.js",  # scheme-relative
        "example.com:8080",
        "https://ex%61mple.com/",  # browsers decode escapes in a host
        "https://evil.com%2f@example.com/",  # the escaped slash is part of the user-info
        "http:///example.com",  # browsers skip extra slashes
        "  https://example.com\n",
        "https://exa\tmple.com",  # browsers drop tabs and newlines
        "/relative/path",
        "./page.html",
        "?q=1",
        "#top",
        "",
    ],
)
def test_allowed(url):
    assert ALLOW_EXAMPLE.evaluate(click(url), NO_CONTEXT) is SpecialistResult.ok()


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("https://example.com.evil.net/login", "example.com.evil.net"),
        ("https://evilexample.com", "evilexample.com"),
        ("https://example.com-evil.net", "example.com-evil.net"),
        ("https://example.com@evil.net/", "evil.net"),
        ("example.com@evil.net", "evil.net"),
        ("https://example.com:443@evil.net/", "evil.net"),
        ("https://evil.net\\@example.com/", "evil.net"),  # "\" ends the authority, as in browsers
        ("https://evil.net\\example.com", "evil.net"),
        ("/\\evil.net/x", "evil.net"),  # browsers read /\ as //
        ("https://example.co", "example.co"),
        ("https://com", "com"),
        ("https://example.org", "example.org"),
    ],
)
def test_outside(url, host):
    result = ALLOW_EXAMPLE.evaluate(click(url), NO_CONTEXT)
    assert result.verdict is Verdict.BLOCK
    assert result.evidence["host"] == host


def test_objection_reason_evidence_and_correction():
    result = ALLOW_EXAMPLE.evaluate(click("https://evil.example.net/x"), NO_CONTEXT)
    assert result.reason == (
        "click target evil.example.net is outside the allowed domains "
        "(registrable domain example.net)"
    )
    assert result.evidence == {
        "field": "url",
        "domain": "example.net",
        "host": "evil.example.net",
        "object": "example.net",
        "allowed": ["example.com"],
    }
    assert result.correction == (
        "Stay on the allowed domains (example.com); find a way to finish the task without "
        "leaving them."
    )
    assert result.confidence == 1.0


def test_registrable_domain_uses_the_public_suffix_list():
    specialist = build({"allowed": ["example.co.uk"]})
    assert verdict_of("https://www.example.co.uk", specialist) is Verdict.OK
    result = specialist.evaluate(click("https://a.b.other.co.uk/"), NO_CONTEXT)
    assert result.evidence["domain"] == "other.co.uk"
    # A private suffix (github.io) separates owners just like a public one.
    pages = build({"allowed": ["me.github.io"]})
    assert verdict_of("https://me.github.io/blog", pages) is Verdict.OK
    assert pages.evaluate(click("https://you.github.io"), NO_CONTEXT).evidence["domain"] == (
        "you.github.io"
    )


def test_an_exact_host_entry_covers_itself_and_below_only():
    specialist = build({"allowed": ["docs.example.com"]})
    assert verdict_of("https://docs.example.com/a", specialist) is Verdict.OK
    assert verdict_of("https://v2.docs.example.com/a", specialist) is Verdict.OK
    assert verdict_of("https://example.com/", specialist) is Verdict.BLOCK
    assert verdict_of("https://api.example.com/", specialist) is Verdict.BLOCK


def test_context_allowed_domains_count():
    specialist = build({"allowed": ["example.com"]})
    context = Context(allowed_domains=("Python.org", "*.rust-lang.org", "not a domain", "com"))
    assert verdict_of("https://docs.python.org/3/", specialist, context) is Verdict.OK
    assert verdict_of("https://doc.rust-lang.org/", specialist, context) is Verdict.OK
    assert verdict_of("https://example.com/", specialist, context) is Verdict.OK
    # Invalid context entries and public suffixes are ignored, never an allowance.
    assert verdict_of("https://anything.com/", specialist, context) is Verdict.BLOCK
    result = specialist.evaluate(click("https://evil.net"), context)
    assert result.evidence["allowed"] == ["example.com", "python.org", "rust-lang.org"]


def test_use_context_false_ignores_the_context():
    specialist = build({"allowed": ["example.com"], "use_context": False})
    context = Context(allowed_domains=("python.org",))
    assert verdict_of("https://python.org", specialist, context) is Verdict.BLOCK


def test_nothing_to_judge_refuses():
    specialist = build({})  # no allowlist anywhere, no denylist: no opinion
    assert specialist.evaluate(click("https://evil.net"), NO_CONTEXT) is SpecialistResult.refuse()
    context = Context(allowed_domains=("example.com",))
    assert verdict_of("https://evil.net", specialist, context) is Verdict.BLOCK


def test_absent_fields_refuse():
    specialist = build({"allowed": ["example.com"], "fields": ["url", "to"]})
    assert specialist.evaluate(Action(type="click"), NO_CONTEXT) is SpecialistResult.refuse()
    null = Action(type="click", args={"url": None})
    assert specialist.evaluate(null, NO_CONTEXT) is SpecialistResult.refuse()


def test_denied_always_objects_even_when_allowed():
    specialist = build({"allowed": ["example.com"], "denied": ["evil.example.com", "ngrok.io"]})
    assert verdict_of("https://www.example.com", specialist) is Verdict.OK
    result = specialist.evaluate(click("https://x.evil.example.com/"), NO_CONTEXT)
    assert result.verdict is Verdict.BLOCK
    assert result.evidence["denied"] == "evil.example.com"
    assert result.reason == (
        "click target x.evil.example.com is on the denied domains (evil.example.com)"
    )


def test_denylist_alone_judges_only_the_denied():
    specialist = build({"denied": ["webhook.site", "ngrok.io", "127.0.0.1"]}, "flag")
    http = Action(type="http", args={"url": "https://webhook.site/abc"})
    assert specialist.evaluate(http, NO_CONTEXT).verdict is Verdict.FLAG
    # A public suffix may be denied: every site under it is.
    tunnel = specialist.evaluate(click("https://abc123.ngrok.io/"), NO_CONTEXT)
    assert tunnel.evidence["object"] == "abc123.ngrok.io"
    assert verdict_of("https://pypi.org/simple", specialist) is Verdict.OK
    # Other spellings of a denied IP address are the same address.
    for url in [
        "http://0x7f.0.0.1/",
        "http://2130706433/",
        "http://127.1/",
        "http://[::ffff:7f00:1]/",
    ]:
        assert verdict_of(url, specialist) is Verdict.FLAG, url


def test_ip_literals_are_allowed_only_when_listed_exactly():
    specialist = build({"allowed": ["10.0.0.5", "[2001:db8::1]"]})
    assert verdict_of("http://10.0.0.5:8080/x", specialist) is Verdict.OK
    assert verdict_of("http://[2001:DB8:0:0::1]/", specialist) is Verdict.OK
    for url in ["http://10.0.0.6/", "http://[2001:db8::2]/", "http://x.10.0.0.5/"]:
        assert verdict_of(url, specialist) is Verdict.BLOCK, url
    result = specialist.evaluate(click("http://192.168.1.1/"), NO_CONTEXT)
    assert result.evidence["domain"] == "192.168.1.1"  # an IP is its own registrable domain


def test_idna_hosts_are_compared_as_punycode():
    specialist = build({"allowed": ["bücher.de"]})
    assert verdict_of("https://BÜCHER.de/katalog", specialist) is Verdict.OK
    assert verdict_of("https://xn--bcher-kva.de/", specialist) is Verdict.OK
    assert (
        verdict_of("https://\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45\u3002com", ALLOW_EXAMPLE)
        is Verdict.OK
    )  # full-width
    homograph = ALLOW_EXAMPLE.evaluate(click("https://ex\u0430mple.com/"), NO_CONTEXT)  # Cyrillic a
    assert homograph.verdict is Verdict.BLOCK
    assert str(homograph.evidence["host"]).startswith("xn--")
    # Browsers map with UTS 46 non-transitional: faß.de is not fass.de (IDNA 2003 said it was).
    fass = build({"allowed": ["fass.de"]})
    assert verdict_of("https://faß.de/", fass) is Verdict.BLOCK
    eszett = build({"allowed": ["faß.de"]})
    assert verdict_of("https://FASS.de", eszett) is Verdict.BLOCK


def test_email_recipients():
    specialist = build({"allowed": ["example.com"], "fields": ["to", "cc"]})

    def mail(**args: Any) -> Verdict:
        return specialist.evaluate(Action(type="message", args=args), NO_CONTEXT).verdict

    assert mail(to="bob@example.com") is Verdict.OK
    assert mail(to="Bob <bob@Mail.Example.com>") is Verdict.OK
    assert mail(to=["a@example.com", "b@sales.example.com"], cc="c@example.com") is Verdict.OK
    assert mail(to="bob@example.com", cc=["x@evil.net"]) is Verdict.BLOCK
    assert mail(to="bob@example.com, eve@evil.net") is Verdict.BLOCK
    assert mail(to="example.com@evil.net") is Verdict.BLOCK
    assert mail(to='"Doe, John" <j@example.com>; eve@evil.net') is Verdict.BLOCK
    result = specialist.evaluate(Action(type="message", args={"to": "x@evil.net"}), NO_CONTEXT)
    assert result.reason == (
        "message target evil.net is outside the allowed domains (registrable domain evil.net)"
    )


def test_mailto_urls():
    assert verdict_of("mailto:bob@example.com") is Verdict.OK
    assert verdict_of("mailto:bob@example.com?subject=mail%20eve@evil.net") is Verdict.OK
    assert verdict_of("mailto:bob@example.com?cc=eve@evil.net") is Verdict.BLOCK
    assert verdict_of("MAILTO:bob@example.com,eve@evil.net") is Verdict.BLOCK
    assert verdict_of("mailto:bob%40evil.net") is Verdict.BLOCK
    assert verdict_of("mailto:bob") is Verdict.BLOCK  # no domain to judge


@pytest.mark.parametrize(
    ("url", "scheme"),
    [
        ("javascript:alert(document.cookie)", "javascript"),
        ("JaVaScRiPt:alert(1)", "javascript"),
        (" java\nscript:alert(1)", "javascript"),
        ("data:text/html;base64,PHNjcmlwdD4=", "data"),
        ("file:///etc/passwd", "file"),
        ("ftp://example.com/x", "ftp"),
        ("vbscript:msgbox", "vbscript"),
    ],
)
def test_other_schemes_object(url, scheme):
    result = ALLOW_EXAMPLE.evaluate(click(url), NO_CONTEXT)
    assert result.verdict is Verdict.BLOCK
    assert result.evidence["scheme"] == scheme
    assert result.evidence["object"] == f"{scheme}:"
    assert result.reason is not None
    assert f"{scheme}: scheme" in result.reason


def test_allow_schemes_extends_the_schemes():
    specialist = build({"allowed": ["example.com"], "allow_schemes": ["https", "FTP:", "tel"]})
    assert verdict_of("ftp://files.example.com/x", specialist) is Verdict.OK
    assert verdict_of("ftp://evil.net/x", specialist) is Verdict.BLOCK
    assert verdict_of("tel:+15551234", specialist) is Verdict.OK  # names no domain
    assert verdict_of("http://example.com", specialist) is Verdict.BLOCK  # http not listed


@pytest.mark.parametrize(
    "target",
    [
        "http://",
        "https://exa mple.com/",
        "https://a..b.com/",
        "https://[::1/",
        "https://[not-an-ip]/",
        "https://example.com:port/",
        "https://1.2.3.256/",
        "https://example.123/",  # a name that ends in a number must be an IPv4 address
        "https://<script>/",
        "a@",
        42,
        {"href": "https://example.com"},
        ["https://example.com", 7],
    ],
)
def test_unparseable_targets_object_and_never_crash(target):
    result = ALLOW_EXAMPLE.evaluate(click(target), NO_CONTEXT)
    assert result.verdict is Verdict.BLOCK
    assert result.reason is not None
    assert "could not be parsed" in result.reason


def test_limits():
    many = [f"https://s{i}.example.com" for i in range(domain.MAX_TARGETS)]
    assert ALLOW_EXAMPLE.evaluate(click(many), NO_CONTEXT) is SpecialistResult.ok()
    too_many = ALLOW_EXAMPLE.evaluate(click([*many, "https://example.com"]), NO_CONTEXT)
    assert too_many.verdict is Verdict.BLOCK
    assert "too large to check" in str(too_many.reason)
    # A long URL is fine when its host is within the first characters...
    long_query = "https://example.com/?q=" + "x" * (2 * domain.MAX_TARGET_CHARS)
    assert verdict_of(long_query) is Verdict.OK
    # ...but a host that does not end within them cannot be judged.
    long_host = "https://" + "a." * domain.MAX_TARGET_CHARS + "example.com/"
    assert verdict_of(long_host) is Verdict.BLOCK
    long_mail = build({"allowed": ["example.com"], "fields": ["to"]})
    addresses = ", ".join(f"u{i}@example.com" for i in range(1000))
    mail = Action(type="message", args={"to": addresses})
    assert long_mail.evaluate(mail, NO_CONTEXT).verdict is Verdict.BLOCK


def test_config_verdict_overrides_the_default():
    specialist = build({"allowed": ["example.com"], "verdict": "nudge"})
    assert verdict_of("https://evil.net", specialist) is Verdict.NUDGE


def test_allowed_entries_are_normalised():
    config = kind().config_model.model_validate(
        {"allowed": ["Example.COM.", "BÜCHER.de", "[::1]", "127.0.0.1"]}
    )
    assert isinstance(config, domain.DomainConfig)
    assert config.allowed == ["example.com", "xn--bcher-kva.de", "::1", "127.0.0.1"]


@pytest.mark.parametrize(
    ("config", "loc", "message"),
    [
        ({"allowed": ["com"]}, ("allowed", 0), "public suffix"),
        ({"allowed": ["ok.com", "github.io"]}, ("allowed", 1), "public suffix"),
        ({"allowed": ["co.uk"]}, ("allowed", 0), "public suffix"),
        ({"allowed": ["*.example.com"]}, ("allowed", 0), "instead of"),
        ({"allowed": ["https://example.com/"]}, ("allowed", 0), "not a domain"),
        ({"allowed": ["exa mple.com"]}, ("allowed", 0), "not a domain"),
        ({"denied": ["user@evil.net"]}, ("denied", 0), "not a domain"),
        ({"allow_schemes": []}, ("allow_schemes",), "at least one"),
        ({"allow_schemes": ["ht tp"]}, ("allow_schemes", 0), "not a URL scheme"),
        ({"fields": []}, ("fields",), "at least 1"),
        ({"use_context": False}, (), "nothing to check"),
        ({"alowed": ["example.com"]}, ("alowed",), "Extra inputs"),
    ],
)
def test_invalid_configs_are_rejected_with_a_location(config, loc, message):
    with pytest.raises(ValidationError) as info:
        kind().config_model.model_validate(config)
    (error,) = info.value.errors()
    assert error["loc"] == loc
    assert message in error["msg"]


LABEL = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,12}[a-z0-9])?", fullmatch=True)
SUBDOMAIN = st.lists(LABEL, min_size=0, max_size=4).map(
    lambda labels: "".join(f"{x}." for x in labels)
)
EVIL_SUFFIX = st.sampled_from(["net", "org", "io", "co.uk", "github.io", "com"])


@given(
    SUBDOMAIN,
    st.sampled_from(["https://", "http://", "//", ""]),
    st.sampled_from(["", "/", ":8080/x", "?a=b", "#f"]),
)
def test_any_host_under_an_allowed_domain_is_allowed(sub, scheme, tail):
    url = f"{scheme}{sub}example.com{tail}"
    assert ALLOW_EXAMPLE.evaluate(click(url), NO_CONTEXT) is SpecialistResult.ok()


@given(SUBDOMAIN, LABEL, EVIL_SUFFIX)
def test_an_allowed_name_inside_another_domain_is_outside(sub, evil, suffix):
    for host in (
        f"{sub}example.com.{evil}.{suffix}",  # allowed name as a subdomain of another
        f"{sub}{evil}example.com.{suffix}",
        f"{sub}{evil}-example.com",
        f"{sub}example.com-{evil}.{suffix}",
    ):
        result = ALLOW_EXAMPLE.evaluate(click(f"https://{host}/"), NO_CONTEXT)
        assert result.verdict is Verdict.BLOCK, host


@given(SUBDOMAIN, LABEL)
def test_user_info_never_decides_the_host(sub, evil):
    url = f"https://{sub}example.com@{evil}.net/"
    result = ALLOW_EXAMPLE.evaluate(click(url), NO_CONTEXT)
    assert result.verdict is Verdict.BLOCK
    assert result.evidence["host"] == f"{evil}.net"


@given(st.one_of(st.text(max_size=300), st.lists(st.text(max_size=50), max_size=5)))
def test_arbitrary_targets_never_crash(target):
    result = ALLOW_EXAMPLE.evaluate(click(target), NO_CONTEXT)
    assert result.verdict in (Verdict.OK, Verdict.BLOCK)
