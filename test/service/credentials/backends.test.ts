// The credential backends other than the keyring, checked for availability only: the process
// (credential-like variable NAMES), mounted secret files (existence and private permissions,
// never their contents) and the managed-identity endpoint (one bounded, cached probe, never its
// answer). A backend that is not in the platform's row is never reported, and never probed.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { MountedSecretsObserver } from '../../../sidecar/src/observe/probes';
import {
  PLATFORM_EVIDENCE,
  request,
  TestService,
  TestServiceOptions,
  tempRoot,
  trackedServices
} from '../../helpers/harness';
import { readAllFiles } from '../../helpers/cli';
import { OTHER_UID } from '../../helpers/listener-as-user';
import { expectValid } from '../../helpers/schemas';

const hex = () => randomBytes(12).toString('hex');
const start = trackedServices('each');

/** Scratch space of this file (secret directories), removed at the end. */
const scratch = tempRoot('ps-backends-');
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

type Platform = keyof typeof PLATFORM_EVIDENCE;

function onPlatform(
  platform: Platform,
  env: Record<string, string> = {},
  serve: TestServiceOptions['serve'] = {}
): Promise<TestService> {
  const evidence = PLATFORM_EVIDENCE[platform];
  // On the hosted platform these services stand where jupyter-server-proxy launches the sidecar
  // (its default ingress); a plain `serve` is direct loopback on every platform.
  const asLaunched: TestServiceOptions['serve'] =
    platform === 'hosted-notebook' ? { ingress: 'notebook-server-proxy' } : {};
  return start({
    env: { ...evidence.env, ...env },
    files: evidence.files,
    serve: { ...asLaunched, ...serve }
  });
}

interface Check {
  id: string;
  status: string;
  observed: string;
  remedy?: string;
  remedyBy?: string;
}

/** The credential-backends check of a fresh GET startup (notebook-server proxy needs no token). */
async function credentialCheck(
  svc: TestService,
  iface = 'terminal'
): Promise<Check> {
  const r = await request(
    `${svc.api}startup?interface=${iface}`,
    svc.token ? { token: svc.token } : {}
  );
  expect(r.status).toBe(200);
  expectValid('StartupProjection', r.json);
  const check = r.json.readinessChecks.find(
    (c: Check) => c.id === 'credential-backends'
  );
  expect(check).toBeDefined();
  return check as Check;
}

/** "Label: observed" parts of the check, by label. */
function parts(check: Check): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of check.observed.split(
    /; (?=(?:Process|System keyring|Mounted file|Managed identity): )/
  )) {
    const colon = part.indexOf(': ');
    out[part.slice(0, colon)] = part.slice(colon + 2);
  }
  return out;
}

const LABELS: Record<string, string> = {
  process: 'Process',
  'system-keyring': 'System keyring',
  'mounted-file': 'Mounted file',
  'managed-identity': 'Managed identity'
};

// ---------------------------------------------------------------------------------------------
// Mounted files

let dirCount = 0;

/** A secrets directory with the given files (name -> mode), each holding a fake secret. */
function secretsDir(
  files: Record<string, number>,
  dirMode = 0o700
): { dir: string; secrets: string[] } {
  const dir = path.join(scratch, `secrets-${++dirCount}`);
  fs.mkdirSync(dir);
  const secrets: string[] = [];
  for (const [name, mode] of Object.entries(files)) {
    const secret = `fake-mounted-secret-${hex()}`;
    secrets.push(secret);
    fs.writeFileSync(path.join(dir, name), `${secret}\n`);
    fs.chmodSync(path.join(dir, name), mode);
  }
  fs.chmodSync(dir, dirMode);
  return { dir, secrets };
}

/**
 * A Kubernetes secret volume: the files live in a timestamped directory reached through the
 * `..data` link, and every visible name is a link through `..data` (as the kubelet's atomic
 * writer lays it out), here with defaultMode 0400.
 */
function kubernetesSecretsDir(names: string[]): {
  dir: string;
  secrets: string[];
} {
  const dir = path.join(scratch, `k8s-${++dirCount}`);
  const stamp = '..2024_05_01_12_00_00.123456789';
  fs.mkdirSync(path.join(dir, stamp), { recursive: true });
  const secrets: string[] = [];
  for (const name of names) {
    const secret = `fake-k8s-secret-${hex()}`;
    secrets.push(secret);
    fs.writeFileSync(path.join(dir, stamp, name), secret);
    fs.chmodSync(path.join(dir, stamp, name), 0o400);
    fs.symlinkSync(path.join('..data', name), path.join(dir, name));
  }
  fs.symlinkSync(stamp, path.join(dir, '..data'));
  fs.chmodSync(path.join(dir, stamp), 0o755);
  fs.chmodSync(dir, 0o700);
  return { dir, secrets };
}

