"""The fleet view's pure parts: the report the reporter makes and the service accepts, and the
picture's statuses over time (report.py, fleet.py); the real service runs against real hubs in
test/system/hub/fleet.test.ts."""

import json

import pytest

from jupyterlab_project_startup.fleet.fleet import Fleet
from jupyterlab_project_startup.fleet.report import (
    MAX_REPORT_BYTES,
    InvalidReport,
    report_from_sidecar,
    same_state,
    validate_report,
)

NOW = "2026-11-28T17:00:00Z"


def projection(phase, checks=()):
    return {
        "phase": phase,
        "projectPath": "/home/alice/secret-project",
        "readinessChecks": [
            {"id": "platform-evidence", "title": "t", "status": "pass", "required": True, "observed": "x"},
            *checks,
        ],
    }


def test_a_projection_gives_the_phase_and_failing_checks_without_paths_or_observations():
    failing = {
        "id": "state-path",
        "title": "State",
        "status": "fail",
        "required": True,
        "observed": "/home/alice/x",
        "remedy": "Make it private.",
    }
    report = validate_report(report_from_sidecar(("projection", projection("blocked", [failing])), "0.1.0", NOW))
    assert report["phase"] == "blocked"
    assert report["failingChecks"] == [{"id": "state-path", "remedy": "Make it private."}]
    assert "/home/alice" not in json.dumps(report)


def test_a_misconfigured_sidecar_gives_setting_file_line_and_fix():
    problem = {
        "code": "misconfigured",
        "setting": "platform",
        "file": "/etc/project-startup/site.json",
        "line": 3,
        "fix": "Use one of generic, hosted-notebook, cluster.",
    }
    report = validate_report(report_from_sidecar(("problem", problem), "0.1.0", NOW))
    assert report["phase"] == "misconfigured"
    assert report["misconfigured"] == {
        "setting": "platform",
        "file": "/etc/project-startup/site.json",
        "line": 3,
        "fix": "Use one of generic, hosted-notebook, cluster.",
    }


@pytest.mark.parametrize(
    ("answer", "phase"),
    [(("failed", 2), "sidecar-failed"), (("not-started", None), "not-started"), (("problem", {}), "sidecar-failed")],
)
def test_no_projection_is_said_as_such(answer, phase):
    assert validate_report(report_from_sidecar(answer, "0.1.0", NOW))["phase"] == phase


def test_same_state_ignores_only_the_time():
    a = report_from_sidecar(("not-started", None), "0.1.0", NOW)
    b = report_from_sidecar(("not-started", None), "0.1.0", "2026-11-28T18:00:00Z")
    c = report_from_sidecar(("failed", 1), "0.1.0", NOW)
    assert same_state(a, b)
    assert not same_state(a, c)
    assert not same_state(a, None)


@pytest.mark.parametrize(
    ("change", "pointer"),
    [
        ({"phase": "happy"}, "/phase"),
        ({"token": "abc"}, "/token"),
        ({"version": 2}, "/version"),
        ({"failingChecks": [{"id": "Bad Id"}]}, "/failingChecks/0/id"),
        ({"failingChecks": [{"id": "a", "remedy": "x" * 601}]}, "/failingChecks/0/remedy"),
        ({"failingChecks": [{"id": "a"}] * 17}, "/failingChecks"),
        ({"observedAt": "yesterday"}, "/observedAt"),
        ({"server": "../x"}, "/server"),
        ({"misconfigured": {"setting": "a", "file": "b", "line": 1, "fix": "c"}}, "/misconfigured"),
        ({"phase": "misconfigured", "misconfigured": {"line": True}}, "/misconfigured/line"),
        ({"phase": "misconfigured", "misconfigured": {"fix": "a\x1b[31m"}}, "/misconfigured/fix"),
    ],
)
def test_a_bad_report_names_the_member(change, pointer):
    report = {**report_from_sidecar(("not-started", None), "0.1.0", NOW), **change}
    with pytest.raises(InvalidReport) as caught:
        validate_report(report)
    assert any(error.startswith(pointer + ":") for error in caught.value.errors), caught.value.errors


