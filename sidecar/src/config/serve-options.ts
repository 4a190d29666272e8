// The flags of `serve`: read by the command line (cli/main.ts) and, before the service is even
// loaded, by the listener that takes the Unix socket first (http/listen-first.ts), so both read
// the same socket from the same arguments.
import * as path from 'node:path';
import { parseFlags } from './flags';

export const SERVE_OPTIONS = {
  host: { type: 'string' },
  port: { type: 'string' },
  'project-dir': { type: 'string' },
  ingress: { type: 'string' },
  'base-url': { type: 'string' },
  'unix-socket': { type: 'string' },
  'allow-unauthenticated-tcp': { type: 'boolean' },
  config: { type: 'string' }
} as const;

/**
 * The Unix socket `serve ARGS` will listen on, as an absolute path; undefined when the arguments
 * name none, ask for help, or would be refused (the command line then says why).
 */
export function serveUnixSocket(
  args: readonly string[],
  cwd: string
): string | undefined {
  try {
    const values = parseFlags(args, SERVE_OPTIONS);
    const socket = values['unix-socket'];
    return values.help || typeof socket !== 'string' || socket === ''
      ? undefined
      : path.resolve(cwd, socket);
  } catch {
    return undefined;
  }
}
