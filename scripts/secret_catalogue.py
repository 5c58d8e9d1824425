"""Builds supervisor/secret_catalogue.json from gitleaks' rule file (gitleaks.toml).

    python3 scripts/secret_catalogue.py gitleaks.toml LICENSE \
        --source "gitleaks v8.30.0-27-gb58d3f10" > supervisor/secret_catalogue.json

gitleaks (MIT) keeps a catalogue of some 220 secret formats (cloud keys, SaaS tokens, private
keys, JWTs) written in Go's regular expression syntax, which is RE2's: each pattern is
compiled here with google-re2 and any it refuses is dropped, with the reason, into the
file's "dropped" list (tests/unit/test_secret_catalogue.py names them). Also dropped: rules
that match file names rather than text, and the generic ``key = value`` rule, whose job
supervisor.redact's own keyword rules do. The licence text travels with the data.
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from typing import Any

import re2

# Rules left out on purpose, and why.
SKIPPED = {
    "generic-api-key": (
        "the generic name=value rule: supervisor.redact's keyword rules mask assignments "
        "to sensitive names already, without gitleaks' 1,446 stop words"
    ),
}


def _options() -> Any:
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1  # as supervisor.redact compiles them
    options.max_mem = 64 << 20
    return options


def _refused(pattern: str) -> str | None:
    """Why RE2 will not compile ``pattern`` (None when it does)."""
    try:
        re2.compile(pattern.encode(), _options())
    except re2.error as exc:
        return f"RE2 refuses the pattern: {exc}"
    return None


def _allowlist(raw: dict[str, Any]) -> dict[str, Any] | None:
    """The parts of an allowlist that apply to text without a file: regexes and stop words."""
    if not raw.get("regexes") and not raw.get("stopwords"):
        return None  # paths or commits only
    if raw.get("paths") and raw.get("condition", "OR").upper() == "AND":
        return None  # only for some files: never true without a file name
    return {
        "regexes": list(raw.get("regexes", [])),
        "target": raw.get("regexTarget", "secret"),
        "stopwords": [word.lower() for word in raw.get("stopwords", [])],
    }


def build(config: dict[str, Any], licence: str, source: str) -> dict[str, Any]:
    rules: list[dict[str, Any]] = []
    dropped: list[dict[str, str]] = []
    for rule in config["rules"]:
        rule_id = rule["id"]
        pattern = rule.get("regex")
        why = SKIPPED.get(rule_id)
        if why is None and pattern is None:
            why = "no pattern: it matches files by their name only"
        elif why is None and "path" in rule:
            why = f"only for files named like {rule['path']!r}; redaction sees no file name"
        elif why is None:
            why = _refused(pattern)
        if why is None and not rule.get("keywords"):
            why = "no keywords to pre-check it by"
        allowlists = [a for a in map(_allowlist, rule.get("allowlists", [])) if a is not None]
        for allow in allowlists:
            for regex in allow["regexes"]:
                refused = _refused(regex)
                if why is None and refused is not None:
                    why = f"allowlist: {refused}"
        if why is not None:
            dropped.append({"id": rule_id, "why": why})
            continue
        rules.append(
            {
                "id": rule_id,
                "regex": pattern,
                "keywords": sorted({k.lower() for k in rule["keywords"]}),
                "entropy": rule.get("entropy", 0.0),
                "group": rule.get("secretGroup", 0),
                "allowlists": allowlists,
            }
        )
    glob = config.get("allowlist", {})
    return {
        "source": source,
        "licence": "MIT",
        "notice": licence,
        "allowlist": {
            "regexes": [r for r in glob.get("regexes", []) if _refused(r) is None],
            "stopwords": [w.lower() for w in glob.get("stopwords", [])],
        },
        "rules": rules,
        "dropped": dropped,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("config", help="gitleaks' config/gitleaks.toml")
    parser.add_argument("licence", help="gitleaks' LICENSE file")
    parser.add_argument("--source", required=True, help="where the rules came from (version)")
    args = parser.parse_args()
    with open(args.config, "rb") as handle:
        config = tomllib.load(handle)
    with open(args.licence, encoding="utf-8") as handle:
        licence = handle.read()
    json.dump(build(config, licence, args.source), sys.stdout, indent=1, ensure_ascii=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
