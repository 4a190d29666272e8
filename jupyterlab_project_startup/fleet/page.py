"""The fleet page: server-rendered HTML (no script), laid out as JupyterHub's own pages are and
styled by the hub's own stylesheet, so it sits beside the admin page. Filters are a plain GET form."""

from datetime import datetime, timezone
from html import escape
from urllib.parse import quote, urlencode

from .fleet import OTHER_STATUSES
from .report import NOT_READY_PHASES, PHASES

STATUS_LABELS = {
    "ready": "Ready",
    "awaiting-confirmation": "Awaiting confirmation",
    "blocked": "Blocked by a check",
    "needs-compute": "Needs compute",
    "unsupported-interface": "Unsupported interface",
    "misconfigured": "Misconfigured",
    "sidecar-failed": "Service failed to start",
    "not-started": "Service not started yet",
    "stopped": "Server stopped",
    "awaiting-report": "Report due",
    "no-reporter": "No report (extension missing?)",
    "not-heard-from": "Not heard from",
}


def _time(epoch):
    if epoch is None:
        return "never"
    moment = datetime.fromtimestamp(epoch, tz=timezone.utc)
    return f'<time datetime="{moment.isoformat(timespec="seconds")}">{moment:%Y-%m-%d %H:%M:%S} UTC</time>'


def _problem_cell(row):
    misconfigured = row["misconfigured"]
    if misconfigured:
        where = escape(misconfigured["file"] or "")
        if misconfigured.get("line"):
            where += f", line {misconfigured['line']}"
        return (
            f"<strong>Setting</strong> <code>{escape(misconfigured['setting'])}</code>"
            + (f" in <code>{where}</code>" if where else "")
            + f"<br><strong>Fix:</strong> {escape(misconfigured['fix'])}"
        )
    if row["failingChecks"]:
        return (
            "<ul class='fleet-checks'>"
            + "".join(
                f"<li><code>{escape(c['id'])}</code>: {escape(c.get('remedy', ''))}</li>" for c in row["failingChecks"]
            )
            + "</ul>"
        )
    return {
        "no-reporter": "The server runs but never reported: it lacks the extension or the fleet address.",
        "not-heard-from": "No report for two heartbeats: the server may be hung or its reporter failing.",
        "sidecar-failed": "The Project Startup service stopped on an error: see the user's server log.",
        "not-started": "Nobody has opened JupyterLab on this server since it started.",
    }.get(row["status"], "")


def _select(name, label, options, chosen):
    items = ['<option value="">All</option>'] + [
        f'<option value="{escape(value)}"{" selected" if value == chosen else ""}>{escape(text)}</option>'
        for value, text in options
    ]
    return (
        f'<div class="fleet-filter"><label for="filter-{name}">{label}</label> '
        f'<select class="form-control" id="filter-{name}" name="{name}">{"".join(items)}</select></div>'
    )


def _users_table(rows, summary, *, base_url, is_admin, phase, check):
    """The users' table, with a caption saying what the filter kept."""
    body_rows = []
    for row in rows:
        name = escape(row["user"])
        if is_admin and row["serverRunning"]:
            user_cell = f'<a href="{escape(base_url)}user/{quote(row["user"], safe="")}/">{name}</a>'
        else:
            user_cell = name
        status = row["status"]
        body_rows.append(
            f'<tr class="fleet-{escape(status)}"><th scope="row">{user_cell}</th>'
            f"<td>{escape(STATUS_LABELS.get(status, status))}</td>"
            f"<td>{_problem_cell(row)}</td>"
            f"<td>{_time(row['lastHeard'])}</td></tr>"
        )
    table = (
        '<table class="table table-striped fleet-table"><caption>'
        f"{len(rows)} of {summary['users']} users"
        + (f", status {escape(STATUS_LABELS.get(phase, phase))}" if phase else "")
        + (f", failing check {escape(check)}" if check else "")
        + '</caption><thead><tr><th scope="col">User</th><th scope="col">Status</th>'
        '<th scope="col">Why, and the fix</th><th scope="col">Last heard from</th></tr></thead><tbody>'
        + ("".join(body_rows) or '<tr><td colspan="4">No user matches.</td></tr>')
        + "</tbody></table>"
    )
    return table


