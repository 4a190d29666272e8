// Path traversal and route confusion: dot segments (plain, encoded, overlong UTF-8), doubled and
// back slashes, NUL, matrix parameters, reaching the record file or a file beside the setup page,
// and reaching a protected route through a public one without a token. Nothing is ever served
// but the exact routes: with the token every variant is 404 not-found (or 400 for bytes that are
// not HTTP); without it, 401 or 404; never a 200 with a route's content or a file's.
// (errors.test.ts covers /project/../etc/passwd and %2e%2e/%2e%2e/etc/passwd. The format of the
// echoed `instance` of these refusals is injection.test.ts's subject.)
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TestService, trackedServices } from '../../helpers/harness';
import { Exchange } from '../reliability/support';
import { bearer, expectRefusal, JSON_TYPE, sandboxTree, send } from './support';

const startShared = trackedServices('all');

let svc: TestService;
let manifestText: string;
let recordText: string;
beforeAll(async () => {
  svc = await startShared({
    env: { PROJECT_STARTUP_INITIALIZE_RATE_LIMIT: '1000/60' }
  });
  manifestText = (
    await send(svc, 'GET', '/project/capabilities', [bearer(svc)])
  ).body;
  const p = await send(svc, 'GET', '/project/startup?interface=web', [
    bearer(svc)
  ]);
  const body = JSON.stringify(JSON.parse(p.body).nextAction.request.body);
  const created = await send(
    svc,
    'POST',
    '/project/initialize',
    [bearer(svc), JSON_TYPE],
    body
  );
  expect(created.status).toBe(201);
  recordText = fs.readFileSync(
    path.join(JSON.parse(p.body).statePath, 'initialization.json'),
    'utf8'
  );
});

/** Nothing of a route's answer, the record, the setup page's source or a system file. */
function expectNothingServed(ex: Exchange): void {
  expect(ex.status).not.toBe(200);
  expect(ex.body).not.toContain('"capabilities"');
  expect(ex.body).not.toContain('"readinessChecks"');
  expect(ex.body).not.toContain('project-startup-state');
  expect(ex.body).not.toContain('root:');
  expect(ex.body).not.toContain("'use strict'");
  expect(ex.body).not.toBe(manifestText);
  expect(ex.body).not.toBe(recordText);
}

const TRAVERSALS = [
  '/project/../project/capabilities',
  '/project/./capabilities',
  '/project/%2e%2e/project/capabilities',
  '/project/%2E%2E/%2E%2E/%2E%2E/etc/passwd',
  '/project/.%2e/.%2e/etc/passwd',
  '/project/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd',
  '/project/..%2f..%2f..%2fetc%2fpasswd',
  '/project/..%5c..%5cetc%5cpasswd',
  '/project/..\\..\\etc\\passwd',
  '/project\\capabilities',
  '/project/\\capabilities',
  '//project/capabilities',
  '/project//capabilities',
  '///project/capabilities',
  '/project/startup/..',
  '/project/startup/.',
  '/project/capabilities/.',
  '/project/capabilities;x=1',
  '/project/capabilities%3bx=1',
  '/project/%63apabilities',
  '/project/capabilities%00',
  '/project/setup.js/..',
  '/project/setup.js%00.html',
  '/project/..%2fsetup.js',
  '/project/static/setup.js',
  '/project/setup.html',
  '/project/../sidecar/static/setup.js',
  '/project/.project-startup/initialization.json',
  '/project/../.project-startup/initialization.json',
  '/project/%2e%2e/.project-startup/initialization.json',
  '/project/..%2f.project-startup%2finitialization.json',
  '/.project-startup/initialization.json',
  '/project/..',
  '/project/%2e%2e',
  '/PROJECT/capabilities',
  '/project/CAPABILITIES'
];

describe('path traversal with a valid token', () => {
  it.each(TRAVERSALS)('%s: 404 not-found, nothing served', async target => {
    const r = await send(svc, 'GET', target, [bearer(svc)]);
    expectRefusal(r, { 'not-found': 404 }, { instanceFormat: false });
    expectNothingServed(r);
  });

  it.each([
    '/project/capabilities\u0000',
    '/project/\u0000',
    '/project/%2e%2e/\t/etc/passwd',
    '/project/ capabilities'
  ])(
    'raw control or space bytes in %j: 400 malformed-request before any route',
    async target => {
      const r = await send(svc, 'GET', target, [bearer(svc)]);
      expectRefusal(r, { 'malformed-request': 400 });
      expectNothingServed(r);
    }
  );

  it('POSTs to traversal forms of initialize create nothing and are 404', async () => {
    const before = sandboxTree(svc);
    for (const target of [
      '/project/../project/initialize',
      '/project//initialize',
      '/project/initialize/.',
      '/project/%69nitialize',
      '//project/initialize'
    ]) {
      const r = await send(svc, 'POST', target, [bearer(svc), JSON_TYPE], '{}');
      expectRefusal(r, { 'not-found': 404 }, { instanceFormat: false });
    }
    expect(sandboxTree(svc)).toEqual(before);
  });
});

describe('protected routes through public ones, without a token', () => {
  it.each([
    '/project/health/../capabilities',
    '/project/health/%2e%2e/capabilities',
    '/project/health%2f..%2fcapabilities',
    '/project/openapi.json/../startup?interface=web',
    '/project/favicon.svg/../capabilities',
    '/project/health#/../capabilities',
    '/project/health?/../capabilities',
    '/project/health;/../capabilities',
    '/project/./health/../capabilities',
    '/project/favicon.svg%2f..%2f'
  ])('%s: 401 or 404, never a route answer', async target => {
    const r = await send(svc, 'GET', target, []);
    if (target.startsWith('/project/health?')) {
      // The query is not the path: this is /project/health itself, which is public.
      expect(r.status).toBe(200);
      expect(JSON.parse(r.body).status).toBe('pass');
      return;
    }
    expectRefusal(
      r,
      { unauthorized: 401, 'not-found': 404 },
      { instanceFormat: false }
    );
    expectNothingServed(r);
  });
});
