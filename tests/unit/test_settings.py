"""The command line's settings from the environment: the option, then the variable, then the default."""

from __future__ import annotations

import argparse

import pytest

from slotwise._settings import flag, resolve, seconds, setting, settings_list, variable
from slotwise.cli import _parser
from slotwise.errors import InvalidChoice, InvalidFormat


def _parsed(argv: list[str], **environ: str) -> argparse.Namespace:
    """Parse *argv* with slotwise's parser and resolve it against *environ* alone."""
    return resolve(_parser().parse_args(argv), environ)


class TestPrecedence:
    def test_the_command_line_beats_the_environment(self):
        """--port 9001 with SLOTWISE_PORT=9002 set: 9001."""
        arguments = _parsed(["serve", "--port", "9001"], SLOTWISE_PORT="9002")

        assert 9001 == arguments.port

    def test_the_environment_beats_the_default(self):
        """SLOTWISE_PORT=9002 and no --port: 9002, converted as the option converts it."""
        arguments = _parsed(["serve"], SLOTWISE_PORT="9002")

        assert 9002 == arguments.port

    def test_the_default_when_neither_is_given(self):
        """No option and no variable (or an empty one): the option's default."""
        assert (8000, "127.0.0.1", "session") == (
            _parsed(["serve"], SLOTWISE_PORT="").port,
            _parsed(["serve"]).host,
            _parsed(["serve"]).pool_mode,
        )

    def test_every_serve_setting_named_in_the_issue_has_its_variable(self):
        """SLOTWISE_DB, _HOST, _PORT, _WORKERS, _LOG_LEVEL, _ALLOW_LOCAL_WEBHOOKS, _POOL_MODE."""
        arguments = _parsed(
            ["serve"],
            SLOTWISE_DB="sqlite:///x.db",
            SLOTWISE_HOST="0.0.0.0",
            SLOTWISE_PORT="80",
            SLOTWISE_WORKERS="4",
            SLOTWISE_LOG_LEVEL="warning",
            SLOTWISE_ALLOW_LOCAL_WEBHOOKS="true",
            SLOTWISE_POOL_MODE="transaction",
            SLOTWISE_WITH_WORKER="1",
            SLOTWISE_MAX_BODY_SIZE="2048",
            SLOTWISE_THREADS="6",
            SLOTWISE_LOG_FORMAT="json",
            SLOTWISE_CREATE="0",
            SLOTWISE_REPLICAS="postgresql://r1/db postgresql://r2/db",
            SLOTWISE_MAX_LAG="2.5",
            SLOTWISE_REPLICA_RETRY="0",
            SLOTWISE_SCHEMA="bookings",
        )

        assert {
            "db": "sqlite:///x.db",
            "host": "0.0.0.0",
            "port": 80,
            "workers": 4,
            "log_level": "warning",
            "allow_local_webhooks": True,
            "pool_mode": "transaction",
            "with_worker": True,
            "max_body_size": 2048,
            "threads": 6,
            "log_format": "json",
            "create": False,
            "replicas": ["postgresql://r1/db", "postgresql://r2/db"],
            "max_lag": 2.5,
            "replica_retry": 0.0,
            "schema": "bookings",
        } == {key: getattr(arguments, key) for key in vars(arguments) if key != "command"}

    def test_every_worker_option_is_read_from_the_environment(self):
        """worker: SLOTWISE_SCHEMA, _CONCURRENCY, _BATCH, _LEASE (a float) and the shared ones."""
        arguments = _parsed(
            ["worker", "--batch", "7"],
            SLOTWISE_SCHEMA="bookings",
            SLOTWISE_CONCURRENCY="3",
            SLOTWISE_BATCH="99",
            SLOTWISE_LEASE="12.5",
        )

        assert ("bookings", 3, 7, 12.5) == (
            arguments.schema,
            arguments.concurrency,
            arguments.batch,
            arguments.lease,
        )

    def test_db_and_pool_mode_are_read_by_every_command(self):
        """tokens list takes --db and --pool-mode from the environment; --company stays an argument."""
        arguments = _parsed(
            ["tokens", "list", "--company", "co"],
            SLOTWISE_DB="sqlite:///t.db",
            SLOTWISE_POOL_MODE="transaction",
            SLOTWISE_COMPANY="other",
        )

        assert ("sqlite:///t.db", "transaction", "co") == (
            arguments.db,
            arguments.pool_mode,
            arguments.company,
        )

    def test_a_flag_on_by_default_reads_its_positive_name(self):
        """--create/--no-create: SLOTWISE_CREATE=0 turns it off, either option beats the variable."""
        assert (True, False, True, False, True) == (
            _parsed(["worker"]).create,
            _parsed(["worker"], SLOTWISE_CREATE="off").create,
            _parsed(["worker", "--create"], SLOTWISE_CREATE="0").create,
            _parsed(["serve", "--no-create"], SLOTWISE_CREATE="1").create,
            _parsed(["serve"], SLOTWISE_CREATE="").create,
        )

    def test_schema_commands_read_db_and_schema_from_the_environment(self):
        """schema upgrade takes --db, --pool-mode and --schema from SLOTWISE_DB and the others."""
        arguments = _parsed(
            ["schema", "upgrade"],
            SLOTWISE_DB="postgresql+psycopg://db/x",
            SLOTWISE_POOL_MODE="transaction",
            SLOTWISE_SCHEMA="bookings",
        )

        assert ("postgresql+psycopg://db/x", "transaction", "bookings") == (
            arguments.db,
            arguments.pool_mode,
            arguments.schema,
        )

    @pytest.mark.parametrize(
        "argv",
        [
            ["serve"],
            ["demo"],
            ["tokens", "list", "--company", "co"],
            ["tokens", "create", "--company", "co", "--label", "a"],
            ["tokens", "revoke", "t1"],
            ["companies", "create", "--name", "A", "--timezone", "UTC"],
        ],
    )
    def test_every_command_opening_the_tables_reads_schema(self, argv: list[str]):
        """serve, demo and tokens take --schema, and SLOTWISE_SCHEMA when it is not given."""
        assert ("bookings", "given") == (
            _parsed(argv, SLOTWISE_SCHEMA="bookings").schema,
            _parsed([*argv, "--schema", "given"], SLOTWISE_SCHEMA="bookings").schema,
        )

    def test_the_deprecated_flag_keeps_to_the_command_line(self):
        """--allow-local (deprecated) has no variable: SLOTWISE_ALLOW_LOCAL is not read."""
        arguments = _parsed(["worker"], SLOTWISE_ALLOW_LOCAL="1")

        assert (False, False) == (arguments.deprecated_allow_local, arguments.allow_local_webhooks)

    def test_help_names_each_variable(self):
        """serve --help shows [env SLOTWISE_...] beside every option."""
        serve = next(
            action.choices["serve"]
            for action in _parser()._actions
            if isinstance(action, argparse._SubParsersAction)
        )
        helps = {
            action.option_strings[0]: action.help
            for action in serve._actions
            if action.option_strings and action.dest != "help"
        }
        # A repeatable option's variable is named after its list (decision: values split at spaces).
        names = {option: variable(option) for option in helps} | {"--replica": "SLOTWISE_REPLICAS"}

        assert {option: f"[env {names[option]}]" for option in helps} == {
            option: (text or "")[-len(f"[env {names[option]}]") :] for option, text in helps.items()
        }


