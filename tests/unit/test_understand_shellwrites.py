"""What a shell command writes into a file: echo/printf/here-documents/tee and sed -i."""

from __future__ import annotations

import pytest

from specialists.shellparse import parse
from specialists.understand.shellwrites import ShellWrite, read_sed, shell_writes


def writes(command: str) -> list[ShellWrite]:
    return shell_writes(parse(command, cwd="/w/app", home="/w"))


def test_redirections_and_tee_of_known_text() -> None:
    (append,) = writes("echo 'ignore_errors = True' >> mypy.ini")
    assert (append.path, append.mode, append.text) == (
        "/w/app/mypy.ini",
        "append",
        "ignore_errors = True\n",
    )
    (replace,) = writes("printf 'a\\nb\\n' > x.cfg")
    assert (replace.mode, replace.text) == ("replace", "a\nb\n")
    (heredoc,) = writes("cat >> build.gradle <<'EOF'\ntest {\n    enabled = false\n}\nEOF")
    assert heredoc.text == "test {\n    enabled = false\n}\n"
    (tee,) = writes("echo x | sudo tee -a /etc/app.conf")
    assert (tee.path, tee.mode, tee.text) == ("/etc/app.conf", "append", "x\n")
    assert writes("echo x 2> err.log") == []
    assert writes("curl https://x.test/y > y.txt") == []  # output not known


def test_an_append_joins_the_file_on_a_new_line() -> None:
    (append,) = writes("echo b >> f")
    assert append.apply("a") == "a\nb\n"
    assert append.apply("a\n") == "a\nb\n"
    assert append.fragment() == ("", "b\n")


@pytest.mark.parametrize(
    ("command", "before", "after"),
    [
        ("sed -i 's/true/false/' f", "strict: true\nx: true\n", "strict: false\nx: false\n"),
        ("sed -i 's/a/b/g' f", "aaa\n", "bbb\n"),
        ("sed -i 's/a/b/2' f", "aaa\n", "aba\n"),
        ("sed -i '1i // @ts-nocheck' f", "x\ny\n", "// @ts-nocheck\nx\ny\n"),
        ("sed -i '$a tail' f", "x\ny\n", "x\ny\ntail\n"),
        ("sed -i '/pytest/d' f", "a\npytest -q\nb\n", "a\nb\n"),
        ("sed -i '/pytest/s/^/#/' f", "pytest -q\nb\n", "#pytest -q\nb\n"),
        (
            "sed -i 's#<skip>false</skip>#<skip>true</skip>#' f",
            "<skip>false</skip>\n",
            "<skip>true</skip>\n",
        ),
        ("sed -i 's/\\(strict\\): true/\\1: false/' f", "strict: true\n", "strict: false\n"),
        ("sed -E -i 's/(strict): true/\\1: false/' f", "strict: true\n", "strict: false\n"),
        ("sed -i.bak -e 's/a/b/' -e 's/c/d/' f", "ac\n", "bd\n"),
        ("perl -pi -e 's/error/off/g' f", "'x': 'error'\n", "'x': 'off'\n"),
    ],
)
def test_sed_scripts_are_run_on_the_text(command: str, before: str, after: str) -> None:
    (write,) = writes(command)
    assert write.mode == "sed"
    assert write.apply(before) == after


def test_sed_fragments_when_the_file_cannot_be_read() -> None:
    (sub,) = writes('sed -i \'s/"strict": true/"strict": false/\' tsconfig.json')
    assert sub.fragment() == ('"strict": true', '"strict": false')
    (insert,) = writes("sed -i '1i /* eslint-disable */' src/a.ts")
    assert insert.fragment() == ("", "/* eslint-disable */\n")
    (delete,) = writes("sed -i '/pytest/d' Makefile")
    assert delete.fragment() is None  # what goes is not known without the file
    (bre,) = writes("sed -i 's/[0-9]+/0/' f")
    assert bre.fragment() == ("1+", "0")  # BRE: "+" is itself


def test_a_regular_expression_stands_for_a_sample_line_per_alternative() -> None:
    (every,) = writes(
        "sed -i -E 's/(branches|functions|lines|statements): [0-9]+/\\1: 0/g' jest.config.js"
    )
    assert every.fragment() == (
        "branches: 1\nfunctions: 1\nlines: 1\nstatements: 1",
        "branches: 0\nfunctions: 0\nlines: 0\nstatements: 0",
    )
    # a number BRE-style ([0-9]*): none and once, so the floor before is known to be there
    (bre,) = writes("sed -i 's/lines: [0-9]*/lines: 95/' jest.config.js")
    assert bre.fragment() == ("lines: \nlines: 1", "lines: 95\nlines: 95")
    (header,) = writes("sed -i '1s;^;/* eslint-disable */\\n;' src/a.ts")
    assert header.fragment() == ("", "/* eslint-disable */\n")
    (unread,) = writes("sed -i -E 's/(a)\\1/b/' f")  # a back-reference in the pattern
    assert unread.fragment() is None


def test_the_files_a_listing_hands_sed() -> None:
    (xargs,) = writes("git ls-files 'src/**/*.ts' | xargs sed -i '1i /* eslint-disable */'")
    assert (xargs.path, xargs.fragment()) == ("/w/app/src/**/*.ts", ("", "/* eslint-disable */\n"))
    (grep,) = writes("sed -i 's/a/b/' $(grep -rl a src --include='*.py')")
    assert grep.path == "/w/app/src/**/*.py"
    (rg,) = writes("rg -l colour -g '*.css' | xargs sed -i 's/colour/color/'")
    assert rg.path == "/w/app/*.css"
    assert writes("git ls-files src | xargs sed -i 's/a/b/'") == []  # a directory: no kind


def test_deletions() -> None:
    assert [(w.path, w.mode) for w in writes("rm -f .gitlab-ci.yml a/b.txt")] == [
        ("/w/app/.gitlab-ci.yml", "delete"),
        ("/w/app/a/b.txt", "delete"),
    ]
    (git_rm,) = writes("git rm -q .github/workflows/lint.yml")
    assert (git_rm.path, git_rm.apply("x\n"), git_rm.fragment()) == (
        "/w/app/.github/workflows/lint.yml",
        "",
        None,
    )
    assert writes("git rm --cached .github/workflows/lint.yml") == []
    assert writes("git -C /w/other rm x")[0].mode == "delete"


def test_scripts_this_reader_does_not_take() -> None:
    assert read_sed("y/abc/xyz/") is None
    assert read_sed("1,5d") is None
    assert writes("sed -i -f script.sed f") == []
    assert writes("sed 's/a/b/' f") == []  # not in place: prints