describe('mounted-file backend', () => {
  const cases: {
    name: string;
    make: () => string | undefined;
    available: boolean;
    says: RegExp;
  }[] = [
    {
      name: 'a 0700 directory of 0600 and 0400 files: available, with a count',
      make: () =>
        secretsDir({ 'vendor-a-api-key': 0o600, 'vendor-b-api-key': 0o400 })
          .dir,
      available: true,
      says: /\b2 private secret file/
    },
    {
      name: 'a file of mode 0644: not available, naming the fix',
      make: () =>
        secretsDir({ 'vendor-a-api-key': 0o600, 'vendor-b-api-key': 0o644 })
          .dir,
      available: false,
      says: /1 of 2 .*readable by others.*0600/
    },
    {
      name: 'a file of mode 0640 (group-readable): not available',
      make: () => secretsDir({ 'vendor-a-api-key': 0o640 }).dir,
      available: false,
      says: /readable by others.*0600/
    },
    {
      name: 'a directory of mode 0755 holding private files: available (names are not secret)',
      make: () => secretsDir({ 'vendor-a-api-key': 0o600 }, 0o755).dir,
      available: true,
      says: /1 private secret file/
    },
    {
      name: 'a directory others can write to (0777): not available, the files could be swapped',
      make: () => secretsDir({ 'vendor-a-api-key': 0o600 }, 0o777).dir,
      available: false,
      says: /secrets directory is refused: the directory can be written by group and others \(mode 0777\): another user could change or replace it \(Run `chmod go-w \//
    },
    {
      name: "another user's directory (uid 65534), though 0755: not available, naming the owner and the chown",
      make: () => {
        const { dir } = secretsDir({ 'vendor-a-api-key': 0o600 }, 0o755);
        fs.chownSync(dir, OTHER_UID, OTHER_UID);
        return dir;
      },
      available: false,
      says: /secrets directory is refused: the directory is owned by uid 65534, not by root .*chown root \//
    },
    {
      name: 'a sticky world-writable mount point (1777, as Kubernetes mounts secrets) with 0400 files: available',
      make: () => secretsDir({ 'vendor-a-api-key': 0o400 }, 0o1777).dir,
      available: true,
      says: /1 private secret file/
    },
    {
      name: 'a missing directory: not available',
      make: () => path.join(scratch, 'no-such-secrets-dir'),
      available: false,
      says: /does not exist/
    },
    {
      name: 'a file where the directory should be: not available',
      make: () => {
        const file = path.join(scratch, `not-a-dir-${++dirCount}`);
        fs.writeFileSync(file, 'x', { mode: 0o600 });
        return file;
      },
      available: false,
      says: /not a directory/
    },
    {
      name: 'an empty directory: not available',
      make: () => secretsDir({}).dir,
      available: false,
      says: /no secret files/
    },
    {
      name: 'a directory holding only a subdirectory: not available',
      make: () => {
        const { dir } = secretsDir({});
        fs.mkdirSync(path.join(dir, 'nested'), { mode: 0o700 });
        return dir;
      },
      available: false,
      says: /no secret files/
    },
    {
      name: 'not configured: says so',
      make: () => undefined,
      available: false,
      says: /not configured \(PROJECT_STARTUP_SECRETS_DIR\)/
    },
    {
      name: 'a Kubernetes-style volume (..data links, defaultMode 0400): available, counting the secrets only',
      make: () => kubernetesSecretsDir(['token', 'ca.crt', 'namespace']).dir,
      available: true,
      says: /\b3 private secret file/
    }
  ];

  it.each(cases)('$name', async c => {
    const dir = c.make();
    const observation = new MountedSecretsObserver(dir).observe();
    expect(observation).toMatchObject({
      backend: 'mounted-file',
      available: c.available
    });
    expect(observation.observed).toMatch(c.says);

    // The service reports the same through its readiness check.
    const svc = await onPlatform(
      'generic',
      dir === undefined ? {} : { PROJECT_STARTUP_SECRETS_DIR: dir }
    );
    const check = await credentialCheck(svc);
    expect(parts(check)['Mounted file']).toBe(observation.observed);
  });

  it('follows changes without a restart: a file opened up, closed again, one more file', async () => {
    const { dir } = secretsDir({ 'vendor-a-api-key': 0o600 });
    const svc = await onPlatform('generic', {
      PROJECT_STARTUP_SECRETS_DIR: dir
    });
    expect(parts(await credentialCheck(svc))['Mounted file']).toMatch(
      /\b1 private secret file/
    );
    fs.chmodSync(path.join(dir, 'vendor-a-api-key'), 0o644);
    expect(parts(await credentialCheck(svc))['Mounted file']).toMatch(
      /readable by others/
    );
    fs.chmodSync(path.join(dir, 'vendor-a-api-key'), 0o600);
    expect(parts(await credentialCheck(svc))['Mounted file']).toMatch(
      /\b1 private secret file/
    );
    fs.writeFileSync(path.join(dir, 'vendor-b-api-key'), `fake-${hex()}`, {
      mode: 0o600
    });
    expect(parts(await credentialCheck(svc))['Mounted file']).toMatch(
      /\b2 private secret file/
    );
  });

  it.each(['generic', 'hosted-notebook', 'cluster'] as const)(
    'on %s: secret file contents never appear in responses, logs, the runtime file or the state',
    async platform => {
      const plain = secretsDir({
        'vendor-a-api-key': 0o600,
        'hub-token': 0o400
      });
      const k8s = kubernetesSecretsDir(['token']);
      const secrets = [...plain.secrets, ...k8s.secrets];
      const hubToken = `fake-hub-token-${hex()}`;
      const extra: Record<string, string> =
        platform === 'cluster'
          ? { SLURM_JOB_ID: '4242', PROJECT_STARTUP_APPROVED_STORAGE: '/' }
          : {};
      const svc = await onPlatform(platform, {
        PROJECT_STARTUP_SECRETS_DIR: plain.dir,
        JUPYTERHUB_API_TOKEN: hubToken,
        ...extra
      });
      const k8sSvc = await onPlatform(platform, {
        PROJECT_STARTUP_SECRETS_DIR: k8s.dir,
        ...extra
      });
      const seen: string[] = [];
      for (const s of [svc, k8sSvc]) {
        const auth = s.token
          ? { token: s.token }
          : { headers: { authorization: 'token jupyter' } };
        for (const route of [
          'startup?interface=terminal',
          'startup?interface=web',
          'startup?interface=notebook',
          'capabilities',
          'health'
        ]) {
          const r = await request(`${s.api}${route}`, auth);
          expect(r.status).toBe(200);
          seen.push(r.text);
        }
        const g = await request(`${s.api}gateway`, {
          ...auth,
          method: 'POST',
          headers: {
            ...('headers' in auth ? auth.headers : {}),
            'content-type': 'application/json'
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'project.startup',
            params: { interface: 'terminal' }
          })
        });
        seen.push(g.text);
        expect(
          parts(
            g.json.result.readinessChecks.find(
              (c: Check) => c.id === 'credential-backends'
            )
          )['Mounted file']
        ).toMatch(/private secret file/);
      }
      // Create state where a browser confirmation is allowed (the cluster confirms at the prompt).
      if (platform !== 'cluster') {
        const iface = platform === 'generic' ? 'web' : 'notebook';
        const p = await request(
          `${svc.api}startup?interface=${iface}`,
          svc.token
            ? { token: svc.token }
            : { headers: { authorization: 'token jupyter' } }
        );
        const init = await request(`${svc.api}initialize`, {
          method: 'POST',
          ...(svc.token ? { token: svc.token } : {}),
          headers: {
            'content-type': 'application/json',
            ...(svc.token ? {} : { authorization: 'token jupyter' })
          },
          body: JSON.stringify({
            interface: iface,
            confirm: {
              projectPath: p.json.projectPath,
              statePath: p.json.statePath
            }
          })
        });
        expect(init.status).toBe(201);
        seen.push(init.text);
        expect(
          fs.existsSync(path.join(p.json.statePath, 'initialization.json'))
        ).toBe(true);
      }
      for (const s of [svc, k8sSvc]) {
        seen.push(...s.logs, ...Object.values(readAllFiles(s.root)));
        expect(s.logs.join('')).toMatch(/"level":"debug"/);
      }
      for (const [value, what] of [
        ...secrets.map(v => [v, 'a mounted secret'] as const),
        [hubToken, 'the hub token'] as const
      ]) {
        expect(
          seen.filter(text => text.includes(value)).map(() => `${what} leaked`)
        ).toEqual([]);
      }
    }
  );
});

// ---------------------------------------------------------------------------------------------
// Managed identity

interface IdentityServer {
  url: string;
  port: number;
  /** Requests received so far. */
  hits: () => number;
  close(): Promise<void>;
}

const servers: IdentityServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(s => s.close()));
});

/**
 * A loopback identity endpoint. `answer`: 'token' answers 200 with a fake token after `delayMs`;
 * 'error' answers 500; 'never' accepts the request and never answers.
 */
async function identityServer(
  answer: 'token' | 'error' | 'never',
  body = '',
  delayMs = 0
): Promise<IdentityServer> {
  let hits = 0;
  const server = http.createServer((req, res) => {
    hits += 1;
    if (answer === 'never') {
      return;
    }
    setTimeout(() => {
      res.writeHead(answer === 'token' ? 200 : 500, {
        'content-type': 'application/json'
      });
      res.end(body);
    }, delayMs);
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const s: IdentityServer = {
    url: `http://127.0.0.1:${port}/metadata/identity/oauth2/token`,
    port,
    hits: () => hits,
    close: () =>
      new Promise<void>(resolve => {
        server.closeAllConnections();
        server.close(() => resolve());
      })
  };
  servers.push(s);
  return s;
}

/** A loopback port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>(resolve => server.close(() => resolve()));
  return port;
}

const FAST_PROBES = { PROJECT_STARTUP_PROBE_TIMEOUT_MS: '200' };

describe('managed-identity backend on hosted-notebook', () => {
  it('an endpoint that answers: available; its answer (a fake token) appears nowhere', async () => {
    const fakeToken = `fake-identity-token-${hex()}`;
    const clientId = `fake-client-id-${hex()}`;
    const endpoint = await identityServer(
      'token',
      JSON.stringify({
        access_token: fakeToken,
        token_type: 'Bearer',
        expires_in: 3599
      })
    );
    // The URL's query (resource, client id) is the operator's and is not shown either.
    const url = `${endpoint.url}?api-version=2018-02-01&resource=https%3A%2F%2Fexample.org&client_id=${clientId}`;
    const svc = await onPlatform('hosted-notebook', {
      PROJECT_STARTUP_MANAGED_IDENTITY_URL: url,
      ...FAST_PROBES
    });
    const seen: string[] = [];
    const check = await credentialCheck(svc, 'notebook');
    const identity = parts(check)['Managed identity'];
    expect(identity).toMatch(/answered HTTP 200/);
    expect(identity).toContain(
      `127.0.0.1:${endpoint.port}/metadata/identity/oauth2/token`
    );
    expect(check.status).toBe('pass');
    for (const route of [
      'startup?interface=notebook',
      'startup?interface=web',
      'capabilities'
    ]) {
      seen.push((await request(`${svc.api}${route}`)).text);
    }
    const g = await request(`${svc.api}gateway`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: 'token jupyter'
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'project.startup',
        params: { interface: 'notebook' }
      })
    });
    seen.push(g.text);
    const p = await request(`${svc.api}startup?interface=notebook`);
    const init = await request(`${svc.api}initialize`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: 'token jupyter'
      },
      body: JSON.stringify({
        interface: 'notebook',
        confirm: {
          projectPath: p.json.projectPath,
          statePath: p.json.statePath
        }
      })
    });
    expect(init.status).toBe(201);
    seen.push(init.text, ...svc.logs, ...Object.values(readAllFiles(svc.root)));
    expect(endpoint.hits()).toBeGreaterThanOrEqual(1);
    for (const [what, value] of [
      ['the identity token', fakeToken],
      ['the client id', clientId]
    ]) {
      expect(
        seen.filter(t => t.includes(value)).map(() => `${what} leaked`)
      ).toEqual([]);
    }
  });

  it('an endpoint that never answers: not available, and the request still returns', async () => {
    const endpoint = await identityServer('never');
    const svc = await onPlatform('hosted-notebook', {
      PROJECT_STARTUP_MANAGED_IDENTITY_URL: endpoint.url,
      ...FAST_PROBES
    });
    const check = await credentialCheck(svc, 'notebook');
    expect(parts(check)['Managed identity']).toMatch(/no answer within 200 ms/);
    expect(endpoint.hits()).toBeGreaterThanOrEqual(1);
    // A second request is answered too (from the cache, or from a refresh that is bounded again).
    expect(
      parts(await credentialCheck(svc, 'notebook'))['Managed identity']
    ).toMatch(/no answer/);
  });

  it('an endpoint that fails with 500: not available', async () => {
    const endpoint = await identityServer('error', '{"error":"boom"}');
    const svc = await onPlatform('hosted-notebook', {
      PROJECT_STARTUP_MANAGED_IDENTITY_URL: endpoint.url,
      ...FAST_PROBES
    });
    const check = await credentialCheck(svc, 'notebook');
    expect(parts(check)['Managed identity']).toMatch(/answered HTTP 500/);
    expect(check.status).toBe('warn');
  });

  it('a closed port: not available', async () => {
    const port = await closedPort();
    const svc = await onPlatform('hosted-notebook', {
      PROJECT_STARTUP_MANAGED_IDENTITY_URL: `http://127.0.0.1:${port}/token`,
      ...FAST_PROBES
    });
    const check = await credentialCheck(svc, 'notebook');
    expect(parts(check)['Managed identity']).toMatch(/not reachable/);
    expect(check.status).toBe('warn');
  });

  it('not configured: says so', async () => {
    const check = await credentialCheck(
      await onPlatform('hosted-notebook'),
      'notebook'
    );
    expect(parts(check)['Managed identity']).toMatch(
      /not configured \(PROJECT_STARTUP_MANAGED_IDENTITY_URL\)/
    );
  });

  it('50 concurrent startup requests cause at most a couple of requests to the endpoint', async () => {
    const endpoint = await identityServer('token', '{"access_token":"x"}', 100);
    const svc = await onPlatform('hosted-notebook', {
      PROJECT_STARTUP_MANAGED_IDENTITY_URL: endpoint.url,
      ...FAST_PROBES
    });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        request(
          `${svc.api}startup?interface=${['notebook', 'web', 'terminal'][i % 3]}`,
          { newConnection: true }
        )
      )
    );
    expect(results.map(r => r.status)).toEqual(Array(50).fill(200));
    for (const r of results) {
      const check = r.json.readinessChecks.find(
        (c: Check) => c.id === 'credential-backends'
      );
      expect(parts(check)['Managed identity']).toMatch(/answered HTTP 200/);
    }
    expect(endpoint.hits()).toBeGreaterThanOrEqual(1);
    expect(endpoint.hits()).toBeLessThanOrEqual(2);
  });
});

describe('managed identity where the platform does not offer it', () => {
  it.each(['generic', 'cluster'] as const)(
    'on %s it is not reported, and the endpoint is never asked',
    async platform => {
      const endpoint = await identityServer('token', '{"access_token":"x"}');
      const svc = await onPlatform(platform, {
        PROJECT_STARTUP_MANAGED_IDENTITY_URL: endpoint.url,
        ...FAST_PROBES
      });
      for (const iface of ['terminal', 'web', 'notebook']) {
        const check = await credentialCheck(svc, iface);
        expect(Object.keys(parts(check))).not.toContain('Managed identity');
        expect(check.observed).not.toMatch(/identity/i);
      }
      const caps = await request(
        `${svc.api}capabilities`,
        svc.token ? { token: svc.token } : {}
      );
      const row = caps.json.capabilities.find(
        (c: { id: string }) => c.id === 'credential-backends'
      );
      expect(row.values.map((v: { id: string }) => v.id)).not.toContain(
        'managed-identity'
      );
      // Give a background probe, if one had been started, the time to arrive.
      await new Promise(resolve => setTimeout(resolve, 300));
      expect(endpoint.hits()).toBe(0);
    }
  );
});

// ---------------------------------------------------------------------------------------------
// Process, and the platform's row

describe('process backend', () => {
  it('reports credential-like variable names only: never values, never other variables, never empty ones', async () => {
    const values = {
      VENDOR_A_API_KEY: `fake-vendor-a-${hex()}`,
      MY_SERVICE_PASSWORD: `fake-password-${hex()}`,
      AWS_SECRET_ACCESS_KEY: `fake-aws-${hex()}`,
      JUPYTERHUB_API_TOKEN: `fake-hub-${hex()}`
    };
    const unrelated = `not-a-credential-${hex()}`;
    const svc = await onPlatform('generic', {
      ...values,
      EMPTY_API_TOKEN: '',
      SOME_SETTING: unrelated
    });
    const check = await credentialCheck(svc);
    const processPart = parts(check).Process;
    // None of these reaches a model: named, not counted.
    expect(processPart).toMatch(
      /^no model provider credential in the environment \(not model credentials, not counted: /
    );
    for (const name of Object.keys(values)) {
      expect(processPart).toContain(name);
    }
    expect(processPart).not.toContain('EMPTY_API_TOKEN');
    expect(processPart).not.toContain('SOME_SETTING');
    const all = [JSON.stringify(check), ...svc.logs].join('\n');
    for (const value of [...Object.values(values), unrelated]) {
      expect(all).not.toContain(value);
    }
  });

  it('no credential-like variables and no backend set up: not available, and quiet (skipped, no remedy), not a warning', async () => {
    const svc = await onPlatform('generic');
    const check = await credentialCheck(svc);
    expect(parts(check).Process).toMatch(/no model provider credential/);
    expect(check.status).toBe('skip');
    expect(check.remedy).toBeUndefined();
  });

  it('a secrets directory the site configured that does not exist warns, for the administrator', async () => {
    const svc = await onPlatform('generic', {
      PROJECT_STARTUP_SECRETS_DIR: '/nonexistent/project-startup-secrets'
    });
    const check = await credentialCheck(svc);
    expect(check.status).toBe('warn');
    expect(check.remedyBy).toBe('administrator');
    expect(check.remedy).toMatch(/Mounted file/);
  });

  it('a hub or forge token alone (JUPYTERHUB_API_TOKEN, JPY_API_TOKEN, GITHUB_TOKEN) does not pass; a provider credential does, by name', async () => {
    const hubOnly = {
      JUPYTERHUB_API_TOKEN: `fake-hub-${hex()}`,
      JPY_API_TOKEN: `fake-jpy-${hex()}`,
      GITHUB_TOKEN: `fake-gh-${hex()}`
    };
    const without = await credentialCheck(await onPlatform('generic', hubOnly));
    expect(parts(without).Process).toMatch(
      /^no model provider credential in the environment \(not model credentials, not counted: GITHUB_TOKEN, JPY_API_TOKEN, JUPYTERHUB_API_TOKEN\)$/
    );
    const svc = await onPlatform('generic', {
      ...hubOnly,
      ANTHROPIC_API_KEY: `fake-ant-${hex()}`,
      OPENAI_API_KEY: `fake-oai-${hex()}`
    });
    const withProvider = await credentialCheck(svc);
    expect(parts(withProvider).Process).toMatch(
      /^model provider credential\(s\) present: ANTHROPIC_API_KEY, OPENAI_API_KEY \(not model credentials, not counted: /
    );
    expect(withProvider.status).toBe('pass');
  });

  it("the service's own settings are not model credentials: a secrets directory setting alone does not make the process backend available", async () => {
    // PROJECT_STARTUP_SECRETS_DIR and PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE name paths the
    // service is configured with; they hold no credential for a model provider.
    const svc = await onPlatform('generic', {
      PROJECT_STARTUP_SECRETS_DIR: path.join(scratch, 'no-such-secrets-dir'),
      PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE: path.join(
        scratch,
        'no-such-proxy-secret'
      )
    });
    const check = await credentialCheck(svc);
    expect(parts(check).Process).toMatch(/no model provider credential/);
    expect(check.status).toBe('warn');
  });
});

describe("each platform reports exactly its row's backends", () => {
  it.each(['generic', 'hosted-notebook', 'cluster'] as const)(
    '%s',
    async platform => {
      const endpoint = await identityServer('token', '{}');
      const svc = await onPlatform(platform, {
        VENDOR_A_API_KEY: `fake-${hex()}`,
        PROJECT_STARTUP_SECRETS_DIR: secretsDir({ key: 0o600 }).dir,
        PROJECT_STARTUP_MANAGED_IDENTITY_URL: endpoint.url,
        ...FAST_PROBES
      });
      const caps = await request(
        `${svc.api}capabilities`,
        svc.token ? { token: svc.token } : {}
      );
      const row: string[] = caps.json.capabilities
        .find((c: { id: string }) => c.id === 'credential-backends')
        .values.map((v: { id: string }) => v.id);
      const expected = {
        generic: ['process', 'system-keyring', 'mounted-file'],
        'hosted-notebook': ['process', 'mounted-file', 'managed-identity'],
        cluster: ['process', 'mounted-file']
      }[platform];
      expect([...row].sort()).toEqual([...expected].sort());
      const check = await credentialCheck(svc);
      expect(Object.keys(parts(check)).sort()).toEqual(
        row.map(id => LABELS[id]).sort()
      );
    }
  );
});
