"""The operator's fleet view: which users of a JupyterHub are not set up, and why.

Two halves, both in this wheel:

- the reporter (``reporter.py``), run by the server extension inside each user's Jupyter server:
  it reads the sidecar that jupyter-server-proxy launched, beside the proxy (its Unix socket,
  named in the diagnostics file), and posts a small report to the fleet service on change and on
  a slow heartbeat, with the server's own hub token;
- the fleet service (``service.py``, the ``project-startup-fleet`` command): a JupyterHub
  service holding the latest report of each user, with a page for the operator, JSON for
  scripts and Prometheus metrics.

``report.py`` is the one place that says what a report holds; ``fleet.py`` keeps the picture.
Neither imports JupyterHub or tornado, so the single-user environment imports them without a hub.
"""
