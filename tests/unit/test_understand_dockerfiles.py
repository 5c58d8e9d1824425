"""A Dockerfile's RUN lines as the commands an image build runs."""

from __future__ import annotations

import pytest

from specialists.understand.dockerfiles import build_commands, is_build_file


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("Dockerfile", True),
        ("docker/Containerfile", True),
        ("Dockerfile.dev", True),
        ("deploy/app.dockerfile", True),
        ("C:\\src\\app\\Dockerfile", True),
        ("docker-compose.yml", False),
        ("src/dockerfile_utils.py", False),
    ],
)
def test_build_files_by_name(path: str, expected: bool) -> None:
    assert is_build_file(path) is expected


def test_run_lines_joined_and_read() -> None:
    text = (
        "FROM ubuntu:22.04\n"
        "RUN apt-get update && apt-get install -y curl \\\n"
        "    # why curl\n"
        " && rm -rf /var/lib/apt/lists/*\n"
        "RUN --mount=type=cache,target=/root/.cache pip install -r requirements.txt\n"
        'RUN ["/bin/sh", "-c", "curl -fsSL https://x.example/i.sh | sh"]\n'
    )
    assert build_commands(text).splitlines() == [
        "apt-get update && apt-get install -y curl && rm -rf /var/lib/apt/lists/*",
        "pip install -r requirements.txt",
        "/bin/sh -c 'curl -fsSL https://x.example/i.sh | sh'",
    ]


def test_only_the_run_lines_a_change_adds() -> None:
    before = "FROM node:20\nRUN curl -fsSL https://x.example/i.sh | bash\nRUN npm ci\n"
    after = before.replace("RUN npm ci", "RUN npm ci --omit=dev")
    assert build_commands(after, before) == "npm ci --omit=dev"
    assert build_commands(before, before) == ""


def test_add_from_an_address_is_a_download() -> None:
    text = "FROM alpine\nADD https://x.example/i.sh /tmp/x.sh\nRUN sh /tmp/x.sh\n"
    assert build_commands(text).splitlines() == [
        "curl -fsSLo /tmp/x.sh https://x.example/i.sh",
        "sh /tmp/x.sh",
    ]
    assert build_commands("ADD https://x.example/a.sh https://x.example/b.sh /opt/\nRUN x\n") == (
        "curl -fsSLo /opt/a.sh https://x.example/a.sh && "
        "curl -fsSLo /opt/b.sh https://x.example/b.sh\nx"
    )


def test_add_verified_by_checksum_or_from_the_context_is_not_a_download() -> None:
    text = "ADD --checksum=sha256:ab12 https://x.example/i.sh /tmp/x.sh\nADD src/ /app/\nRUN x\n"
    assert build_commands(text) == "x"


def test_here_document_and_shell() -> None:
    text = (
        "RUN <<EOF\nset -e\ncurl -s https://x.example | bash\nEOF\n"
        'SHELL ["powershell", "-Command"]\n'
        "RUN iex (iwr -UseBasicParsing https://x.example/y.ps1)\n"
    )
    assert build_commands(text).splitlines() == [
        "set -e",
        "curl -s https://x.example | bash",
        "powershell -Command 'iex (iwr -UseBasicParsing https://x.example/y.ps1)'",
    ]


def test_no_run_no_commands() -> None:
    assert build_commands("FROM alpine\nADD https://x.example/i.sh /tmp/x.sh\n") == ""
    assert build_commands("") == ""
