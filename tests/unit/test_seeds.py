"""Where build_seed_models looks for an existing model before it builds a seed one."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from supervisor.seeds import _model_dir


def test_the_default_place_is_models_entry_in_the_home(tmp_path: Path):
    assert _model_dir(tmp_path, "e", SimpleNamespace()) == tmp_path / "models" / "e"


def test_a_model_dir_in_the_config_is_honoured(tmp_path: Path):
    assert _model_dir(tmp_path, "e", SimpleNamespace(model_dir="custom/m")) == tmp_path / "custom/m"
    absolute = tmp_path / "elsewhere"
    assert _model_dir(tmp_path, "e", SimpleNamespace(model_dir=str(absolute))) == absolute
