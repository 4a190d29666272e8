// The generators' outputs follow their sources. These tests start the generator scripts as
// processes, so they run in the service lane; the unit lane checks the generated code itself
// (test/unit/site-config.test.ts, test/unit/extension/guards-schema.test.ts).
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { genericPlatform } from '../../sidecar/src/core/platforms/generic';
import { invalidProjectionFields } from '../../src/responses';
import type { IResponseValidator } from '../../src/response-errors';
import * as schemaCheck from '../../src/schema-check';
import { tempRoot } from '../helpers/harness';
import { schemaFile } from '../helpers/schemas';
import { projectionFor } from '../unit/extension/fixtures';

const ROOT = path.resolve(__dirname, '..', '..');

describe('the site file schema and its generated copies', () => {
  test('the TypeScript copy and the docs reference are what the schema generates', () => {
    const r = spawnSync(
      process.execPath,
      [path.join(ROOT, 'scripts', 'site-config-doc.js'), 'check'],
      { cwd: ROOT, encoding: 'utf8', timeout: 30000 }
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});

/** The generated module's exports, compiled to CommonJS and run. */
function loadGenerated(file: string): Record<string, IResponseValidator> {
  const js = ts.transpileModule(fs.readFileSync(file, 'utf8'), {
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2020
    }
  }).outputText;
  const module = { exports: {} as Record<string, IResponseValidator> };
  new Function('module', 'exports', 'require', js)(
    module,
    module.exports,
    (id: string) => {
      // The interpreter is the one the extension ships; nothing else may be needed.
      if (id !== '../schema-check') {
        throw new Error(`the generated validators require ${id}`);
      }
      return schemaCheck;
    }
  );
  return module.exports;
}

describe('a schema change reaches the frontend check', () => {
  it('the generator run on schemas that require one more member writes a check that names it', () => {
    const root = tempRoot('ps-response-validators-');
    try {
      fs.mkdirSync(path.join(root, 'scripts'));
      fs.copyFileSync(
        path.join(ROOT, 'scripts', 'schema-code.js'),
        path.join(root, 'scripts', 'schema-code.js')
      );
      fs.cpSync(
        path.join(ROOT, 'sidecar', 'schemas'),
        path.join(root, 'sidecar', 'schemas'),
        {
          recursive: true
        }
      );
      fs.mkdirSync(path.join(root, 'src'));
      fs.copyFileSync(
        path.join(ROOT, 'src', 'schema-check.ts'),
        path.join(root, 'src', 'schema-check.ts')
      );
      fs.cpSync(path.join(ROOT, 'schema'), path.join(root, 'schema'), {
        recursive: true
      });
      fs.mkdirSync(path.join(root, 'jupyterlab_project_startup'));
      fs.copyFileSync(
        path.join(
          ROOT,
          'jupyterlab_project_startup',
          'diagnostics-report.schema.json'
        ),
        path.join(
          root,
          'jupyterlab_project_startup',
          'diagnostics-report.schema.json'
        )
      );
      fs.symlinkSync(
        path.join(ROOT, 'node_modules'),
        path.join(root, 'node_modules')
      );
      const startup = schemaFile('startup');
      (startup.required as string[]).push('addedMember');
      (startup.properties as Record<string, unknown>).addedMember = {
        type: 'integer'
      };
      fs.writeFileSync(
        path.join(root, 'sidecar', 'schemas', 'startup.schema.json'),
        JSON.stringify(startup)
      );
      // Throws, with the generator's stderr, when it fails.
      execFileSync(
        process.execPath,
        [path.join(root, 'scripts', 'schema-code.js'), 'generate'],
        { cwd: root, stdio: 'pipe', timeout: 120000 }
      );
      const changed = loadGenerated(
        path.join(root, 'src', 'generated', 'response-validators.ts')
      );
      const projection = projectionFor(genericPlatform);
      expect(invalidProjectionFields(projection)).toEqual([]);
      expect(changed.validateStartupProjection(projection)).toBe(false);
      expect(changed.validateStartupProjection.errors).toEqual([
        expect.objectContaining({
          keyword: 'required',
          params: { missingProperty: 'addedMember' }
        })
      ]);
      expect(
        changed.validateStartupProjection({ ...projection, addedMember: 1 })
      ).toBe(true);
      expect(
        changed.validateStartupProjection({ ...projection, addedMember: 'one' })
      ).toBe(false);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
