"""How the client's answers look in a notebook: the service's JSON as a dict that renders itself.

The capability manifest is shown in the command line's words (``project-startup capabilities``):
the platform policy, every capability with its values, each model source with whether it is
secret-backed and its approval modes, and both sentences of the credential boundary. The words
come from ``manifest_words.json``, generated from the sidecar's core/manifest-words.ts, so the
two cannot drift (test/service/manifest-words.test.ts); the names of the model sources are the
site's, as the manifest gives them, never from that file.
"""

import html
import json
import os
import re

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "manifest_words.json"), encoding="utf-8") as _file:
    WORDS = json.load(_file)


def _e(value):
    return html.escape("" if value is None else str(value), quote=True)


def _fill(word, **values):
    """A template of WORDS with its ``{name}`` places filled (a place without a value stays)."""
    return re.sub(r"\{(\w+)\}", lambda m: str(values[m.group(1)]) if m.group(1) in values else m.group(0), WORDS[word])


class Result(dict):
    """A JSON answer of the service (a plain dict), shown readably in a notebook."""

    def _repr_html_(self):
        return _html(self)


def _html(data):
    if "record" in data:
        action = data.get("nextAction") or {}
        return "<div><p><strong>{}</strong>; phase {}.</p><p><strong>Next:</strong> {}. {}</p></div>".format(
            _e("Initialized" if data.get("created") else "Already initialized, nothing changed"),
            _e(data.get("phase")),
            _e(action.get("title")),
            _e(action.get("detail")),
        )
    if "readinessChecks" in data or "nextAction" in data:
        return _projection_html(data)
    if "capabilities" in data:
        return _capabilities_html(data)
    return f"<pre>{_e(json.dumps(data, indent=2))}</pre>"


def _remedy_words(check):
    """The remedy, said as the administrator's when only the site's administrator can make it."""
    remedy = check.get("remedy", "")
    if remedy and check.get("remedyBy") == "administrator":
        return "Your administrator needs to fix this: " + remedy
    return remedy


def _projection_html(p):
    action = p.get("nextAction") or {}
    out = [
        "<div>",
        "<h4>Project Startup: {}</h4>".format(_e(p.get("phase"))),
        (
            "<p>Project <code>{}</code>, state <code>{}</code>, platform <code>{}</code>, interface <code>{}</code></p>"
        ).format(_e(p.get("projectPath")), _e(p.get("statePath")), _e(p.get("platform")), _e(p.get("interface"))),
        "<p><strong>Next:</strong> {}. {}</p>".format(_e(action.get("title")), _e(action.get("detail"))),
    ]
    if action.get("command"):
        out.append("<p>Command: <code>{}</code></p>".format(_e(action["command"])))
    checks = p.get("readinessChecks") or []
    if checks:
        out.append(
            "<table><thead><tr><th>Check</th><th>Status</th><th>Observed</th><th>Remedy</th></tr></thead><tbody>"
        )
        for check in checks:
            out.append(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>".format(
                    _e(check.get("title")),
                    _e(check.get("status")),
                    _e(check.get("observed")),
                    _e(_remedy_words(check)),
                )
            )
        out.append("</tbody></table>")
    out.append("</div>")
    return "".join(out)


def _model_source_words(value):
    """A model source as core/manifest-words.ts's modelSourceWords says it: ``(name,
    classification)``, the site's name (with its address) and, apart from it, "not arranged at
    this site" or secret-backed and the approval modes."""
    name = str(value.get("label"))
    if isinstance(value.get("address"), str):
        name = _fill("addressed", label=name, address=value["address"])
    if value.get("arranged") is False:
        return name, WORDS["notArranged"]
    return name, _fill(
        "modelSource",
        secret=WORDS["secretBacked"] if value.get("secretBacked") else WORDS["credentialFree"],
        modes=", ".join(str(m) for m in value["approvalModeLabels"]),
    )


def _value_words(capability, value):
    """One value in the command line's words, ``(text, classification or None)``: a model source
    or a connection (its name, and apart from it what it is here), the boundary, or a plain value."""
    if isinstance(value.get("approvalModeLabels"), list):
        return _model_source_words(value)
    if isinstance(value.get("excludes"), str):
        return (
            _fill(
                "boundary",
                label=value.get("label"),
                excludes=value["excludes"],
                doesNotIsolate=value.get("doesNotIsolate") or "",
            ).rstrip(),
            None,
        )
    if value.get("arranged") is False:
        return str(value.get("label") or value.get("id")), WORDS["notArranged"]
    if capability.get("default") is not None and capability.get("default") == value.get("id"):
        return _fill("defaultValue", label=value.get("label")), None
    return str(value.get("label") or value.get("id")), None


def _capability_rows(c):
    """(label, [value words], detailed) for each capability of manifest ``c``: detailed when its
    values are model sources, a connection not arranged or the boundary, which the command line
    shows one per line, with a source's classification on a line of its own."""
    rows = []
    for capability in c.get("capabilities") or []:
        values = [v for v in capability.get("values") or [] if isinstance(v, dict)]
        detailed = any(
            isinstance(v.get("approvalModeLabels"), list)
            or isinstance(v.get("excludes"), str)
            or v.get("arranged") is False
            for v in values
        )
        rows.append(
            (
                str(capability.get("label") or capability.get("id")),
                [_value_words(capability, v) for v in values],
                detailed,
            )
        )
    return rows


def _value_html(words):
    """A value's text, and its classification as an item of its own, never run into the name."""
    text, classification = words
    if classification is None:
        return _e(text)
    return f"{_e(text)}<ul><li>{_e(classification)}</li></ul>"


def _capabilities_html(c):
    platform = c.get("platform") or {}
    policy = (c.get("policy") or {}).get("lowRiskAutomation")
    out = [
        "<div><h4>{}</h4>".format(
            _e(_fill("heading", platform=platform.get("label") or platform.get("id"), platformId=platform.get("id")))
        ),
        "<p>{}</p>".format(_e(_fill("policy", policy=policy))),
        "<table><tbody>",
    ]
    for label, words, detailed in _capability_rows(c):
        if detailed:
            cell = "<ul>{}</ul>".format("".join(f"<li>{_value_html(w)}</li>" for w in words))
        else:
            cell = _e("; ".join(text for text, _ in words))
        out.append(f"<tr><th>{_e(label)}</th><td>{cell}</td></tr>")
    out.append("</tbody></table></div>")
    return "".join(out)
