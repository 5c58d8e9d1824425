"""supervisor.environment: a production environment named or described in words."""

from __future__ import annotations

import pytest

from supervisor.environment import is_production, production_word


@pytest.mark.parametrize(
    "environment",
    [
        "production",
        "PROD",
        "live",
        "Supabase project: storefront-prod",
        "AWS account 1234 (production)",
        "StorefrontProd",
        "k8s cluster eu_prod_1",
    ],
)
def test_production_named_or_described(environment: str):
    assert is_production(environment)


@pytest.mark.parametrize(
    "environment",
    [
        None,
        "",
        "staging",
        "development",
        "Supabase project: storefront-preprod",
        "non-prod sandbox",
        "pre-prod",
        "not production, a copy for testing",
        "product catalogue dev",
        "deliver a live demo from staging",
    ],
)
def test_not_production(environment: str | None):
    assert not is_production(environment)


def test_a_configured_name_is_compared_whole():
    assert is_production("prd-eu", names=("prd-eu",))
    assert not is_production("prd-eu")  # prd is a name, not a word of a description


def test_the_word_that_says_production():
    assert production_word("Supabase project: storefront-prod") == "prod"
    assert production_word("staging") is None


def test_names_without_the_production_words_read_no_description():
    assert not is_production("Supabase project: storefront-prod", names=("live",))
    assert is_production("Supabase project: storefront-prod", names=("prod",))
