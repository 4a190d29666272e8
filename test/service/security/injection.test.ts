// Header and query injection into anything the service echoes back. The only request data it
// echoes are the path (a problem's `instance`, a redirect's Location) and what remains of the
// query after ?token= sign-in; error details name JSON pointers of unknown members. Each must
// arrive inert: no CR/LF reaches a header, every `instance` is a URI reference (the Problem
// schema says so), JSON answers are JSON with nosniff, and the HTML answers (sign-in page, setup
// page, redirect bodies) never carry request data unescaped. The setup page renders data the
// service derived from the file system (a project directory may be named like markup) as text:
// checked by running the real setup.js on the real projection in jsdom.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { JSDOM } from 'jsdom';
import { request, trackedServices } from '../../helpers/harness';
import { validateAgainst } from '../../helpers/schemas';
import { bearer, expectProblemAnswer, send } from './support';

const start = trackedServices('each');

const MARKUP =
  '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
const STATIC_DIR = path.join(__dirname, '..', '..', '..', 'sidecar', 'static');

/** A header line this test planted, if the response carries one. */
function injectedHeader(rawHead: string): string | undefined {
  return rawHead
    .split('\r\n')
    .find(line => /^(x-injected|set-cookie: *evil)/i.test(line));
}

describe('the path echoed as a problem instance', () => {
  it.each([
    ['percent-encoded CR LF and a header', '/project/%0d%0aX-Injected:%201'],
    ['markup', '/project/<script>alert(1)</script>'],
    ['quotes and angle brackets', '/project/"><svg%20onload=alert(1)>'],
    ['a malformed escape', '/project/%zz'],
    ['a lone percent sign', '/project/%'],
    ['a backslash', '/project/\\evil'],
    ['a path outside the prefix', '/<script>'],
    ['curly braces and a caret', '/project/{x}^`|']
  ])(
    '%s: a 404 problem whose instance is a URI reference and inert',
    async (_label, target) => {
      const svc = await start();
      const r = await send(svc, 'GET', target, [bearer(svc)]);
      expect(injectedHeader(r.rawHead)).toBeUndefined();
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
      const problem = JSON.parse(r.body);
      expect(problem.code).toBe('not-found');
      expect(validateAgainst('Problem', problem)).toEqual([]);
      if (problem.instance !== undefined) {
        expect(problem.instance).not.toMatch(/[\r\n<>"\\{}^`| ]/);
      }
      // Through the gateway the same instance is carried in error.data.
    }
  );

  it('a gateway error carries an instance that is a URI reference', async () => {
    const svc = await start();
    const r = await send(
      svc,
      'POST',
      '/project/gateway',
      [bearer(svc), ['Content-Type', 'application/json']],
      '{"jsonrpc":"2.0","id":1,"method":"project.startup","params":{}}'
    );
    const data = JSON.parse(r.body).error.data;
    expect(validateAgainst('Problem', data)).toEqual([]);
    expect(data.instance).toBe('/project/gateway');
  });
});

describe('CR/LF and markup in the query', () => {
  it('the sign-in redirect keeps other query members percent-encoded in Location: no header is injected', async () => {
    const svc = await start();
    const r = await send(
      svc,
      'GET',
      `/project/?token=${svc.token}&x=%0d%0aSet-Cookie:%20evil=1&y=%0aX-Injected:%201&z=${encodeURIComponent(MARKUP)}`,
      [['Accept', 'text/html']]
    );
    expect(r.status).toBe(303);
    expect(injectedHeader(r.rawHead)).toBeUndefined();
    const location = r.headers.location;
    expect(location.startsWith('/project/?')).toBe(true);
    expect(location).not.toMatch(/[\r\n<>"]/);
    expect(location).not.toContain(svc.token);
    expect(r.body).not.toMatch(/<(img|script|svg)\b/i);
    expect(
      (r.headers['set-cookie'] ?? '').split(', ').filter(c => /^evil=/.test(c))
    ).toEqual([]);
  });

  it('the prefix redirect (…/project → …/project/) keeps the query percent-encoded', async () => {
    const svc = await start();
    const r = await send(
      svc,
      'GET',
      `/project?x=%0d%0aX-Injected:%201&z=${encodeURIComponent(MARKUP)}`,
      [['Accept', 'text/html']]
    );
    expect(r.status).toBe(308);
    expect(injectedHeader(r.rawHead)).toBeUndefined();
    expect(r.headers.location).not.toMatch(/[\r\n<>"]/);
    expect(r.body).not.toMatch(/<(img|script|svg)\b/i);
  });

  it.each([
    ['a bare CR in the path', '/project/x\rX-Injected: 1'],
    ['a bare CR in the query', '/project/startup?interface=web\rX-Injected: 1']
  ])(
    '%s never reaches a response header: 400 malformed-request',
    async (_label, target) => {
      const svc = await start();
      const r = await send(svc, 'GET', target, [bearer(svc)]);
      expect(injectedHeader(r.rawHead)).toBeUndefined();
      expect(r.status).toBe(400);
      expect(JSON.parse(r.body).code).toBe('malformed-request');
    }
  );

  it('query and header values are not echoed into problems or projections', async () => {
    const svc = await start();
    const mark = 'zq<b>inject-marker</b>';
    const answers = [
      await send(
        svc,
        'GET',
        `/project/startup?interface=${encodeURIComponent(mark)}`,
        [bearer(svc)]
      ),
      await send(
        svc,
        'GET',
        `/project/startup?interface=web&extra=${encodeURIComponent(mark)}`,
        [bearer(svc), ['X-Custom', mark], ['Cookie', `c=${mark}`]]
      ),
      await send(
        svc,
        'GET',
        `/project/capabilities?token=${encodeURIComponent(mark)}`,
        []
      ),
      await send(svc, 'GET', '/project/capabilities', [
        ['Authorization', `Bearer ${mark}`]
      ]),
      await send(svc, 'GET', '/project/capabilities', [['Host', mark]])
    ];
    for (const r of answers) {
      expect(`${r.rawHead}\n${r.body}`).not.toContain('inject-marker');
    }
    expectProblemAnswer(answers[0], 400, 'unknown-interface');
  });

  it('unknown body members named like markup come back only as JSON pointers in a JSON problem', async () => {
    const svc = await start();
    const r = await send(
      svc,
      'POST',
      '/project/initialize',
      [bearer(svc), ['Content-Type', 'application/json']],
      JSON.stringify({ interface: 'web', [MARKUP]: 1 })
    );
    expectProblemAnswer(r, 422, 'validation-failed');
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(JSON.parse(r.body).errors[0].pointer).toBe(
      `/${MARKUP.slice(0, 64).replace(/~/g, '~0').replace(/\//g, '~1')}`
    );
  });
});

describe('the HTML answers carry no request data', () => {
  it('the sign-in page is the same bytes whatever the path, query and headers', async () => {
    const svc = await start();
    const plain = await send(svc, 'GET', '/project/', [
      ['Accept', 'text/html']
    ]);
    expect(plain.status).toBe(401);
    expect(plain.headers['content-type']).toMatch(/^text\/html/);
    expect(plain.headers['content-security-policy']).toMatch(
      /default-src 'none'/
    );
    const hostile = await send(
      svc,
      'GET',
      `/project/?q=${encodeURIComponent(MARKUP)}&token=${encodeURIComponent(MARKUP)}`,
      [
        ['Accept', 'text/html'],
        ['Referer', `http://evil.example/${encodeURIComponent(MARKUP)}`],
        ['User-Agent', MARKUP]
      ]
    );
    expect(hostile.status).toBe(401);
    if (hostile.headers['content-type']?.startsWith('text/html')) {
      expect(hostile.body).toBe(plain.body);
    }
    expect(hostile.body).not.toContain('__pwned');
  });

  it('the setup page and its script are static files, served the same whatever was asked', async () => {
    const svc = await start();
    const page = await send(svc, 'GET', '/project/', [bearer(svc)]);
    const hostile = await send(
      svc,
      'GET',
      `/project/?q=${encodeURIComponent(MARKUP)}`,
      [bearer(svc), ['User-Agent', MARKUP]]
    );
    expect(page.status).toBe(200);
    expect(hostile.body).toBe(page.body);
    expect(page.body).toBe(
      fs.readFileSync(path.join(STATIC_DIR, 'setup.html'), 'utf8')
    );
    expect(page.headers['content-security-policy']).toMatch(
      /script-src 'self'/
    );
    expect(page.headers['content-security-policy']).not.toMatch(
      /unsafe-inline|unsafe-eval/
    );
  });
});

describe('the setup page renders markup-like data as text', () => {
  it('a project directory named like markup: shown literally, no element created, no script run', async () => {
    const svc = await start({ projectName: MARKUP.replace(/\//g, '') });
    const projection = await request(`${svc.api}startup?interface=web`, {
      token: svc.token
    });
    expect(projection.status).toBe(200);
    expect(projection.json.projectPath).toContain('<img src=x onerror=');
    const dom = new JSDOM(
      fs.readFileSync(path.join(STATIC_DIR, 'setup.html'), 'utf8'),
      { runScripts: 'outside-only', url: `${svc.api}` }
    );
    const window = dom.window as unknown as Omit<Window, 'fetch'> & {
      __pwned?: number;
      fetch: unknown;
      eval: (code: string) => void;
    };
    // The page's one request, answered with what the real service answered.
    window.fetch = async () => ({
      ok: true,
      status: 200,
      json: async () => projection.json
    });
    window.eval(fs.readFileSync(path.join(STATIC_DIR, 'setup.js'), 'utf8'));
    const doc = window.document;
    for (
      let i = 0;
      i < 50 && doc.getElementById('project-path')?.textContent === '';
      i += 1
    ) {
      await new Promise(resolve => setTimeout(resolve, 10));
    }
    expect(doc.getElementById('project-path')?.textContent).toBe(
      projection.json.projectPath
    );
    expect(doc.getElementById('state-path')?.textContent).toBe(
      projection.json.statePath
    );
    expect(
      doc.querySelectorAll('main img, main script, main svg')
    ).toHaveLength(0);
    expect(doc.getElementById('creates')?.textContent).toContain(
      projection.json.statePath
    );
    expect(window.__pwned).toBeUndefined();
    window.close();
  });
});
