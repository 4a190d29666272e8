// The browser interface's setup page: reads the projection for interface "web" and confirms
// initialization with the paths it showed. Same origin only; the session cookie (or, reached
// through Jupyter, Jupyter's own) authenticates.
'use strict';
(function () {
  var byId = function (id) {
    return document.getElementById(id);
  };
  var current = null;

  function text(id, value) {
    byId(id).textContent = value;
  }

  // Service text marks commands and paths with `backticks`: show them as code, as text nodes.
  function rich(node, value) {
    node.textContent = '';
    value.split('`').forEach((piece, i, pieces) => {
      if (!piece) {
        return;
      }
      if (i % 2 === 1 && i < pieces.length - 1) {
        var code = document.createElement('code');
        code.textContent = piece;
        node.appendChild(code);
      } else {
        node.appendChild(
          document.createTextNode(i % 2 === 1 ? '`' + piece : piece)
        );
      }
    });
  }

  function problemText(body, status) {
    if (body && typeof body.detail === 'string') {
      return body.detail + (body.code ? ' (' + body.code + ')' : '');
    }
    return 'The service answered HTTP ' + status + '.';
  }

  // Behind Jupyter this page is one of Jupyter's: like JupyterLab it sends Jupyter's XSRF token
  // (the `_xsrf` cookie), which only a page of Jupyter's origin can read.
  function xsrfToken() {
    var found = document.cookie.match(/(?:^|;\s*)_xsrf=([^;]*)/);
    return found ? found[1] : undefined;
  }

  function request(method, url, body) {
    var init = {
      method: method,
      credentials: 'same-origin',
      headers: { Accept: 'application/json' }
    };
    var xsrf = method === 'GET' ? undefined : xsrfToken();
    if (xsrf) {
      init.headers['X-XSRFToken'] = xsrf;
    }
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(url, init).then(response => {
      return response
        .json()
        .catch(() => {
          return null;
        })
        .then(json => {
          if (!response.ok) {
            throw new Error(problemText(json, response.status));
          }
          return json;
        });
    });
  }

  // A model source as core/manifest-words.ts's modelSourceWords says it: the site's name for it
  // (with its address) and, apart from it, "not arranged at this site" or secret-backed and
  // approval modes. The two are shown as separate items, so a label cannot pass for either.
  function modelSourceText(v) {
    var name =
      typeof v.address === 'string'
        ? v.label + ' (' + v.address + ')'
        : v.label;
    if (v.arranged === false) {
      return { name: name, classification: 'not arranged at this site' };
    }
    return {
      name: name,
      classification:
        (v.secretBacked ? 'secret-backed' : 'credential-free') +
        '; approval modes: ' +
        v.approvalModeLabels.join(', ')
    };
  }

  // The whole manifest in words, by the rules the command line's `capabilities` follows: each
  // capability with its values, each model source with its approval modes, the boundary in full.
  function valueText(capability, v) {
    if (Array.isArray(v.approvalModeLabels)) {
      return modelSourceText(v);
    }
    if (typeof v.excludes === 'string') {
      return {
        name: v.label + ': ' + v.excludes + ' ' + (v.doesNotIsolate || '')
      };
    }
    if (v.arranged === false) {
      return { name: v.label, classification: 'not arranged at this site' };
    }
    return {
      name: v.label + (capability['default'] === v.id ? ' (default)' : '')
    };
  }

  function renderManifest(m) {
    var list = byId('capabilities');
    list.textContent = '';
    var policy = document.createElement('dt');
    policy.textContent = 'Low-risk automation';
    var policyValue = document.createElement('dd');
    policyValue.textContent =
      m.policy.lowRiskAutomation + ' by platform policy';
    list.appendChild(policy);
    list.appendChild(policyValue);
    m.capabilities.forEach(capability => {
      var dt = document.createElement('dt');
      dt.textContent = capability.label;
      list.appendChild(dt);
      // One dd per dt (the list is a two-column grid): the values as a list inside it.
      var dd = document.createElement('dd');
      var values = document.createElement('ul');
      values.className = 'values';
      capability.values.forEach(v => {
        var li = document.createElement('li');
        var words = valueText(capability, v);
        li.textContent = words.name;
        if (words.classification !== undefined) {
          var classification = document.createElement('ul');
          var item = document.createElement('li');
          item.textContent = words.classification;
          classification.appendChild(item);
          li.appendChild(classification);
        }
        values.appendChild(li);
      });
      dd.appendChild(values);
      list.appendChild(dd);
    });
    byId('offers').hidden = false;
  }

  function render(p) {
    current = p;
    byId('app').setAttribute('aria-busy', 'false');
    text(
      'status',
      p.phase === 'ready'
        ? 'The project is set up.'
        : 'Setup is in phase ' + p.phase + '.'
    );
    text('platform', p.manifest.platform.label + ' (' + p.platform + ')');
    text('project-path', p.projectPath);
    text('state-path', p.statePath);
    text('phase', p.phase);
    byId('summary').hidden = false;
    text('next-title', 'Next: ' + p.nextAction.title);
    rich(byId('next-detail'), p.nextAction.detail);
    byId('next').hidden = false;
    var confirmable =
      p.phase === 'awaiting-confirmation' &&
      p.confirmation.allowedInterfaces.indexOf('web') !== -1;
    byId('confirm-area').hidden = !confirmable;
    var creates = byId('creates');
    creates.textContent = '';
    p.confirmation.creates
      .concat([p.statePath + '/initialization.json'])
      .forEach(path => {
        var li = document.createElement('li');
        li.textContent = path;
        creates.appendChild(li);
      });
    var rows = byId('checks');
    rows.textContent = '';
    p.readinessChecks.forEach(c => {
      var tr = document.createElement('tr');
      [
        [c.status, 'status-' + c.status],
        [c.title + (c.required ? '' : ' (optional)'), ''],
        [c.observed, ''],
        [
          c.status === 'pass' || c.status === 'skip' || !c.remedy
            ? ''
            : c.remedyBy === 'administrator'
              ? 'Your administrator needs to fix this: ' + c.remedy
              : c.remedy,
          ''
        ]
      ].forEach(cell => {
        var td = document.createElement('td');
        rich(td, cell[0]);
        if (cell[1]) {
          td.className = cell[1];
        }
        tr.appendChild(td);
      });
      rows.appendChild(tr);
    });
    byId('checks-section').hidden = false;
    renderManifest(p.manifest);
  }

  function load() {
    byId('app').setAttribute('aria-busy', 'true');
    return request('GET', 'startup?interface=web').then(render, error => {
      byId('app').setAttribute('aria-busy', 'false');
      text('status', 'Could not load the setup state: ' + error.message);
    });
  }

  byId('refresh').addEventListener('click', load);
  byId('confirm').addEventListener('click', () => {
    if (!current) {
      return;
    }
    var button = byId('confirm');
    button.disabled = true;
    // The service records how the confirmation came (this page's session, or Jupyter's XSRF token
    // behind Jupyter), not what a body says.
    request('POST', 'initialize', {
      interface: 'web',
      confirm: {
        projectPath: current.projectPath,
        statePath: current.statePath
      }
    })
      .then(
        result => {
          text(
            'status',
            (result.created ? 'Created ' : 'Already present: ') +
              result.record.statePath +
              '.'
          );
          return load();
        },
        error => {
          text('status', 'Initialization failed: ' + error.message);
        }
      )
      .then(() => {
        button.disabled = false;
      });
  });
  load();
})();
