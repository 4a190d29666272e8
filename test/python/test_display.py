"""The notebook client's HTML says an administrator's remedy as theirs (remedyBy), never as the
person's task, the same split as the panel and the terminal."""

from jupyterlab_project_startup.display import _projection_html


def _projection(checks):
    return {
        "phase": "blocked",
        "projectPath": "/home/alice/work",
        "statePath": "/home/alice/work/.project-startup",
        "platform": "cluster",
        "interface": "notebook",
        "nextAction": {"title": "Fix: Approved project storage", "detail": "See the check."},
        "readinessChecks": checks,
    }


def test_an_administrators_remedy_is_said_as_theirs():
    html = _projection_html(
        _projection(
            [
                {
                    "id": "approved-storage",
                    "title": "Approved project storage",
                    "status": "fail",
                    "observed": "no approved storage roots are configured",
                    "remedy": "Set PROJECT_STARTUP_APPROVED_STORAGE to the approved roots.",
                    "remedyBy": "administrator",
                }
            ]
        )
    )
    assert "Your administrator needs to fix this: Set PROJECT_STARTUP_APPROVED_STORAGE" in html


def test_the_persons_own_remedy_stays_an_instruction():
    html = _projection_html(
        _projection(
            [
                {
                    "id": "state-path",
                    "title": "Private state location",
                    "status": "fail",
                    "observed": "a symbolic link",
                    "remedy": "Move it aside.",
                    "remedyBy": "user",
                }
            ]
        )
    )
    assert "<td>Move it aside.</td>" in html
    assert "administrator" not in html
