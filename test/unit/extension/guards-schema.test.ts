// The extension's response guards (src/responses.ts) against the schemas they stand for
// (sidecar/schemas, the source of the extension's types). The guards stay hand-written, checking
// only what the panel reads: a validator compiled from the schemas would add about 18 KB gzipped
// (Ajv standalone code for the projection and the initialize response) to a labextension of
// about 16 KB, past the 30 KB budget. So this test holds them to the schemas instead:
//   - every answer the service builds, in every phase, passes both;
//   - the guards never refuse what the schema accepts: each field of a real answer is removed,
//     nulled, or given a value of another type, and wherever the guard refuses the result the
//     schema must refuse it too. A guard that reads a field the schema dropped, made optional or
//     retyped fails here.
import { genericPlatform } from '../../../sidecar/src/core/platforms/generic';
import { problemOf } from '../../../sidecar/src/core/problems';
import {
  invalidInitializeFields,
  invalidProjectionFields,
  isProblem
} from '../../../src/responses';
import { SchemaName, validateAgainst } from '../../helpers/schemas';
import { initializeAnswer, PHASE_CASES, projectionFor } from './fixtures';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every variant of `value` with one member (at any depth) removed, nulled or retyped. */
function* variants(
  value: Json,
  at: string[] = []
): Generator<{ what: string; value: Json }> {
  if (value === null || typeof value !== 'object') {
    return;
  }
  const entries: [string, Json][] = Array.isArray(value)
    ? value.map((v, i) => [String(i), v])
    : Object.entries(value);
  for (const [key, child] of entries) {
    const where = [...at, key].join('.');
    const replace = (replacement: Json | undefined): Json => {
      if (Array.isArray(value)) {
        const copy = [...value];
        if (replacement === undefined) {
          copy.splice(Number(key), 1);
        } else {
          copy[Number(key)] = replacement;
        }
        return copy;
      }
      const copy = { ...value };
      if (replacement === undefined) {
        delete copy[key];
      } else {
        copy[key] = replacement;
      }
      return copy;
    };
    yield { what: `${where} removed`, value: replace(undefined) };
    yield { what: `${where} null`, value: replace(null) };
    yield {
      what: `${where} a number`,
      value: replace(typeof child === 'number' ? 'seven' : 7)
    };
    yield {
      what: `${where} an object`,
      value: replace(
        typeof child === 'object' && child !== null && !Array.isArray(child)
          ? []
          : {}
      )
    };
    for (const inner of variants(child, [...at, key])) {
      yield { what: inner.what, value: replace(inner.value) };
    }
  }
}

function refusedByGuardOnly(
  name: SchemaName,
  guard: (value: unknown) => boolean,
  good: Json,
  atLeast = 40
): string[] {
  const wrong: string[] = [];
  let tried = 0;
  for (const { what, value } of variants(good)) {
    tried += 1;
    if (!guard(value) && validateAgainst(name, value).length === 0) {
      wrong.push(what);
    }
  }
  expect(tried).toBeGreaterThanOrEqual(atLeast);
  return wrong;
}

describe('the extension guards and the schemas', () => {
  test.each(Object.entries(PHASE_CASES))(
    'a projection in phase %s passes both',
    (_name, make) => {
      const projection = make();
      expect(validateAgainst('StartupProjection', projection)).toEqual([]);
      expect(invalidProjectionFields(projection)).toEqual([]);
    }
  );

  test.each(Object.entries(PHASE_CASES))(
    'the projection guard refuses nothing the schema accepts (%s)',
    (_name, make) => {
      const projection = make() as unknown as Json;
      expect(
        refusedByGuardOnly(
          'StartupProjection',
          v => invalidProjectionFields(v).length === 0,
          projection
        )
      ).toEqual([]);
    }
  );

  test('the initialize guard refuses nothing the schema accepts', () => {
    const answer = initializeAnswer(
      projectionFor(genericPlatform)
    ) as unknown as Json;
    expect(validateAgainst('InitializeResponse', answer)).toEqual([]);
    expect(invalidInitializeFields(answer)).toEqual([]);
    expect(
      refusedByGuardOnly(
        'InitializeResponse',
        v => invalidInitializeFields(v).length === 0,
        answer
      )
    ).toEqual([]);
  });

  test('the problem guard refuses nothing the schema accepts', () => {
    const problem = JSON.parse(
      JSON.stringify(
        problemOf('wrong-phase', 'Not now.', {}, '/project/initialize')
      )
    ) as Json;
    expect(validateAgainst('Problem', problem)).toEqual([]);
    expect(isProblem(problem)).toBe(true);
    expect(refusedByGuardOnly('Problem', isProblem, problem, 20)).toEqual([]);
  });
});
