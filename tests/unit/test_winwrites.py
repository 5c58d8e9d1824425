"""PowerShell's file edits, read as the sed -i and printf | tee they amount to."""

from __future__ import annotations

import pytest

from specialists.shellparse import parse
from specialists.understand.shellwrites import ShellWrite, shell_writes
from specialists.winshell import windows_ops

HOME = "C:\\Users\\raj"


def edits(line: str) -> list[str]:
    return [op.words[0] for op in windows_ops(line, HOME) if op.kind == "shell"]


def writes(line: str) -> list[ShellWrite]:
    parsed = parse(line, cwd="/c:/Users/raj/src/app", home="/c:/Users/raj")
    return shell_writes(parsed)


@pytest.mark.parametrize(
    ("line", "edit"),
    [
        (
            "(Get-Content jest.config.js) -replace 'lines: 90','lines: 0'"
            " | Set-Content jest.config.js",
            "sed -i -E -e 's/lines: 90/lines: 0/gI' jest.config.js",
        ),
        (
            "(Get-Content -Raw tsconfig.json) -creplace 'a(\\d+)', 'b$1' -replace 'c'"
            " | Out-File tsconfig.json",
            "sed -i -E -e 's/a(\\d+)/b\\1/g' -e s/c//gI tsconfig.json",
        ),
        (
            "Get-Content f.txt | ForEach-Object { $_ -replace 'x','y' } | Set-Content -Path f.txt",
            "sed -i -E -e s/x/y/gI f.txt",
        ),
        (
            "(Get-Content pom.xml).Replace('1.2.0','1.3.0') | Set-Content pom.xml",
            "sed -i -E -e 's/1\\.2\\.0/1.3.0/g' pom.xml",
        ),
        (
            "Set-Content -Path f.txt -Value ((Get-Content f.txt -Raw) -replace 'x','y')",
            "sed -i -E -e s/x/y/gI f.txt",
        ),
        ("Set-Content README.md '# App','more'", "printf '%s\\n' '# App' more | tee README.md"),
        (
            'Add-Content -Path mypy.ini -Value "x = `"1`""',
            "printf '%s\\n' 'x = \"1\"' | tee -a mypy.ini",
        ),
        (
            "'ignore_errors = True' | Out-File -Append mypy.ini",
            "printf '%s\\n' 'ignore_errors = True' | tee -a mypy.ini",
        ),
        ("Set-Content -NoNewline f.txt 'x'", "printf %s x | tee f.txt"),
        (
            "$c = Get-Content tsconfig.json -Raw | ConvertFrom-Json;"
            " $c.compilerOptions.strict = $false;"
            " $c | ConvertTo-Json -Depth 10 | Set-Content tsconfig.json",
            "sed -i -E -e "
            '\'s/("strict":\\s*)(true|false|null|[0-9][0-9.]*|"[^"]*")/\\1false/g\' tsconfig.json',
        ),
    ],
)
def test_powershell_edits(line: str, edit: str) -> None:
    assert edits(line) == [edit]


@pytest.mark.parametrize(
    "line",
    [
        "(Get-Content a.txt) -replace 'x','y' | Set-Content b.txt",  # another file's text
        "Set-Content x.txt $text",  # a variable
        'Set-Content x.txt "v=$env:VERSION"',
        "Set-Content -Stream s x.txt 'y'",  # a parameter not known
        "$c = Get-Content a.json -Raw | ConvertFrom-Json; $c | ConvertTo-Json | Set-Content a.json",
        "Get-Content f.txt | Sort-Object | Set-Content f.txt",
    ],
)
def test_not_read(line: str) -> None:
    assert edits(line) == []


def test_the_edit_is_a_write_of_known_text_against_the_windows_cwd() -> None:
    found = writes(
        "(Get-Content jest.config.js) -replace 'lines: \\d+','lines: 0'"
        " | Set-Content jest.config.js"
    )
    (sed,) = [w for w in found if w.mode == "sed"]
    assert sed.path == "/c:/Users/raj/src/app/jest.config.js"
    assert sed.fragment() == ("lines: 1", "lines: 0")
    assert sed.apply("  lines: 90,\n") == "  lines: 0,\n"
    (home,) = writes("Add-Content $env:USERPROFILE\\.npmrc 'x=1'")
    assert (home.path, home.mode, home.text) == ("/c:/Users/raj/.npmrc", "append", "x=1\n")
    (json,) = writes(
        "$c = Get-Content tsconfig.json -Raw | ConvertFrom-Json;"
        " $c.compilerOptions.strict = $false; $c | ConvertTo-Json | Set-Content tsconfig.json"
    )
    assert json.apply('{"compilerOptions": {"strict": true}}\n') == (
        '{"compilerOptions": {"strict": false}}\n'
    )
