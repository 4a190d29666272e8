import * as fs from 'node:fs';
import * as path from 'node:path';

/** The package version, read once from package.json next to the built code. */
export const VERSION: string = (() => {
  for (const candidate of [
    '../package.json',
    '../../package.json',
    '../../../package.json'
  ]) {
    try {
      const pkg = JSON.parse(
        fs.readFileSync(path.join(__dirname, candidate), 'utf8')
      ) as { name?: string; version?: string };
      if (
        pkg.name === 'jupyterlab-project-startup' &&
        typeof pkg.version === 'string'
      ) {
        return pkg.version;
      }
    } catch {
      // try the next location
    }
  }
  return '0.0.0';
})();
