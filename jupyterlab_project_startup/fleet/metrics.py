"""Prometheus metrics of the fleet, computed from the picture at each scrape (prometheus_client's
custom collector in a registry of the service's own, so nothing of the process's default registry
is mixed in). The names and their meaning are tabled in docs/operator-guide.md."""

from .fleet import STATUSES


def registry_for(fleet):
    from prometheus_client import CollectorRegistry
    from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

    class FleetCollector:
        def collect(self):
            rows = fleet.rows()
            summary = fleet.summary(rows)
            users = GaugeMetricFamily(
                "project_startup_fleet_users",
                "Users by status: a setup phase, or stopped, awaiting-report, no-reporter, not-heard-from.",
                labels=["status"],
            )
            for status in STATUSES:
                users.add_metric([status], summary["byStatus"][status])
            yield users
            checks = GaugeMetricFamily(
                "project_startup_fleet_failing_check_users",
                "Users not ready whose sidecar reports this readiness check failing.",
                labels=["check"],
            )
            for check, count in summary["byFailingCheck"].items():
                checks.add_metric([check], count)
            yield checks
            received = CounterMetricFamily(
                "project_startup_fleet_reports_received", "Reports accepted since the service started."
            )
            received.add_metric([], fleet.received)
            yield received
            refused = CounterMetricFamily(
                "project_startup_fleet_reports_refused",
                "Reports refused since the service started, by reason.",
                labels=["reason"],
            )
            for reason in ("unauthenticated", "rate-limited", "too-large", "invalid", "hub-unavailable"):
                refused.add_metric([reason], fleet.refused.get(reason, 0))
            yield refused
            complete = GaugeMetricFamily(
                "project_startup_fleet_last_complete_timestamp_seconds",
                "When every running server had last reported or been found without a reporter (Unix time; 0: not yet).",
            )
            complete.add_metric([], fleet.last_complete or 0)
            yield complete
            listed = GaugeMetricFamily(
                "project_startup_fleet_hub_list_timestamp_seconds",
                "When the hub's user list was last read (Unix time; 0: not yet).",
            )
            listed.add_metric([], fleet.hub_listed_at or 0)
            yield listed

    registry = CollectorRegistry(auto_describe=False)
    registry.register(FleetCollector())
    return registry


def exposition(registry):
    from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

    return generate_latest(registry), CONTENT_TYPE_LATEST
