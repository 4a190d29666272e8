// Text for a terminal: whatever the server, the runtime file or the file system said is shown
// with its control characters escaped, so a directory name or an answer holding ANSI escape
// sequences, a carriage return or bidirectional overrides cannot recolour, rewrite or reorder
// what a person reads. `--json` output is JSON and is not touched.

/**
 * C0 controls and DEL, C1 controls, the Unicode line and paragraph separators, and the
 * bidirectional formatting characters (the "Trojan Source" set).
 */
/* eslint-disable no-control-regex -- matching control characters is the point */
const UNSAFE =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;
const UNSAFE_KEEPING_NEWLINES =
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;
/* eslint-enable no-control-regex */

function escapeChar(c: string): string {
  const code = c.codePointAt(0) as number;
  return code < 0x100
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u{${code.toString(16)}}`;
}

/** One line of text: every control character escaped (\x1b, \x0a, \u{202e}). */
export function terminalSafe(value: unknown): string {
  return String(value).replace(UNSAFE, escapeChar);
}

/** Text of several lines: line breaks kept, every other control character escaped. */
export function terminalSafeLines(value: unknown): string {
  return String(value).replace(UNSAFE_KEEPING_NEWLINES, escapeChar);
}

/** A template tag: the literal parts as written, every interpolated value escaped to one line. */
export function line(
  strings: TemplateStringsArray,
  ...values: unknown[]
): string {
  return strings.reduce(
    (out, literal, i) =>
      out + literal + (i < values.length ? terminalSafe(values[i]) : ''),
    ''
  );
}