def render_page(*, rows, summary, hub_prefix, base_url, service_prefix, viewer, is_admin, phase, check, fleet, now):
    """The whole page. `rows` are already filtered; `summary` is over every user."""
    counts = summary["byStatus"]
    count_items = "".join(
        f'<li><a href="?{urlencode({"status": s})}"><span class="fleet-count">{counts[s]}</span> '
        f"{escape(STATUS_LABELS[s])}</a></li>"
        for s in PHASES + OTHER_STATUSES
        if counts[s] or s in ("ready",) + NOT_READY_PHASES[:4]
    )
    checks = sorted(summary["byFailingCheck"])
    table = _users_table(rows, summary, base_url=base_url, is_admin=is_admin, phase=phase, check=check)
    hub_note = (
        f"Hub's user list read {_time(fleet.hub_listed_at)}"
        if fleet.hub_error is None
        else f"The hub's user list could not be read: {escape(fleet.hub_error)}"
    )
    complete = (
        f"Picture last complete {_time(fleet.last_complete)}."
        if fleet.last_complete
        else f"Picture not complete yet: every running server reports within {fleet.report_due_seconds} s."
    )
    css = escape(f"{hub_prefix}static/css/style.min.css")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Project Startup fleet - JupyterHub</title>
<link rel="stylesheet" href="{css}">
<link rel="stylesheet" href="{escape(service_prefix)}static/fleet.css">
</head>
<body>
<a class="fleet-skip" href="#fleet-main">Skip to the users</a>
<nav class="navbar navbar-default navbar-expand bg-body-tertiary border-bottom" aria-label="JupyterHub">
<div class="container-fluid">
<a class="navbar-brand" href="{escape(hub_prefix)}home">
<img src="{escape(hub_prefix)}logo" alt="JupyterHub home" height="28"></a>
<ul class="nav navbar-nav navbar-nav">
<li class="nav-item"><a class="nav-link" href="{escape(hub_prefix)}home">Home</a></li>
<li class="nav-item"><a class="nav-link" href="{escape(hub_prefix)}token">Token</a></li>
{'<li class="nav-item"><a class="nav-link" href="' + escape(hub_prefix) + 'admin">Admin</a></li>' if is_admin else ""}
<li class="nav-item"><a class="nav-link active" aria-current="page" href="{escape(service_prefix)}">
Project Startup fleet</a></li>
</ul>
<span class="navbar-text fleet-viewer">Signed in as {escape(viewer)}</span>
</div>
</nav>
<main id="fleet-main" class="container">
<h1>Project Startup across the hub</h1>
<p>Who is not set up, and why. {complete} {hub_note}. Servers report every {fleet.heartbeat} s and on change.</p>
<h2 id="fleet-counts">Users by status</h2>
<ul class="fleet-counts" aria-labelledby="fleet-counts">{count_items}</ul>
<h2>Users</h2>
<form method="get" class="fleet-filters" aria-label="Filter users">
{_select("status", "Status", [(s, STATUS_LABELS[s]) for s in PHASES + OTHER_STATUSES], phase)}
{_select("check", "Failing check", [(c, c) for c in checks], check)}
<button type="submit" class="btn btn-primary">Filter</button>
<a class="btn btn-default btn-outline-secondary" href="{escape(service_prefix)}">Clear</a>
</form>
{table}
<p class="fleet-foot">Page made {_time(now)}.
The same as JSON: <a href="{escape(service_prefix)}api/fleet">api/fleet</a>;
metrics: <a href="{escape(service_prefix)}metrics">metrics</a>.</p>
</main>
</body>
</html>
"""


FLEET_CSS = """
.fleet-skip { position: absolute; left: -10000px; }
.fleet-skip:focus { left: 1rem; top: 1rem; background: #fff; padding: .5rem; z-index: 10; }
.fleet-counts { display: flex; flex-wrap: wrap; gap: .5rem; list-style: none; padding: 0; }
.fleet-counts li a { display: block; border: 1px solid #bbb; border-radius: 4px; padding: .4rem .8rem; color: #1a1a1a; }
.fleet-count { font-size: 1.4em; font-weight: bold; margin-right: .3rem; }
.fleet-filters { display: flex; flex-wrap: wrap; align-items: flex-end; gap: 1rem; margin: 1rem 0; }
.fleet-filter select { min-width: 14rem; appearance: auto; background-image: none; }
.fleet-table caption { caption-side: top; color: #333; }
.fleet-checks { margin: 0; padding-left: 1.1rem; }
.fleet-viewer { margin-left: auto; color: #333; }
.fleet-foot { color: #333; margin-top: 1rem; }
/* JupyterHub 3's Bootstrap 3 greys its navbar text (#777 on #f8f8f8) and leaves links in text
   told apart by colour alone: darker, and underlined, so the page passes on every hub. */
.navbar.navbar-default .navbar-nav a, .navbar.navbar-default .navbar-text { color: #555; }
main p a, .fleet-table a { color: #23527c; text-decoration: underline; }
tr.fleet-misconfigured th, tr.fleet-blocked th, tr.fleet-no-reporter th { border-left: 4px solid #b00020; }
"""
