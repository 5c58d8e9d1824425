"""Whatever text a taxonomy file holds, the loader raises TaxonomyError or succeeds."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from supervisor.errors import TaxonomyError
from supervisor.taxonomy import load_taxonomy

YAML_BITS = st.sampled_from(
    [
        "schema_version: 1\n",
        "id: t\n",
        "entries:\n",
        "  - id: a\n",
        "    title: t\n",
        "    severity: high\n",
        "override:\n",
        "  a: {timeout_ms: 5}\n",
        "disable: [a]\n",
        "budgets_ms: {shell: 0}\n",
        "- x\n",
        "{",
        "}",
        "[",
        "]",
        ": ",
        "'",
        '"',
        "&a ",
        "*a ",
        "!!python/object:os.system ",
        "? ",
        "%YAML 1.1\n",
        "---\n",
        "\t",
        "yes",
        "2024-01-01",
        "~",
        "null",
        "1e999",
        "\x00",
        "é",
    ]
)


@settings(
    max_examples=300,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.one_of(st.text(max_size=300), st.lists(YAML_BITS, max_size=40).map("".join)))
def test_loader_raises_only_taxonomy_error(tmp_path, kinds, text):
    path = tmp_path / "fuzz.yaml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    errors = []
    try:
        load_taxonomy([path], kinds)
    except TaxonomyError as exc:
        errors = exc.errors
        assert errors, "a TaxonomyError must say what is wrong"
    assert all(e.path == str(path) for e in errors)
