// How every command reads its flags: strict (an unknown flag is an error), no positional
// arguments, and --help known to all. The command line (cli/usage.ts) and the socket the bin
// listens on before the service is loaded (serve-options.ts) read them this one way.
import { parseArgs } from 'node:util';

export type OptionSpec = Record<string, { type: 'string' | 'boolean' }>;

/** The flags' values; throws Node's error for anything the options do not allow. */
export function parseFlags(
  args: readonly string[],
  options: OptionSpec
): Record<string, string | boolean | undefined> {
  const { values } = parseArgs({
    args: [...args],
    options: { help: { type: 'boolean' }, ...options },
    allowPositionals: false,
    strict: true
  });
  return values as Record<string, string | boolean | undefined>;
}
