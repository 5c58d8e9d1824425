"""The taxonomy loader: merging overlays, and errors that say file, line and field."""

from __future__ import annotations

import pytest

from supervisor.errors import TaxonomyError
from supervisor.taxonomy import load_taxonomy

from ..conftest import entry_dict, taxonomy_doc

GOOD = """\
schema_version: 1
id: team
entries:
  - id: no_force_push
    title: No force push
    description: d
    example: {summary: s, source: https://example.org/incident}
    severity: high
    default_verdict: nudge
    references: [CWE-693]
    detection: deterministic
    applies_to: {action_types: [shell]}
    specialist: {kind: scripted, config: {verdict: nudge}}
"""


def errors_of(exc_info: pytest.ExceptionInfo[TaxonomyError]) -> list[str]:
    return [str(e) for e in exc_info.value.errors]


def test_loads_and_hashes(write_taxonomy, kinds):
    path = write_taxonomy(GOOD)
    tax = load_taxonomy([path], kinds)
    assert [e.id for e in tax] == ["no_force_push"]
    assert tax.hash.startswith("sha256:")
    assert load_taxonomy([path], kinds).hash == tax.hash
    entry = tax["no_force_push"]
    assert entry.timeout_ms == 100
    assert entry.on_timeout == "refuse"
    assert entry.escalate_after == 2


def test_hash_changes_with_any_setting(write_taxonomy, kinds):
    a = load_taxonomy([write_taxonomy(GOOD)], kinds)
    b = load_taxonomy([write_taxonomy(GOOD.replace("verdict: nudge}", "verdict: block}"))], kinds)
    assert a.hash != b.hash


def test_unknown_field_names_file_line_and_field(write_taxonomy, kinds):
    path = write_taxonomy(
        GOOD.replace("    severity: high\n", "    severity: high\n    sevrity: low\n")
    )
    with pytest.raises(TaxonomyError) as info:
        load_taxonomy([path], kinds)
    (message,) = errors_of(info)
    assert message.startswith(f"{path}:9:")
    assert "no_force_push: sevrity" in message
    assert "taxonomy-unknown-field" in message
    assert "did you mean 'severity'?" in message


def test_bad_verdict_and_severity_are_located(write_taxonomy, kinds):
    text = GOOD.replace("default_verdict: nudge", "default_verdict: maybe").replace(
        "severity: high", "severity: huge"
    )
    with pytest.raises(TaxonomyError) as info:
        load_taxonomy([write_taxonomy(text)], kinds)
    messages = errors_of(info)
    assert len(messages) == 2
    assert any(":8:" in m and "severity" in m for m in messages)
    assert any(":9:" in m and "default_verdict" in m for m in messages)


def test_missing_required_field(write_taxonomy, kinds):
    with pytest.raises(TaxonomyError) as info:
        load_taxonomy([write_taxonomy(GOOD.replace("    references: [CWE-693]\n", ""))], kinds)
    (message,) = errors_of(info)
    assert "references" in message
    assert "required field is missing" in message
    assert ":4:" in message  # the entry's line, where the field should be


def test_duplicate_ids_across_files(write_taxonomy, kinds):
    first, second = write_taxonomy(GOOD), write_taxonomy(GOOD)
    with pytest.raises(TaxonomyError) as info:
        load_taxonomy([first, second], kinds)
    (message,) = errors_of(info)
    assert message.startswith(f"{second}:4:")
    assert "taxonomy-duplicate-id" in message
    assert f"{first}:4" in message


def test_duplicate_yaml_key_is_an_error(write_taxonomy, kinds):
    text = GOOD.replace("    severity: high\n", "    severity: high\n    severity: low\n")
    with pytest.raises(TaxonomyError) as info:
        load_taxonomy([write_taxonomy(text)], kinds)
    (message,) = errors_of(info)
    assert ":9:" in message
    assert "yaml-duplicate-key" in message
    assert "'severity'" in message


def test_yaml_syntax_error(write_taxonomy, kinds):
    with pytest.raises(TaxonomyError) as info:
        load_taxonomy([write_taxonomy(GOOD + "  - id: [unclosed\n")], kinds)
    assert "yaml-syntax" in errors_of(info)[0]


def test_unknown_kind_suggests_a_close_one(write_taxonomy, kinds):
    with pytest.raises(TaxonomyError) as info:
        load_taxonomy([write_taxonomy(GOOD.replace("kind: scripted", "kind: scriptd"))], kinds)
    (message,) = errors_of(info)
    assert ":13:" in message
    assert "taxonomy-unknown-kind" in message
    assert "did you mean 'scripted'?" in message


def test_bad_kind_config_is_located(write_taxonomy, kinds):
    text = GOOD.replace("config: {verdict: nudge}", "config: {verdict: nudge, behavior: x}")
    with pytest.raises(TaxonomyError) as info:
        load_taxonomy([write_taxonomy(text)], kinds)
    (message,) = errors_of(info)
    assert ":13:" in message
    assert "specialist.config.behavior" in message