def test_the_largest_valid_report_fits_the_size_bound():
    report = report_from_sidecar(
        ("problem", {"code": "misconfigured", "setting": "s" * 300, "file": "f" * 300, "line": 9, "fix": "x" * 900}),
        "0.1.0",
        NOW,
    )
    report["phase"] = "blocked"
    report["misconfigured"] = None
    report["failingChecks"] = [{"id": "c" * 64, "remedy": "r" * 600}] * 10
    assert len(json.dumps(validate_report(report))) <= MAX_REPORT_BYTES


def report(phase, checks=()):
    return {"version": 1, "phase": phase, "observedAt": NOW, "failingChecks": list(checks), "misconfigured": None}


def test_statuses_follow_the_hub_and_the_heartbeat():
    clock = [1000.0]
    fleet = Fleet(60, clock=lambda: clock[0])
    fleet.set_hub_users(
        {
            "ann": {"running": True, "started": 990.0},
            "bob": {"running": True, "started": 990.0},
            "cid": {"running": False, "started": None},
            "dee": {"running": True, "started": 990.0},
        }
    )
    assert fleet.last_complete is None  # running servers have not reported yet
    fleet.accept("ann", report("ready"))
    fleet.accept("bob", report("blocked", [{"id": "state-path", "remedy": "r"}]))
    fleet.accept("cid", report("blocked", [{"id": "state-path", "remedy": "r"}]))
    status = {row["user"]: row["status"] for row in fleet.rows()}
    assert status == {"ann": "ready", "bob": "blocked", "cid": "stopped", "dee": "awaiting-report"}
    clock[0] += fleet.report_due_seconds
    rows = fleet.rows()
    assert {row["user"]: row["status"] for row in rows}["dee"] == "no-reporter"
    summary = fleet.summary(rows)
    assert summary["byFailingCheck"] == {"state-path": 1}  # the stopped user's old report does not count
    assert summary["notReady"] == 1
    fleet.set_hub_users(fleet.hub_users)
    assert fleet.last_complete == clock[0]
    clock[0] += fleet.silent_after_seconds
    fleet.accept("ann", report("ready"))
    assert {row["user"]: row["status"] for row in fleet.rows()}["bob"] == "not-heard-from"
    # A user the hub no longer lists goes, report and all.
    fleet.set_hub_users({"ann": {"running": True, "started": 990.0}})
    assert [row["user"] for row in fleet.rows()] == ["ann"]


def test_a_restarted_service_finds_a_server_without_a_reporter_within_heartbeat_plus_slack():
    # A server started long before the service (the service was restarted): its report is due a
    # heartbeat plus the slack after the service's own start, not after the server's.
    clock = [5000.0]
    fleet = Fleet(4, clock=lambda: clock[0], slack_seconds=5)
    fleet.set_hub_users({"dan": {"running": True, "started": 100.0}, "bob": {"running": False, "started": None}})
    assert fleet.report_due_seconds == 9
    assert {row["user"]: row["status"] for row in fleet.rows()} == {"bob": "stopped", "dan": "awaiting-report"}
    assert fleet.last_complete is None
    clock[0] += 8.9
    assert fleet.rows()[1]["status"] == "awaiting-report"
    clock[0] += 0.1
    fleet.set_hub_users(fleet.hub_users)
    assert fleet.rows()[1]["status"] == "no-reporter"
    assert fleet.last_complete == clock[0]


def test_the_report_slack_is_an_option_of_the_service():
    from jupyterlab_project_startup.fleet.service import parse_args

    assert parse_args([]).report_slack_seconds == 30
    assert parse_args(["--report-slack-seconds", "5"]).report_slack_seconds == 5
    with pytest.raises(SystemExit):
        parse_args(["--report-slack-seconds", "0"])


def test_the_rate_limit_allows_a_burst_then_one_per_interval():
    fleet = Fleet(300)
    allowed = [fleet.rate.allow("ann", 0.0) for _ in range(8)]
    assert allowed == [True] * 6 + [False] * 2
    assert fleet.rate.allow("bob", 0.0)
    assert not fleet.rate.allow("ann", 5.0)
    assert fleet.rate.allow("ann", 10.0 + 0.01)
