// `project-startup jupyter install|uninstall`: the JupyterLab extension and the proxy entry.
import * as path from 'node:path';
import type { InstallScope } from './jupyter-install';
import { EXIT, HELP, Io, OptionSpec, parse, usage } from './usage';

// Loaded by this command only, so `serve` starts without it.
const jupyterInstallModule = () =>
  require('./jupyter-install') as typeof import('./jupyter-install');

export function jupyter(args: string[], io: Io): number {
  const [action, ...rest] = args;
  if (action === undefined || action === '--help' || action === '-h') {
    // Without an action it is a usage error: help on stderr, as for a bare project-startup.
    (action === undefined ? io.stderr : io.stdout).write(`${HELP.jupyter}\n`);
    return action === undefined ? EXIT.usage : EXIT.ok;
  }
  if (action !== 'install' && action !== 'uninstall') {
    throw usage(
      `Unknown jupyter action "${action}"; use install or uninstall.`
    );
  }
  const { values } = parse(rest, {
    user: { type: 'boolean' },
    'sys-prefix': { type: 'boolean' },
    prefix: { type: 'string' },
    ...(action === 'install' ? { 'skip-proxy-check': { type: 'boolean' } } : {})
  } as OptionSpec);
  if (values.help) {
    io.stdout.write(`${HELP.jupyter}\n`);
    return EXIT.ok;
  }
  const chosen = [
    values.user,
    values['sys-prefix'],
    values.prefix !== undefined
  ].filter(Boolean).length;
  if (chosen > 1) {
    throw usage('Choose one of --user, --sys-prefix and --prefix.');
  }
  const scope: InstallScope = values['sys-prefix']
    ? { kind: 'sys-prefix' }
    : values.prefix !== undefined
      ? {
          kind: 'prefix',
          prefix: path.resolve(io.cwd, values.prefix as string)
        }
      : { kind: 'user' };
  if (action === 'uninstall') {
    const report = jupyterInstallModule().uninstallJupyter(scope, io.env);
    const lines: string[] = [];
    if (report.removed.length > 0) {
      lines.push('Removed:', ...report.removed.map(p => `  ${p}`));
    }
    if (report.kept.length > 0) {
      // Only what the install manifest lists, unchanged, is removed: the rest is the operator's call.
      lines.push(
        'Left in place (uninstall removes only what the install wrote, unchanged):',
        ...report.kept.map(k => `  ${k.path}: ${k.reason}`)
      );
    }
    lines.push(
      report.removed.length > 0
        ? 'Restart the Jupyter server to unload them.'
        : report.kept.length > 0
          ? 'Nothing was removed.'
          : `Nothing of ${jupyterInstallModule().PACKAGE_NAME} is installed under ${report.paths.data} or ${report.paths.config}.`
    );
    io.stdout.write(`${lines.join('\n')}\n`);
    return EXIT.ok;
  }
  const report = jupyterInstallModule().installJupyter(scope, io.env, {
    skipProxyCheck: values['skip-proxy-check'] === true
  });
  io.stdout.write(
    [
      `Installed the JupyterLab extension: ${report.labextension}`,
      `Installed the sidecar the proxy runs: ${report.sidecar}`,
      'Wrote the notebook-server proxy entry "project":',
      `  ${report.configFiles[0]} (jupyter_server 2.x)`,
      `  ${report.configFiles[1]} (jupyter_server 1.x)`,
      'What remains:',
      ...report.remaining.map(line => `  - ${line}`),
      ''
    ].join('\n')
  );
  return EXIT.ok;
}
