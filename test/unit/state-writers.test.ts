// Every creation of project state goes through POST /project/initialize's handler. The one
// function that writes the state directory is createState (sidecar/src/observe/state.ts; its
// helpers are not exported); this follows every call into it, by the compiler's own symbol
// resolution (an alias, a re-export or a method reference counts), up to the route handlers.
// A second writer anywhere in the sidecar (a command that calls the service's initialize or
// createState itself, say) makes it fail.
import * as path from 'node:path';
import * as ts from 'typescript';
import { ROUTES } from '../../sidecar/src/http/route-table';
import * as routes from '../../sidecar/src/http/routes';

const ROOT = path.join(__dirname, '..', '..');
const SIDECAR_SRC = path.join(ROOT, 'sidecar', 'src');

function sidecarProgram(): ts.Program {
  const configPath = path.join(ROOT, 'sidecar', 'tsconfig.json');
  const read = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(
    read.config,
    ts.sys,
    path.dirname(configPath)
  );
  return ts.createProgram(parsed.fileNames, {
    ...parsed.options,
    noEmit: true
  });
}

const program = sidecarProgram();
const checker = program.getTypeChecker();
const sources = program
  .getSourceFiles()
  .filter(f => f.fileName.startsWith(SIDECAR_SRC));

function resolved(symbol: ts.Symbol | undefined): ts.Symbol | undefined {
  return symbol && symbol.flags & ts.SymbolFlags.Alias
    ? checker.getAliasedSymbol(symbol)
    : symbol;
}

/** The declaration named `name` of the symbol exported as `exported` by `file`. */
function exportedSymbol(file: string, exported: string): ts.Symbol {
  const source = program.getSourceFile(path.join(SIDECAR_SRC, file));
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  const symbol = moduleSymbol
    ? checker.getExportsOfModule(moduleSymbol).find(s => s.name === exported)
    : undefined;
  if (symbol === undefined) {
    throw new Error(`${file} exports no ${exported}`);
  }
  return resolved(symbol) as ts.Symbol;
}

/** A method's symbol: `member` of the class exported as `exported` by `file`. */
function memberSymbol(
  file: string,
  exported: string,
  member: string
): ts.Symbol {
  const cls = exportedSymbol(file, exported);
  const symbol = cls.members?.get(member as ts.__String);
  if (symbol === undefined) {
    throw new Error(`${exported} has no member ${member}`);
  }
  return symbol;
}

/** The functions around `node`, outermost first: where a reference is made. */
function enclosingName(node: ts.Node): string {
  const names: string[] = [];
  for (let at: ts.Node | undefined = node.parent; at; at = at.parent) {
    if (ts.isFunctionDeclaration(at) && at.name) {
      names.unshift(at.name.text);
    } else if (ts.isMethodDeclaration(at)) {
      const owner = ts.isClassDeclaration(at.parent)
        ? `${at.parent.name?.text ?? '?'}.`
        : '';
      names.unshift(`${owner}${at.name.getText()}`);
    } else if (
      (ts.isArrowFunction(at) || ts.isFunctionExpression(at)) &&
      (ts.isVariableDeclaration(at.parent) ||
        ts.isPropertyAssignment(at.parent))
    ) {
      names.unshift(at.parent.name.getText());
    }
  }
  return names.length > 0 ? names.join(' > ') : '(top level)';
}

/**
 * Every place in the sidecar that refers to `target` other than its own declaration, as
 * `file: enclosing function`. A reference that is not a call (handing the function on) counts
 * too: whoever holds it could call it.
 */
function referencesTo(target: ts.Symbol): string[] {
  const found: string[] = [];
  const declarations = new Set(target.declarations ?? []);
  for (const source of sources) {
    const visit = (node: ts.Node): void => {
      if (
        ts.isIdentifier(node) &&
        !(node.parent && declarations.has(node.parent as ts.Declaration)) &&
        !ts.isImportSpecifier(node.parent) &&
        !ts.isExportSpecifier(node.parent)
      ) {
        const symbol = resolved(checker.getSymbolAtLocation(node));
        // By declaration: a member reached through another type's view is another symbol object.
        if (symbol?.declarations?.some(d => declarations.has(d))) {
          found.push(
            `${path.relative(SIDECAR_SRC, source.fileName)}: ${enclosingName(node)}`
          );
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return [...new Set(found)].sort();
}

describe('the state directory has one writer: the initialize route', () => {
  it('createState is called from StartupService.initialize only', () => {
    expect(
      referencesTo(exportedSymbol('observe/state.ts', 'createState'))
    ).toEqual(['service/service.ts: StartupService.initialize']);
  });

  it("StartupService.initialize is called from the initialize route's work only", () => {
    expect(
      referencesTo(
        memberSymbol('service/service.ts', 'StartupService', 'initialize')
      )
    ).toEqual(['http/routes.ts: createProjectState']);
  });

  it("the initialize route's work is reached from the initialize handler and the gateway's project.initialize only", () => {
    const routes = program.getSourceFile(
      path.join(SIDECAR_SRC, 'http', 'routes.ts')
    ) as ts.SourceFile;
    const declaration = routes.statements.find(
      (s): s is ts.FunctionDeclaration =>
        ts.isFunctionDeclaration(s) && s.name?.text === 'createProjectState'
    );
    expect(declaration).toBeDefined();
    const symbol = checker.getSymbolAtLocation(
      (declaration as ts.FunctionDeclaration).name as ts.Identifier
    ) as ts.Symbol;
    // Not exported: nothing outside routes.ts can call it.
    expect(
      ts.getCombinedModifierFlags(declaration as ts.Declaration) &
        ts.ModifierFlags.Export
    ).toBe(0);
    expect(referencesTo(symbol)).toEqual([
      // The gateway handler hands it to handleRpc as project.initialize.
      'http/routes.ts: gateway > initialize',
      'http/routes.ts: initialize'
    ]);
  });

  it('the route table serves the initialize and gateway handlers at their paths', () => {
    // Loaded for real: the handlers the table names are the functions checked above.
    const byPath = new Map(ROUTES.map(r => [r.path, r]));
    expect(byPath.get('/initialize')?.handle).toBe(routes.initialize);
    expect(byPath.get('/initialize')?.methods).toEqual(['POST']);
    expect(byPath.get('/gateway')?.handle).toBe(routes.gateway);
  });
});
