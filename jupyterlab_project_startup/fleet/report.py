"""What a report holds, in one place for the reporter that writes it and the service that reads it.

A report says, for one user's server: the setup phase its sidecar answers (or why it has none),
the failing checks with their remedies, and for a misconfigured sidecar the setting, file, line
and fix. Never project contents, tokens or environment values: the sidecar's projection holds
paths and observations, and only the check ids and remedies are taken from it."""

import re

REPORT_VERSION = 1
# The sidecar's phases (sidecar/schemas/startup.schema.json), then what the reporter says when
# there is no phase to read: a sidecar answering `misconfigured`, one that stopped on an error,
# and one nobody has started yet (the reporter never starts it).
SIDECAR_PHASES = ("unsupported-interface", "blocked", "needs-compute", "awaiting-confirmation", "ready")
REPORTER_PHASES = ("misconfigured", "sidecar-failed", "not-started")
PHASES = SIDECAR_PHASES + REPORTER_PHASES
NOT_READY_PHASES = tuple(phase for phase in PHASES if phase != "ready")

MAX_REPORT_BYTES = 8192
MAX_CHECKS = 16
MAX_TEXT = 600
MAX_SHORT = 200
CHECK_ID = re.compile(r"^[a-z][a-z0-9-]{0,63}$")
SERVER_NAME = re.compile(r"^[A-Za-z0-9._~-]{0,255}$")
VERSION_TEXT = re.compile(r"^[0-9A-Za-z.+-]{1,64}$")
ISO_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")

REPORT_KEYS = {"version", "server", "phase", "failingChecks", "misconfigured", "extension", "observedAt"}
CHECK_KEYS = {"id", "remedy"}
MISCONFIGURED_KEYS = {"setting", "file", "line", "fix"}


def _clip(text, limit):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def report_from_sidecar(answer, extension_version, observed_at, server_name=""):
    """The report for what the sidecar answered (or not): `answer` is one of
    ``("projection", startup_json)``, ``("problem", problem_json)``, ``("failed", exit_code)`` or
    ``("not-started", None)``."""
    kind, body = answer
    report = {
        "version": REPORT_VERSION,
        "server": server_name,
        "extension": extension_version,
        "observedAt": observed_at,
        "failingChecks": [],
        "misconfigured": None,
    }
    if kind == "projection":
        report["phase"] = body["phase"]
        report["failingChecks"] = [
            {"id": check["id"], "remedy": _clip(check.get("remedy") or check.get("title") or "", MAX_TEXT)}
            for check in body.get("readinessChecks", [])
            if check.get("status") == "fail"
        ][:MAX_CHECKS]
    elif kind == "problem" and body.get("code") == "misconfigured":
        report["phase"] = "misconfigured"
        line = body.get("line")
        report["misconfigured"] = {
            "setting": _clip(body.get("setting") or "", MAX_SHORT),
            "file": _clip(body.get("file") or "", MAX_SHORT),
            "line": line if isinstance(line, int) and line > 0 else None,
            "fix": _clip(body.get("fix") or "", MAX_TEXT),
        }
    elif kind in ("problem", "failed"):
        report["phase"] = "sidecar-failed"
    else:
        report["phase"] = "not-started"
    return report


def same_state(a, b):
    """Whether two reports say the same (the time they were made aside): a change is sent at once."""
    if a is None or b is None:
        return False
    return {k: v for k, v in a.items() if k != "observedAt"} == {k: v for k, v in b.items() if k != "observedAt"}


class InvalidReport(ValueError):
    """A report that is not what report_from_sidecar makes; `errors` lists JSON pointers and why."""

    def __init__(self, errors):
        super().__init__("; ".join(errors))
        self.errors = errors


def _text(value, pointer, limit, errors, allow_empty=True):
    if not isinstance(value, str) or len(value) > limit or (not allow_empty and not value):
        errors.append(f"{pointer}: a string of at most {limit} characters")
        return False
    if any(ord(c) < 32 for c in value):
        errors.append(f"{pointer}: control characters are not allowed")
        return False
    return True


def validate_report(report):
    """Checks a decoded report; returns it or raises InvalidReport (nothing of it is kept then)."""
    errors = []
    if not isinstance(report, dict):
        raise InvalidReport(["/: an object"])
    for key in sorted(set(report) - REPORT_KEYS):
        errors.append(f"/{key}: not a member of a report")
    for key in ("version", "phase", "observedAt"):
        if key not in report:
            errors.append(f"/{key}: required")
    if "version" in report and report["version"] != REPORT_VERSION:
        errors.append(f"/version: must be {REPORT_VERSION}")
    if "phase" in report and report["phase"] not in PHASES:
        errors.append("/phase: one of " + ", ".join(PHASES))
    server = report.get("server", "")
    if not isinstance(server, str) or not SERVER_NAME.match(server):
        errors.append("/server: a JupyterHub server name")
    extension = report.get("extension")
    if extension is not None and not (isinstance(extension, str) and VERSION_TEXT.match(extension)):
        errors.append("/extension: a version")
    observed = report.get("observedAt")
    if observed is not None and not (isinstance(observed, str) and ISO_TIME.match(observed)):
        errors.append("/observedAt: an RFC 3339 time")
    checks = report.get("failingChecks", [])
    if not isinstance(checks, list) or len(checks) > MAX_CHECKS:
        errors.append(f"/failingChecks: a list of at most {MAX_CHECKS}")
        checks = []
    for i, check in enumerate(checks):
        pointer = f"/failingChecks/{i}"
        if not isinstance(check, dict) or set(check) - CHECK_KEYS or "id" not in check:
            errors.append(f"{pointer}: an object with id and remedy")
            continue
        if not isinstance(check["id"], str) or not CHECK_ID.match(check["id"]):
            errors.append(f"{pointer}/id: a check id")
        _text(check.get("remedy", ""), f"{pointer}/remedy", MAX_TEXT, errors)
    misconfigured = report.get("misconfigured")
    if misconfigured is not None:
        if not isinstance(misconfigured, dict) or set(misconfigured) - MISCONFIGURED_KEYS:
            errors.append("/misconfigured: an object with setting, file, line and fix")
        else:
            for key, limit in (("setting", MAX_SHORT), ("file", MAX_SHORT), ("fix", MAX_TEXT)):
                _text(misconfigured.get(key, ""), f"/misconfigured/{key}", limit, errors)
            line = misconfigured.get("line")
            if line is not None and not (isinstance(line, int) and not isinstance(line, bool) and 0 < line < 10**7):
                errors.append("/misconfigured/line: a positive integer or null")
        if report.get("phase") != "misconfigured":
            errors.append("/misconfigured: only with phase misconfigured")
    if errors:
        raise InvalidReport(errors)
    # The optional members, filled in: what is kept always has every member.
    return {
        "version": report["version"],
        "server": server,
        "phase": report["phase"],
        "observedAt": observed,
        "extension": extension,
        "failingChecks": [{"id": c["id"], "remedy": c.get("remedy", "")} for c in checks],
        "misconfigured": None
        if misconfigured is None
        else {
            "setting": misconfigured.get("setting", ""),
            "file": misconfigured.get("file", ""),
            "line": misconfigured.get("line"),
            "fix": misconfigured.get("fix", ""),
        },
    }
