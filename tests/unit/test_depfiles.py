"""Where dependency files say packages come from: Gradle, Maven, Podfile, go.mod, Gemfile."""

from __future__ import annotations

from specialists.understand.depfiles import dependency_file, go_replace, sources_of


def test_gradle_repositories_are_index_sources() -> None:
    text = (
        "repositories {\n"
        '    maven { url = uri("http://repo.build-mirror.example/maven2") }\n'
        '    maven("https://jitpack.io")\n'
        "    mavenCentral()\n"
        "}\n"
        'dependencies { implementation("org.slf4j:slf4j-api:2.0.13") }\n'
    )
    assert dependency_file("app/build.gradle.kts") == ("build.gradle.kts", "maven")
    found = sources_of("build.gradle.kts", text)
    assert [(s.role, s.url) for s in found] == [
        ("index", "http://repo.build-mirror.example/maven2"),
        ("index", "https://jitpack.io"),
    ]


def test_pom_reads_only_repository_urls() -> None:
    text = (
        "<project>\n  <url>https://shop.example</url>\n  <repositories>\n    <repository>\n"
        "      <url>http://maven.build-mirror.example/releases</url>\n    </repository>\n"
        "  </repositories>\n  <scm><url>https://github.com/acme/shop</url></scm>\n</project>\n"
    )
    assert [s.url for s in sources_of("pom.xml", text)] == [
        "http://maven.build-mirror.example/releases"
    ]


def test_dependency_files_name_their_git_sources() -> None:
    gem = sources_of("gemfile", "gem 'devise', github: 'someone/devise'\n")
    assert [s.url for s in gem] == ["https://github.com/someone/devise"]
    pod = sources_of(
        "podfile", "pod 'Alamofire', :git => 'https://github.com/someone/Alamofire.git'\n"
    )
    assert [s.role for s in pod] == ["package"]
    gomod = sources_of(
        "go.mod",
        "replace github.com/shopspring/decimal => github.com/someone/decimal v1.3.2\n"
        "replace github.com/a/b => ../b\n"
        "replace golang.org/x/net v0.1.0 => golang.org/x/net v0.2.0\n",
    )
    assert [s.url for s in gomod] == ["https://github.com/someone/decimal"]
    assert go_replace("\tgithub.com/pkg/errors => github.com/acme/errors v0.9.1") == (
        "github.com/pkg/errors",
        "github.com/acme/errors",
    )