def test_yes_is_not_a_boolean(write_taxonomy, kinds):
    text = GOOD.replace(
        "    detection: deterministic\n", "    detection: deterministic\n    enabled: no\n"
    )
    with pytest.raises(TaxonomyError) as info:
        load_taxonomy([write_taxonomy(text)], kinds)
    assert "enabled" in errors_of(info)[0]


def test_overlay_overrides_disables_and_adds(write_taxonomy, kinds):
    pack = write_taxonomy(taxonomy_doc(entry_dict("a"), entry_dict("b"), budgets_ms={"shell": 50}))
    overlay = write_taxonomy(
        {
            "schema_version": 1,
            "id": "overlay",
            "entries": [entry_dict("c", default_verdict="flag")],
            "disable": ["b"],
            "override": {
                "a": {
                    "default_verdict": "block",
                    "timeout_ms": 20,
                    "specialist": {"config": {"verdict": "block"}},
                }
            },
            "budgets_ms": {"default": 300},
        }
    )
    tax = load_taxonomy([pack, overlay], kinds)
    assert [e.id for e in tax] == ["a", "c"]
    assert tax["a"].default_verdict == "block"
    assert tax["a"].timeout_ms == 20
    assert tax["a"].specialist.kind == "scripted"  # deep merge kept the kind
    assert tax.configs["a"].verdict == "block"  # type: ignore[attr-defined]
    assert tax.disabled == ("b",)
    assert tax.budget_ms("shell") == 50
    assert tax.budget_ms("http") == 300


def test_override_errors_point_at_the_overlay(write_taxonomy, kinds):
    pack = write_taxonomy(taxonomy_doc(entry_dict("a")))
    overlay = write_taxonomy(
        "schema_version: 1\nid: o\noverride:\n  a:\n    timeout_ms: -5\n  zz:\n    timeout_ms: 5\n"
        "disable: [nope]\n"
    )
    with pytest.raises(TaxonomyError) as info:
        load_taxonomy([pack, overlay], kinds)
    messages = errors_of(info)
    assert any(m.startswith(f"{overlay}:5:") and "timeout_ms" in m for m in messages)
    assert any(m.startswith(f"{overlay}:6:") and "'zz'" in m for m in messages)
    assert any(m.startswith(f"{overlay}:8:") and "'nope'" in m for m in messages)


def test_all_errors_collected_across_files(write_taxonomy, kinds):
    bad1 = write_taxonomy(GOOD.replace("severity: high", "severity: x"))
    bad2 = write_taxonomy("schema_version: 2\nid: Bad-Id\n")
    with pytest.raises(TaxonomyError) as info:
        load_taxonomy([bad1, bad2], kinds)
    messages = errors_of(info)
    assert len(messages) == 3
    assert "3 errors" in str(info.value)


def test_correction_templates_only_plain_placeholders(write_taxonomy, kinds):
    doc = taxonomy_doc(entry_dict("a", correction={"first": "see {object.__class__}"}))
    with pytest.raises(TaxonomyError) as info:
        load_taxonomy([write_taxonomy(doc)], kinds)
    assert "plain name" in errors_of(info)[0]


def test_applies_to_needs_something(write_taxonomy, kinds):
    with pytest.raises(TaxonomyError) as info:
        load_taxonomy([write_taxonomy(taxonomy_doc(entry_dict("a", applies_to={})))], kinds)
    assert "applies_to" in errors_of(info)[0]


def test_unknown_pack_and_missing_file(kinds):
    with pytest.raises(TaxonomyError) as info:
        load_taxonomy(["codng"], kinds)
    assert "did you mean 'coding'?" in errors_of(info)[0]


def test_not_a_mapping(write_taxonomy, kinds):
    with pytest.raises(TaxonomyError, match="taxonomy-not-a-mapping"):
        load_taxonomy([write_taxonomy("- just\n- a list\n")], kinds)


def test_kind_config_is_strict(write_taxonomy, kinds):
    text = GOOD.replace("config: {verdict: nudge}", "config: {verdict: nudge, seconds: '5'}")
    with pytest.raises(TaxonomyError) as info:
        load_taxonomy([write_taxonomy(text)], kinds)
    assert "specialist.config.seconds" in errors_of(info)[0]
    ok = GOOD.replace("config: {verdict: nudge}", "config: {verdict: nudge, seconds: 5}")
    assert load_taxonomy([write_taxonomy(ok)], kinds).configs["no_force_push"].seconds == 5.0


def test_with_timeouts_sets_every_timeout_and_budget():
    from supervisor.plugins import load_kinds
    from supervisor.taxonomy import with_timeouts

    pack = load_taxonomy(["coding"], load_kinds())
    slow = with_timeouts(pack, 60_000)
    assert {e.timeout_ms for e in slow.entries} == {60_000}
    assert set(slow.budgets_ms.values()) == {60_000}
    assert slow.budget_ms("an-unknown-type") == 60_000
    assert slow.hash != pack.hash  # a record says which timeouts decided
    assert [e.id for e in slow] == [e.id for e in pack]
    assert slow[pack.entries[0].id].timeout_ms == 60_000
