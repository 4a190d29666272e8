// The socket `serve` will listen on, as the bin reads it before the service is loaded
// (sidecar/src/config/serve-options.ts, used by http/listen-first.ts): the same flags as `serve` itself
// (cli/main.ts parses with the same table), so the early socket is the one the service takes
// over, and nothing is listened on when `serve` would refuse its arguments.
import { serveUnixSocket } from '../../sidecar/src/config/serve-options';

const CWD = '/home/alice/project';
const PROXY = [
  '--ingress',
  'notebook-server-proxy',
  '--base-url',
  '/user/alice/'
];

test.each([
  [['--unix-socket', '/tmp/jsp/s.sock', ...PROXY], '/tmp/jsp/s.sock'],
  [['--unix-socket=/tmp/jsp/s.sock'], '/tmp/jsp/s.sock'],
  [[...PROXY, '--unix-socket', 'run/s.sock'], '/home/alice/project/run/s.sock'],
  [['--unix-socket', '/tmp/a', '--unix-socket', '/tmp/b'], '/tmp/b']
])('serve %j listens on %s', (args, expected) => {
  expect(serveUnixSocket(args, CWD)).toBe(expected);
});

test.each([
  [[]],
  [['--port', '8888']],
  [['--unix-socket', '/tmp/s', '--help']],
  [['--unix-socket', '']],
  [['--unix-socket', '/tmp/s', '--no-such-flag']],
  [['--unix-socket', '/tmp/s', 'positional']],
  [['--unix-socket']]
])('serve %j: nothing is listened on before the service', args => {
  expect(serveUnixSocket(args, CWD)).toBeUndefined();
});
