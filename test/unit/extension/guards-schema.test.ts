// The extension's checks of the service's answers (src/responses.ts) are generated from the
// schemas the service serves (sidecar/schemas, through scripts/schema-code.js into
// src/generated/response-validators.ts), as the reader sees them: types, required members,
// enums and consts; not the writer's bounds, consistency rules or closed objects. So:
//   - every answer the service builds, in every phase, passes both;
//   - the reader never refuses what the schema accepts: each field of a real answer is removed,
//     nulled, or given a value of another type, and wherever the reader refuses the result the
//     schema must refuse it too;
//   - what the schema requires is what the panel asks for: each member a schema requires,
//     removed from a real answer, is named in the failure a person reads;
// That a schema change reaches the frontend (the generator run on a changed copy of the
// schemas) is checked in the service lane: test/service/generated-code.test.ts.
import { genericPlatform } from '../../../sidecar/src/core/platforms/generic';
import { problemOf } from '../../../sidecar/src/core/problems';
import {
  interpretInitialize,
  interpretStartup,
  invalidInitializeFields,
  invalidProjectionFields,
  isProblem
} from '../../../src/responses';
import { SchemaName, schemaFile, validateAgainst } from '../../helpers/schemas';
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

describe('the extension checks and the schemas', () => {
  test.each(Object.entries(PHASE_CASES))(
    'a projection in phase %s passes both',
    (_name, make) => {
      const projection = make();
      expect(validateAgainst('StartupProjection', projection)).toEqual([]);
      expect(invalidProjectionFields(projection)).toEqual([]);
    }
  );

  test.each(Object.entries(PHASE_CASES))(
    'the projection check refuses nothing the schema accepts (%s)',
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

  test('the initialize check refuses nothing the schema accepts', () => {
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

  test('the problem check refuses nothing the schema accepts', () => {
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

function without(value: object, member: string): Record<string, unknown> {
  const copy = { ...(value as Record<string, unknown>) };
  delete copy[member];
  return copy;
}

/** What a person reads of the failure for `answer` as the startup or initialize answer. */
function reasonFor(
  interpret: typeof interpretStartup | typeof interpretInitialize,
  answer: unknown
): string {
  const result = interpret({
    url: 'http://127.0.0.1/project/x',
    status: 200,
    statusText: 'OK',
    contentType: 'application/json',
    text: JSON.stringify(answer)
  });
  if (result.ok || result.failure.kind !== 'unexpected-body') {
    throw new Error(`not an unexpected body: ${JSON.stringify(result)}`);
  }
  return result.failure.reason;
}

describe('what the schemas require, the panel asks for', () => {
  const startupRequired = schemaFile('startup').required as string[];
  const initializeRequired = schemaFile('initialize-response')
    .required as string[];

  it('reads the required lists from the schemas', () => {
    expect(startupRequired).toEqual(
      expect.arrayContaining(['phase', 'nextAction', 'readinessChecks'])
    );
    expect(initializeRequired).toEqual(
      expect.arrayContaining(['record', 'phase'])
    );
  });

  test.each(
    (schemaFile('startup').required as string[]).filter(
      m => m !== 'schemaVersion'
    )
  )('a projection without %s is refused, naming it', member => {
    const projection = projectionFor(genericPlatform);
    expect(member in projection).toBe(true);
    expect(reasonFor(interpretStartup, without(projection, member))).toBe(
      member
    );
  });

  test.each(schemaFile('initialize-response').required as string[])(
    'an initialize answer without %s is refused, naming it',
    member => {
      const answer = initializeAnswer(projectionFor(genericPlatform));
      expect(member in answer).toBe(true);
      expect(reasonFor(interpretInitialize, without(answer, member))).toBe(
        member
      );
    }
  );

  it('names each wrong field of a nested member by its path, each once', () => {
    const projection = projectionFor(genericPlatform);
    const broken = {
      ...projection,
      nextAction: without(projection.nextAction, 'title'),
      compute: { ...projection.compute, satisfied: 'yes' },
      phase: 'sleeping'
    };
    expect(reasonFor(interpretStartup, broken).split(', ').sort()).toEqual(
      ['compute.satisfied', 'nextAction.title', 'phase'].sort()
    );
    expect(reasonFor(interpretStartup, [])).toBe('(body)');
  });

  it('takes a member a newer minor version adds (objects are open to a reader)', () => {
    const projection = { ...projectionFor(genericPlatform), addedLater: 1 };
    expect(validateAgainst('StartupProjection', projection)).not.toEqual([]);
    expect(invalidProjectionFields(projection)).toEqual([]);
  });

  it('takes a problem code, a next action, a readiness check a newer minor version adds; refuses an unknown phase or check status', () => {
    const base = projectionFor(genericPlatform);
    const newer = {
      ...base,
      nextAction: { ...base.nextAction, id: 'added-later-action' },
      readinessChecks: base.readinessChecks.map((check, i) =>
        i === 0 ? { ...check, id: 'added-later-check' } : check
      )
    };
    expect(validateAgainst('StartupProjection', newer)).not.toEqual([]);
    expect(invalidProjectionFields(newer)).toEqual([]);
    expect(
      isProblem({ ...problemOf('internal', 'x'), code: 'added-later' })
    ).toBe(true);
    expect(invalidProjectionFields({ ...base, phase: 'added-later' })).toEqual([
      'phase'
    ]);
    expect(
      invalidProjectionFields({
        ...base,
        readinessChecks: base.readinessChecks.map((check, i) =>
          i === 0 ? { ...check, status: 'added-later' } : check
        )
      })
    ).toEqual(['readinessChecks.0.status']);
  });
});