class TestReplicas:
    def test_replicas_come_from_one_variable_separated_by_whitespace(self):
        """SLOTWISE_REPLICAS holds several URLs split at spaces, tabs or newlines (not commas)."""
        arguments = _parsed(
            ["serve"], SLOTWISE_REPLICAS=" postgresql://a,b/db\tpostgresql://c/db\n"
        )

        assert ["postgresql://a,b/db", "postgresql://c/db"] == arguments.replicas

    def test_replicas_on_the_command_line_replace_the_variable(self):
        """--replica twice with SLOTWISE_REPLICAS set: the two given, not the variable's."""
        arguments = _parsed(
            ["serve", "--replica", "postgresql://x/db", "--replica", "postgresql://y/db"],
            SLOTWISE_REPLICAS="postgresql://z/db",
        )

        assert ["postgresql://x/db", "postgresql://y/db"] == arguments.replicas

    def test_without_replicas_the_options_are_unset(self):
        """No option, no variable: no replicas, and the store's defaults for the seconds."""
        arguments = _parsed(["serve"], SLOTWISE_REPLICAS="  ")

        assert (None, None, None) == (
            arguments.replicas,
            arguments.max_lag,
            arguments.replica_retry,
        )

    @pytest.mark.parametrize("raw", ["-1", "soon", "nan"])
    def test_bad_seconds_name_the_variable(self, raw: str):
        """SLOTWISE_MAX_LAG that is not a number of seconds at least 0: InvalidFormat naming it."""
        with pytest.raises(InvalidFormat) as caught:
            _parsed(["serve"], SLOTWISE_MAX_LAG=raw)

        assert ("SLOTWISE_MAX_LAG", raw) == (caught.value.field, caught.value.value)
        assert "a number of seconds, at least 0" in str(caught.value)

    def test_bad_seconds_on_the_command_line_exit_2(self, capsys):
        """--replica-retry -1 is refused by the parser, naming the option."""
        with pytest.raises(SystemExit) as caught:
            _parsed(["serve", "--replica-retry", "-1"])

        assert 2 == caught.value.code
        assert "--replica-retry: must be at least 0 seconds" in capsys.readouterr().err

    def test_a_replica_url_with_a_space_is_refused(self, capsys):
        """--replica 'a b' could not travel in SLOTWISE_REPLICAS to the workers: refused."""
        with pytest.raises(SystemExit):
            _parsed(["serve", "--replica", "postgresql://u:a b@h/db"])

        assert "must be a URL without spaces" in capsys.readouterr().err

    def test_the_worker_processes_read_the_same_variables(self):
        """setting() and settings_list() read as the options do, naming a bad variable."""
        environ = {"SLOTWISE_REPLICAS": "postgresql://a/db\npostgresql://b/db", "X": "-3"}

        with pytest.raises(InvalidFormat) as caught:
            setting("X", seconds, environ)

        assert ["postgresql://a/db", "postgresql://b/db"] == settings_list(
            "SLOTWISE_REPLICAS", environ=environ
        )
        assert (None, 1.5) == (
            setting("NONE", seconds, environ),
            setting("Y", seconds, {"Y": "1.5"}),
        )
        assert "X" == caught.value.field


