// Jupyter's XSRF pair as the sidecar reads it behind the notebook-server proxy: each value decoded
// to its token as tornado's RequestHandler._decode_xsrf_token decodes it (the expected tokens
// below are what tornado 6.5.10 returned for the same values), and X-XSRFToken accepted only
// when it stands for the token of an `_xsrf` cookie.
import type { IncomingMessage } from 'node:http';
import {
  carriesJupyterXsrf,
  xsrfTokenOf
} from '../../sidecar/src/http/jupyter-xsrf';

const MASKED = '2|8f0a1b2c|5ee9e0d3a1b2c3d4e5f60718293a4b5c6d7e8f90|1700000000';

it.each([
  [MASKED, 'd1e3fbff2eb8d8f86afc1c34a6305070e27494bc'],
  ['2|8f0a1b2c|5e|+1', 'd1'],
  ['abcd', 'abcd'],
  ['ABCD', 'abcd'],
  ['abc', Buffer.from('abc').toString('hex')],
  ['Mnw-xyz_', Buffer.from('Mnw-xyz_').toString('hex')]
])('%s stands for the token tornado reads from it', (value, tokenHex) => {
  expect(xsrfTokenOf(value)?.toString('hex')).toBe(tokenHex);
});

it.each([
  ['an unknown version', '3|a|b|c'],
  ['a mask that is not 4 bytes', '2|8f0a|5ee9|1'],
  ['a timestamp that is no number', '2|8f0a1b2c|5ee9|x'],
  ['an empty token', '2|8f0a1b2c||1'],
  ['an empty value', ''],
  ['a value longer than any Jupyter makes', 'a'.repeat(2000)]
])('%s stands for no token (tornado finds none)', (_what, value) => {
  expect(xsrfTokenOf(value)).toBeUndefined();
});

function requestWith(headers: Record<string, string>): IncomingMessage {
  return { headers } as unknown as IncomingMessage;
}

/** The same token under another mask, as tornado's xsrf_token gives it on each page. */
function remask(value: string, mask: number[]): string {
  const [, oldMask, masked, timestamp] = value.split('|');
  const old = Buffer.from(oldMask, 'hex');
  const bytes = Buffer.from(masked, 'hex').map(
    (b, i) => b ^ old[i % 4] ^ mask[i % 4]
  );
  return `2|${Buffer.from(mask).toString('hex')}|${Buffer.from(bytes).toString('hex')}|${timestamp}`;
}

it("X-XSRFToken is accepted when it stands for an _xsrf cookie's token, under any mask", () => {
  const cookie = `username-x=1; _xsrf=${MASKED}`;
  for (const header of [MASKED, remask(MASKED, [1, 2, 3, 4])]) {
    expect(
      carriesJupyterXsrf(requestWith({ cookie, 'x-xsrftoken': header }))
    ).toBe(true);
  }
  // JupyterHub 4.1+'s signed token (no `|`): compared as it is.
  const hub = 'Mnw1OjB8MTA6MTcwMDAwMDAwMHw1Ol94c3JmfDQ0Ok5qQmhaVEl6'; // made up, of its shape
  expect(
    carriesJupyterXsrf(
      requestWith({ cookie: `_xsrf=${hub}`, 'x-xsrftoken': hub })
    )
  ).toBe(true);
  // One of several _xsrf cookies (one per cookie path) is enough.
  expect(
    carriesJupyterXsrf(
      requestWith({
        cookie: `_xsrf=${hub}; _xsrf=${MASKED}`,
        'x-xsrftoken': MASKED
      })
    )
  ).toBe(true);
});

it('X-XSRFToken is refused when missing, empty, malformed or standing for another token', () => {
  const cookie = `_xsrf=${MASKED}`;
  const other = MASKED.replace('5ee9', '5ee8');
  const refused: Record<string, string>[] = [
    { cookie },
    { cookie, 'x-xsrftoken': '' },
    { cookie, 'x-xsrftoken': other },
    { cookie, 'x-xsrftoken': '3|a|b|c' },
    { cookie: 'username-x=1', 'x-xsrftoken': MASKED },
    // Equal, but tornado finds no token in either: no pair.
    { cookie: '_xsrf=2|8f0a1b2c||1', 'x-xsrftoken': '2|8f0a1b2c||1' }
  ];
  for (const headers of refused) {
    expect(carriesJupyterXsrf(requestWith(headers))).toBe(false);
  }
});
