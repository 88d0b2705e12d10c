"""The harness names what it is missing, so a machine without a server skips saying why."""

from __future__ import annotations

from pathlib import Path

import pytest

from . import databases, mariadb


class TestUnavailable:
    def test_a_missing_mariadb_server_is_named(self, monkeypatch: pytest.MonkeyPatch):
        """Without ``mariadbd`` the reason names the path it looked at and the setting."""
        missing = Path("/nonexistent/slotwise/mariadbd")
        monkeypatch.setattr(mariadb, "SERVER", missing)

        reason = databases.unavailable_reason("mariadb")

        assert f"MariaDB's server is not at {missing} (set SLOTWISE_MARIADBD)" == reason

    def test_a_missing_install_db_is_named(self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
        """With a server but no ``mariadb-install-db`` on PATH, the reason names the tool."""
        server = tmp_path / "mariadbd"
        server.write_text("")
        monkeypatch.setattr(mariadb, "SERVER", server)
        monkeypatch.setenv("PATH", str(tmp_path))

        reason = databases.unavailable_reason("mariadb")

        assert "mariadb-install-db (MariaDB's data directory maker) is not on PATH" == reason

    def test_an_unknown_server_is_refused(self):
        """Only the servers the harness runs are accepted, by their names."""
        with pytest.raises(ValueError, match="postgresql or mariadb, not 'mysql'"):
            databases.unavailable_reason("mysql")
