"""Settings come from WAYFARER_ variables and .env; bad combinations name the variable."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.cli import load_settings
from rag.errors import ConfigError


def test_defaults_are_embedded(make_settings) -> None:  # type: ignore[no-untyped-def]
    s = make_settings()
    assert s.index.url is None and s.kv.url is None and s.llm.base_url is None
    assert s.index_path == s.server.data_dir / "index" and s.kv_path == s.server.data_dir / "kv.sqlite3"
    assert s.server.host == "127.0.0.1" and s.server.port == 8080
    assert s.index.search_mode == "hybrid"


def test_nested_environment_variables(make_settings) -> None:  # type: ignore[no-untyped-def]
    s = make_settings(
        WAYFARER_INDEX__URL="http://qdrant:6333",
        WAYFARER_INDEX__API_KEY="k",
        WAYFARER_KV__URL="redis://127.0.0.1:6379/0",
        WAYFARER_SERVER__PORT="9000",
        WAYFARER_ADMIN_TOKEN="tok-93xq",
    )
    assert (
        s.index.url == "http://qdrant:6333" and s.index.api_key and s.index.api_key.get_secret_value() == "k"
    )
    assert s.kv.url == "redis://127.0.0.1:6379/0" and s.server.port == 9000
    assert "tok-93xq" not in repr(s)  # secrets stay out of logs


def test_dotenv_is_read(make_settings, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / ".env").write_text("WAYFARER_SERVER__PORT=9123\n")
    assert make_settings().server.port == 9123


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"WAYFARER_INDEX__API_KEY": "k"}, "WAYFARER_INDEX__API_KEY"),
        ({"WAYFARER_INDEX__URL": "http://q", "WAYFARER_INDEX__PATH": "/x"}, "WAYFARER_INDEX__PATH"),
        ({"WAYFARER_KV__URL": "http://not-redis"}, "WAYFARER_KV__URL"),
        ({"WAYFARER_LLM__BASE_URL": "http://llm"}, "WAYFARER_LLM__MODEL"),
        ({"WAYFARER_SERVER__PORT": "eighty"}, "WAYFARER_SERVER__PORT"),
        ({"WAYFARER_INDEX__SEARCH_MODE": "fuzzy"}, "WAYFARER_INDEX__SEARCH_MODE"),
        ({"WAYFARER_INDEX__CHUNK_OVERLAP": "500"}, "WAYFARER_INDEX__CHUNK_OVERLAP"),
        ({"WAYFARER_CONNECTORS__AMADEUS_CLIENT_ID": "id"}, "WAYFARER_CONNECTORS__AMADEUS_CLIENT_SECRET"),
    ],
)
def test_invalid_settings_name_the_variable(
    make_settings, monkeypatch, env: dict[str, str], named: str
) -> None:  # type: ignore[no-untyped-def]
    make_settings()  # clean environment
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(ConfigError) as info:
        load_settings()
    assert named in info.value.message


def test_command_line_overrides(make_settings, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    make_settings()
    s = load_settings(tmp_path / "elsewhere", host="0.0.0.0", port=1234)
    assert (
        s.server.data_dir == tmp_path / "elsewhere" and s.server.port == 1234 and s.server.host == "0.0.0.0"
    )
