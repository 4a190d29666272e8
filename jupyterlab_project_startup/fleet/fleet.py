"""The fleet's picture: each user's latest report beside what the hub says of their server.

Pure bookkeeping over times given by the caller (no I/O), so the service, its tests and the bench
share it. A user's status is one of:

- a phase (report.PHASES) while their server runs and reports;
- ``stopped``: the hub lists no running server for them (whatever they reported before);
- ``awaiting-report``: the server runs and its first report is not due yet;
- ``no-reporter``: the server has run for longer than a report takes without one (a server
  without the extension, or without the fleet address);
- ``not-heard-from``: it reported before, but not for two heartbeats.
"""

import time
from collections import Counter

from .report import NOT_READY_PHASES, PHASES

OTHER_STATUSES = ("stopped", "awaiting-report", "no-reporter", "not-heard-from")
STATUSES = PHASES + OTHER_STATUSES
# By default, slack for the reporter's own poll (30 s) and a slow hub: a report is due within
# heartbeat + this.
SLACK_SECONDS = 30


class RateLimit:
    """A token bucket per user: `burst` reports at once, then one per `every` seconds."""

    def __init__(self, burst=6, every=10.0):
        self.burst = burst
        self.every = every
        self._buckets = {}

    def allow(self, name, now):
        tokens, at = self._buckets.get(name, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) / self.every)
        if tokens < 1:
            self._buckets[name] = (tokens, now)
            return False
        self._buckets[name] = (tokens - 1, now)
        return True

    def retry_after(self, name, now):
        tokens, at = self._buckets.get(name, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) / self.every)
        return max(1, int((1 - tokens) * self.every + 0.999))


class Fleet:
    def __init__(self, heartbeat_seconds, clock=time.time, slack_seconds=SLACK_SECONDS):
        self.heartbeat = heartbeat_seconds
        self.slack = slack_seconds
        self.clock = clock
        self.started_at = clock()
        # name -> {"report": dict, "received": epoch seconds}
        self.reports = {}
        # name -> {"running": bool, "started": epoch seconds or None}; None until the hub answered.
        self.hub_users = None
        self.hub_listed_at = None
        self.hub_error = None
        self.received = 0
        self.refused = Counter()
        self.last_complete = None
        self.rate = RateLimit(every=max(1.0, heartbeat_seconds / 30))

    @property
    def report_due_seconds(self):
        """How long after the service or a server started every running server has reported."""
        return self.heartbeat + self.slack

    @property
    def silent_after_seconds(self):
        return 2 * self.heartbeat + self.slack

    def accept(self, name, report, now=None):
        self.reports[name] = {"report": report, "received": self.clock() if now is None else now}
        self.received += 1

    def refuse(self, reason):
        self.refused[reason] += 1

    def set_hub_users(self, users, now=None):
        """`users`: name -> {"running": bool, "started": epoch seconds or None}, from the hub's API."""
        now = self.clock() if now is None else now
        self.hub_users = dict(users)
        self.hub_listed_at = now
        self.hub_error = None
        # Reports of users the hub no longer has go with them.
        for name in list(self.reports):
            if name not in self.hub_users:
                del self.reports[name]
        if all(row["status"] != "awaiting-report" for row in self.rows(now)):
            self.last_complete = now

    def status_of(self, name, now):
        hub = self.hub_users.get(name) if self.hub_users is not None else None
        entry = self.reports.get(name)
        if hub is not None and not hub["running"]:
            return "stopped"
        if entry is None:
            since = max(self.started_at, (hub or {}).get("started") or 0)
            return "awaiting-report" if now - since < self.report_due_seconds else "no-reporter"
        if now - entry["received"] > self.silent_after_seconds:
            return "not-heard-from"
        return entry["report"]["phase"]

    def rows(self, now=None):
        now = self.clock() if now is None else now
        names = set(self.reports) | set(self.hub_users or ())
        rows = []
        for name in sorted(names):
            entry = self.reports.get(name)
            report = entry["report"] if entry else None
            hub = (self.hub_users or {}).get(name)
            rows.append(
                {
                    "user": name,
                    "status": self.status_of(name, now),
                    "serverRunning": None if hub is None else hub["running"],
                    "lastHeard": entry["received"] if entry else None,
                    "reportedPhase": report["phase"] if report else None,
                    "failingChecks": report["failingChecks"] if report else [],
                    "misconfigured": report.get("misconfigured") if report else None,
                    "extension": report.get("extension") if report else None,
                }
            )
        return rows

    def summary(self, rows):
        statuses = Counter(row["status"] for row in rows)
        checks = Counter(
            check["id"] for row in rows if row["status"] in NOT_READY_PHASES for check in row["failingChecks"]
        )
        return {
            "users": len(rows),
            "byStatus": {status: statuses.get(status, 0) for status in STATUSES},
            "byFailingCheck": dict(sorted(checks.items())),
            "notReady": sum(statuses.get(phase, 0) for phase in NOT_READY_PHASES),
        }
