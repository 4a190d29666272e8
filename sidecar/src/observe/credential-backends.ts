// The credential backends the service can observe without reading a secret: credential-like
// variable names, a directory of mounted secret files (stat only), and whether a Secret Service
// answers on the D-Bus session.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CredentialObservation } from '../core/observations';
import { ChildEnvironments, CREDENTIAL_NAME } from './child-env';
import { operatorDirectoryProblem } from './operator-file';
import type { Env } from '../core/env';

// Loaded when first needed rather than at start-up: a scheduler or D-Bus client is asked only
// on some platforms.
const childProcess = () =>
  require('node:child_process') as typeof import('node:child_process');

/** Credential-like names in the environment; the service's own settings are not model credentials. */
export function credentialVariableNames(env: Env): string[] {
  return Object.keys(env)
    .filter(
      name =>
        !name.startsWith('PROJECT_STARTUP_') &&
        CREDENTIAL_NAME.test(name) &&
        env[name] !== undefined &&
        env[name] !== ''
    )
    .sort();
}

/**
 * The mounted-file backend: an operator-configured directory of secret files. Only existence
 * and permissions are looked at (stat); no secret is read. The directory is listed again only
 * when its mtime changes, so requests do not keep reading it.
 */
export class MountedSecretsObserver {
  private listing: { mtimeMs: number; names: string[] } | undefined;

  constructor(private readonly secretsDir: string | undefined) {}

  observe(): CredentialObservation {
    const backend = 'mounted-file' as const;
    if (this.secretsDir === undefined) {
      return {
        backend,
        available: false,
        configured: false,
        observed: 'not configured (PROJECT_STARTUP_SECRETS_DIR)'
      };
    }
    // Configured, but not usable: what was seen, for the operator.
    const refused = (observed: string): CredentialObservation => ({
      backend,
      available: false,
      configured: true,
      observed
    });
    const dir = path.resolve(this.secretsDir);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(dir);
    } catch {
      return refused('the configured secrets directory does not exist');
    }
    if (!stat.isDirectory()) {
      return refused('the configured secrets directory is not a directory');
    }
    // Names in the directory are not secret, but nobody but the operator may be able to swap
    // the files: the rule for every file the configuration names (core/operator-files.ts).
    const untrusted = operatorDirectoryProblem(dir);
    if (untrusted !== undefined) {
      return refused(
        'code' in untrusted
          ? `the configured secrets directory cannot be looked at (${untrusted.code})`
          : `the configured secrets directory is refused: ${untrusted.message} (${untrusted.fix.replace(/\.$/, '')})`
      );
    }
    if (this.listing?.mtimeMs !== stat.mtimeMs) {
      // Dot entries are the mount's own bookkeeping (Kubernetes' ..data links), not secrets.
      this.listing = {
        mtimeMs: stat.mtimeMs,
        names: fs
          .readdirSync(dir)
          .filter(n => !n.startsWith('.'))
          .sort()
      };
    }
    const files = this.listing.names.filter(name => {
      try {
        return fs.statSync(path.join(dir, name)).isFile();
      } catch {
        return false;
      }
    });
    if (files.length === 0) {
      return refused('the configured secrets directory holds no secret files');
    }
    const open = files.filter(
      name => (fs.statSync(path.join(dir, name)).mode & 0o077) !== 0
    );
    if (open.length > 0) {
      return refused(
        `${open.length} of ${files.length} secret file(s) are readable by others (make them mode 0600 or 0400; for Kubernetes set defaultMode: 0400)`
      );
    }
    return {
      backend,
      available: true,
      configured: true,
      observed: `${files.length} private secret file(s) present`
    };
  }
}

/**
 * The system keyring: asks the session bus whether a Secret Service (org.freedesktop.secrets)
 * answers, by reading its list of collections. No item, attribute or secret is read.
 */
export function probeSecretService(
  envs: ChildEnvironments,
  timeoutMs: number
): Promise<CredentialObservation> {
  const backend = 'system-keyring' as const;
  const env = envs.dbus;
  if (!env.DBUS_SESSION_BUS_ADDRESS) {
    return Promise.resolve({
      backend,
      available: false,
      configured: false,
      observed: 'no D-Bus session, so no Secret Service can answer'
    });
  }
  const args = [
    '--session',
    '--print-reply',
    `--reply-timeout=${timeoutMs}`,
    '--dest=org.freedesktop.secrets',
    '/org/freedesktop/secrets',
    'org.freedesktop.DBus.Properties.Get',
    'string:org.freedesktop.Secret.Service',
    'string:Collections'
  ];
  return new Promise(resolve => {
    childProcess().execFile(
      'dbus-send',
      args,
      { env, timeout: timeoutMs + 500, maxBuffer: 64 * 1024 },
      (error, stdout) => {
        if ((error as NodeJS.ErrnoException | null)?.code === 'ENOENT') {
          resolve({
            backend,
            available: false,
            configured: false,
            observed:
              '`dbus-send` is not installed, so the Secret Service could not be asked'
          });
        } else if (error) {
          resolve({
            backend,
            available: false,
            configured: false,
            observed: 'no Secret Service answers on the D-Bus session'
          });
        } else {
          const collections = (stdout.match(/object path "/g) ?? []).length;
          resolve({
            backend,
            available: true,
            configured: true,
            observed: `a Secret Service answers on the D-Bus session (${collections} collection(s))`
          });
        }
      }
    );
  });
}
