"""The server extension on its own: a real jupyter_server (no JupyterLab, no sidecar, no npm
build) answers every route the extension adds to a request with the server's token, and
refuses it without one or with a wrong one."""

import json

import pytest

from jupyterlab_project_startup.handlers import ROUTES


@pytest.fixture(scope="module")
def server(module_jupyter, tmp_path_factory):
    root = tmp_path_factory.mktemp("routes")
    return module_jupyter(root_dir=root, cwd=root, app="jupyter_server")


def test_the_extension_adds_routes():
    assert ROUTES, "nothing to ask"


@pytest.mark.parametrize(("route", "handler"), ROUTES, ids=[route for route, _ in ROUTES])
def test_every_route_answers_only_the_servers_token(server, route, handler):
    status, headers, body = server.request(route)
    assert status == 200, (route, handler, status, body[:500], server.log()[-3000:])
    assert headers["Content-Type"].startswith("application/json")
    assert isinstance(json.loads(body), dict)
    for token in (False, "not-the-token"):
        status, _, body = server.request(route, token=token)
        assert status == 403, (route, token, status, body[:300])
        assert b"problems" not in body, body[:300]
        assert b'"node"' not in body, body[:300]