class TestRefusals:
    def test_a_number_that_is_not_one_names_the_variable(self):
        """SLOTWISE_PORT=eighty raises InvalidFormat naming SLOTWISE_PORT."""
        with pytest.raises(InvalidFormat) as caught:
            _parsed(["serve"], SLOTWISE_PORT="eighty")

        assert ("SLOTWISE_PORT", "eighty") == (caught.value.field, caught.value.value)

    def test_a_bad_variable_is_not_read_when_its_option_is_given(self):
        """--port 81 with SLOTWISE_PORT=eighty: the variable is never read, nothing is refused."""
        assert 81 == _parsed(["serve", "--port", "81"], SLOTWISE_PORT="eighty").port

    def test_a_value_outside_the_choices_names_the_variable(self):
        """SLOTWISE_POOL_MODE=statement raises InvalidChoice naming the variable and the modes."""
        with pytest.raises(InvalidChoice) as caught:
            _parsed(["worker"], SLOTWISE_POOL_MODE="statement")

        assert ("SLOTWISE_POOL_MODE", ("session", "transaction")) == (
            caught.value.field,
            caught.value.allowed,
        )

    @pytest.mark.parametrize(("raw", "expected"), [("1", True), ("On", True), ("no", False)])
    def test_flags_read_the_usual_spellings(self, raw: str, expected: bool):
        """A flag's variable is 1/true/yes/on or 0/false/no/off, in any case."""
        assert expected is flag("SLOTWISE_WITH_WORKER", {"SLOTWISE_WITH_WORKER": raw})

    def test_a_flag_that_is_neither_names_the_variable(self):
        """SLOTWISE_WITH_WORKER=maybe raises InvalidChoice naming SLOTWISE_WITH_WORKER."""
        with pytest.raises(InvalidChoice) as caught:
            _parsed(["serve"], SLOTWISE_WITH_WORKER="maybe")

        assert "SLOTWISE_WITH_WORKER" == caught.value.field

    @pytest.mark.parametrize(
        ("variable", "raw", "expected"),
        [
            ("SLOTWISE_PORT", "70000", "a whole number from 1 to 65535"),
            ("SLOTWISE_PORT", "0", "a whole number from 1 to 65535"),
            ("SLOTWISE_WORKERS", "0", "a whole number, at least 1"),
            ("SLOTWISE_MAX_BODY_SIZE", "-5", "a whole number, at least 1"),
        ],
    )
    def test_a_number_out_of_its_range_names_the_variable(
        self, variable: str, raw: str, expected: str
    ):
        """A port past 65535 (the system would bind it modulo 65536), no worker process, a
        negative body size: InvalidFormat naming the variable and the range."""
        with pytest.raises(InvalidFormat) as caught:
            _parsed(["serve"], **{variable: raw})

        assert (variable, raw) == (caught.value.field, caught.value.value)
        assert expected in str(caught.value)

    @pytest.mark.parametrize(
        ("argv", "message"),
        [
            (["serve", "--port", "70000"], "--port: must be from 1 to 65535, got 70000"),
            (["serve", "--workers", "-2"], "--workers: must be at least 1, got -2"),
            (["worker", "--concurrency", "0"], "--concurrency: must be at least 1, got 0"),
            (["worker", "--batch", "0"], "--batch: must be from 1 to 1000, got 0"),
            (["worker", "--batch", "1001"], "--batch: must be from 1 to 1000, got 1001"),
            (["worker", "--lease", "0"], "--lease: must be a number of seconds above 0"),
            (["worker", "--lease", "-1"], "--lease: must be at least 0 seconds"),
        ],
    )
    def test_a_number_out_of_its_range_stops_the_command(
        self, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
    ):
        """Numbers a server or worker cannot run with are refused before anything opens, where
        they were taken before: a worker with no thread exited at once, a batch of 0 logged a
        traceback every second, a port of 70000 listened on 4464."""
        with pytest.raises(SystemExit) as caught:
            _parsed(argv)

        assert 2 == caught.value.code
        assert message in capsys.readouterr().err

    def test_the_numbers_in_range_are_read(self):
        """The edges of each range are accepted, from the command line and the environment."""
        serve = _parsed(["serve", "--port", "65535"], SLOTWISE_WORKERS="1")
        worker = _parsed(["worker", "--batch", "1000", "--lease", "0.5"], SLOTWISE_CONCURRENCY="1")

        assert (65535, 1, 1000, 0.5, 1) == (
            serve.port,
            serve.workers,
            worker.batch,
            worker.lease,
            worker.concurrency,
        )

    def test_the_command_line_prints_the_refusal_and_exits_2(self, monkeypatch, capsys):
        """slotwise worker with SLOTWISE_CONCURRENCY=lots: 'slotwise: error: ...', status 2."""
        from slotwise.cli import main

        monkeypatch.setenv("SLOTWISE_CONCURRENCY", "lots")

        status = main(["worker", "--db", "sqlite:///never-opened.db"])

        assert 2 == status
        assert "SLOTWISE_CONCURRENCY must be a whole number" in capsys.readouterr().err
