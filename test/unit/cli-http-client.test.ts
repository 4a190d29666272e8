// The command line's one problem-to-error mapping (cli/http-client.ts), which every client
// (the running service, the service behind Jupyter, the in-process initialize) reads answers through.
import {
  jsonOrProblem,
  problemFromAnswer
} from '../../sidecar/src/cli/http-client';
import { problemOf } from '../../sidecar/src/core/problems';

describe('the command line reads an answer one way', () => {
  test("a service's problem becomes its error, code, detail and extensions as sent", () => {
    const problem = {
      ...problemOf('confirmation-not-allowed', 'Confirm at the prompt.'),
      allowedInterfaces: ['terminal']
    };
    const error = problemFromAnswer(
      { status: problem.status, json: problem },
      'The service at http://127.0.0.1:1'
    );
    expect(error.code).toBe('confirmation-not-allowed');
    expect(error.message).toBe('Confirm at the prompt.');
    expect(error.extensions).toEqual({ allowedInterfaces: ['terminal'] });
  });

  test.each([
    ['a page that is not JSON', undefined],
    ['JSON that is no problem', { error: 'Forbidden' }],
    ['null', null]
  ])('%s is an internal problem naming who answered', (_name, json) => {
    const error = problemFromAnswer(
      { status: 502, json },
      'The Jupyter server at http://127.0.0.1:8888/'
    );
    expect(error.code).toBe('internal');
    expect(error.message).toBe(
      'The Jupyter server at http://127.0.0.1:8888/ answered HTTP 502.'
    );
  });

  test('a success is its body; a success without a JSON body is a problem', () => {
    expect(
      jsonOrProblem({ status: 200, json: { phase: 'ready' } }, 'x')
    ).toEqual({ phase: 'ready' });
    expect(() => jsonOrProblem({ status: 200, json: undefined }, 'x')).toThrow(
      'x answered HTTP 200.'
    );
  });
});
