// Helpers of the security suites: raw requests to a test service (full control of every byte),
// problem assertions on raw answers, and "nothing was created" snapshots.
import * as fs from 'node:fs';
import type { TestService } from '../../helpers/harness';
import {
  Exchange,
  exchange,
  leakSigns,
  problemViolations,
  rawHttp,
  tree
} from '../reliability/support';

export { tree };

export function portOf(svc: TestService): number {
  return svc.running.port as number;
}

/** A raw request to the service: the Host defaults to 127.0.0.1:PORT, Connection: close is added. */
export function send(
  svc: TestService,
  method: string,
  target: string,
  headers: [string, string][] = [],
  body?: string | Buffer
): Promise<Exchange> {
  const port = portOf(svc);
  const all: [string, string][] = headers.some(
    ([n]) => n.toLowerCase() === 'host'
  )
    ? [...headers]
    : [['Host', `127.0.0.1:${port}`], ...headers];
  if (
    body !== undefined &&
    !all.some(([n]) => /^(content-length|transfer-encoding)$/i.test(n))
  ) {
    all.push(['Content-Length', String(Buffer.byteLength(body))]);
  }
  all.push(['Connection', 'close']);
  return exchange({ port }, rawHttp(method, target, all, body));
}

export function bearer(svc: TestService): [string, string] {
  return ['Authorization', `Bearer ${svc.token}`];
}

export const JSON_TYPE: [string, string] = ['Content-Type', 'application/json'];

/** The answer is this problem: status, code, media type, schema, and no leak. */
export function expectProblemAnswer(
  ex: Exchange,
  status: number,
  code: string,
  method = 'GET'
): void {
  const json =
    method === 'HEAD' || ex.body === ''
      ? undefined
      : (JSON.parse(ex.body) as { code?: string });
  expect({ status: ex.status, code: json?.code }).toEqual({
    status,
    code: method === 'HEAD' ? undefined : code
  });
  expect(
    problemViolations(ex.status, ex.headers['content-type'], ex.body, method)
  ).toEqual([]);
  expect(leakSigns(`${ex.rawHead}\n${ex.body}`)).toEqual([]);
}

/**
 * The answer refuses: one of the given problem codes (with their statuses), as problem details.
 * `instanceFormat: false` leaves the format of the echoed `instance` to injection.test.ts, so a
 * suite about something else does not fail for that one bug.
 */
export function expectRefusal(
  ex: Exchange,
  allowed: Record<string, number>,
  options: { instanceFormat?: boolean } = {}
): void {
  const json = JSON.parse(ex.body || '{}') as { code?: string };
  expect(
    Object.entries(allowed).map(([code, status]) => `${status} ${code}`)
  ).toContain(`${ex.status} ${json.code}`);
  const violations = problemViolations(
    ex.status,
    ex.headers['content-type'],
    ex.body
  );
  expect(
    options.instanceFormat === false
      ? violations.filter(v => !v.includes('/instance must match format'))
      : violations
  ).toEqual([]);
}

/** Everything below the service's temporary root (project, home, runtime), for "nothing changed". */
export function sandboxTree(svc: TestService): string[] {
  return tree(svc.root);
}

export function mode(p: string): number {
  return fs.lstatSync(p).mode & 0o777;
}
