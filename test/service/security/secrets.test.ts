// The fake secrets, re-checked compactly in every ingress mode (test/service/secrets.test.ts does the full
// tour through the command line for direct loopback and the notebook-server proxy; this adds the
// trusted proxy and runs all three side by side in-process): recognisable fake values under
// credential-like names in the service's environment, the service's own token and proxy secret,
// and marker values in request headers, cookies and queries. None may appear in any answer
// (success or error, headers included), in the log, or in the files the service writes; only
// the variable names may be reported.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readAllFiles } from '../../helpers/cli';
import { tempRoot, TestService, trackedServices } from '../../helpers/harness';
import { Exchange } from '../reliability/support';
import { send } from './support';

const start = trackedServices('each');
const hex = () => randomBytes(10).toString('hex');

interface ModeCase {
  name: string;
  serve: Record<string, string>;
  env: Record<string, string>;
  prefix: string;
  confirmVia: 'web' | 'notebook';
}

const MODES: ModeCase[] = [
  {
    name: 'direct loopback',
    serve: {},
    env: {},
    prefix: '/project/',
    confirmVia: 'web'
  },
  {
    name: 'notebook-server proxy',
    serve: { ingress: 'notebook-server-proxy', baseUrl: '/user/alice/' },
    env: {
      JUPYTERHUB_API_URL: 'http://127.0.0.1:9/hub/api',
      JUPYTERHUB_USER: 'alice'
    },
    prefix: '/user/alice/project/',
    confirmVia: 'notebook'
  },
  {
    name: 'trusted proxy',
    serve: { ingress: 'trusted-proxy' },
    env: {},
    prefix: '/project/',
    confirmVia: 'web'
  }
];

describe.each(MODES)('no secret leaves the service: $name', m => {
  it('planted secrets, the token or proxy secret, and request markers appear in no answer, log line or file', async () => {
    const secretDir = tempRoot('ps-secrets-');
    const secrets: Record<string, string> = {
      JUPYTERHUB_API_TOKEN: `fake-hub-token-${hex()}`,
      OPENAI_API_KEY: `fake-vendor-key-${hex()}`,
      AWS_SECRET_ACCESS_KEY: `fake-aws-secret-${hex()}`,
      GITHUB_TOKEN: `fake-gh-token-${hex()}`,
      PROJECT_STARTUP_TOKEN: `fake-service-token-${hex()}`
    };
    const proxySecret = `fake-proxy-secret-${hex()}`;
    const secretFile = path.join(secretDir, 'proxy-secret');
    fs.writeFileSync(secretFile, proxySecret, { mode: 0o600 });
    const marks = {
      header: `hdr-mark-${hex()}`,
      cookie: `cookie-mark-${hex()}`,
      query: `query-mark-${hex()}`,
      wrong: `wrong-cred-${hex()}`
    };
    try {
      const svc: TestService = await start({
        env: {
          ...m.env,
          ...secrets,
          PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE: secretFile,
          PROJECT_STARTUP_LOG_LEVEL: 'debug'
        },
        serve: m.serve
      });
      const credential: [string, string][] =
        m.name === 'direct loopback'
          ? [['Authorization', `Bearer ${secrets.PROJECT_STARTUP_TOKEN}`]]
          : m.name === 'trusted proxy'
            ? [['X-Project-Startup-Proxy-Secret', proxySecret]]
            : [['Authorization', `token ${marks.wrong}`]]; // Jupyter's forwarded token: never read
      const common: [string, string][] = [
        ['X-Custom', marks.header],
        ['Cookie', `c=${marks.cookie}; _xsrf=${marks.cookie}`],
        // Jupyter's XSRF pair, as JupyterLab sends it: behind Jupyter a cookie-carried state
        // change needs it.
        ['X-XSRFToken', marks.cookie]
      ];
      const answers: Exchange[] = [];
      const call = async (
        method: string,
        route: string,
        headers: [string, string][] = credential,
        body?: string
      ) => {
        const r = await send(
          svc,
          method,
          `${m.prefix}${route}`,
          [
            ...headers,
            ...common,
            ...(body !== undefined
              ? [['Content-Type', 'application/json'] as [string, string]]
              : [])
          ],
          body
        );
        answers.push(r);
        return r;
      };
      const startup = await call(
        'GET',
        `startup?interface=${m.confirmVia}&q=${marks.query}`
      );
      expect(startup.status).toBe(200);
      const projection = JSON.parse(startup.body);
      const credentials = projection.readinessChecks.find(
        (c: { id: string }) => c.id === 'credential-backends'
      );
      expect(credentials.observed).toContain('AWS_SECRET_ACCESS_KEY'); // names, never values
      await call('GET', `capabilities?x=${marks.query}`);
      await call('GET', 'health');
      await call('GET', 'openapi.json');
      await call('GET', '');
      await call('GET', `nope?token=${marks.wrong}`);
      await call('DELETE', 'capabilities');
      await call('GET', `startup?interface=${marks.query}`);
      await call(
        'POST',
        'initialize',
        credential,
        JSON.stringify({ interface: m.confirmVia, bogus: marks.query })
      );
      await call(
        'POST',
        'initialize',
        credential,
        JSON.stringify({ pad: 'x'.repeat(17 * 1024) })
      );
      await call(
        'POST',
        'gateway',
        credential,
        JSON.stringify([
          {
            jsonrpc: '2.0',
            id: 1,
            method: 'project.startup',
            params: { interface: 'terminal' }
          },
          { jsonrpc: '2.0', id: 2, method: marks.query }
        ])
      );
      await call('GET', 'capabilities', [
        ['Authorization', `Bearer ${marks.wrong}`],
        ['X-Project-Startup-Proxy-Secret', marks.wrong]
      ]);
      // Same-origin, as the page or the panel sends it (the marker cookie makes it browser-borne).
      const created = await call(
        'POST',
        'initialize',
        [...credential, ['Sec-Fetch-Site', 'same-origin']],
        JSON.stringify({
          interface: m.confirmVia,
          confirm: {
            projectPath: projection.projectPath,
            statePath: projection.statePath
          }
        })
      );
      expect(created.status).toBe(201);
      await call('GET', `startup?interface=${m.confirmVia}`);

      const forbidden: Record<string, string> = {
        ...secrets,
        proxySecret,
        ...marks
      };
      const texts: [string, string][] = [
        ...answers.map(
          (a, i) =>
            [`answer ${i} (${a.status})`, `${a.rawHead}\n${a.body}`] as [
              string,
              string
            ]
        ),
        ['log', svc.logs.join('')],
        ...Object.entries(readAllFiles(svc.root)).map(
          ([file, text]) => [`file ${file}`, text] as [string, string]
        )
      ];
      expect(svc.logs.join('')).toMatch(/"level":"debug"/);
      const leaks: string[] = [];
      for (const [name, value] of Object.entries(forbidden)) {
        for (const [where, text] of texts) {
          if (text.includes(value)) {
            leaks.push(`${name} in ${where}`);
          }
        }
      }
      expect(leaks).toEqual([]);
    } finally {
      fs.rmSync(secretDir, { recursive: true, force: true });
    }
  });
});
