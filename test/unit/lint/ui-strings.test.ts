/**
 * The renderer's string catalogue carries no developer text: no `scripts/` paths and no
 * .mjs/.cjs/.ts/.tsx file names in anything it can show. The catalogue is every string
 * literal, template text and JSX text of every module the built renderer contains (the
 * import graph from its entry, shared modules included), except module specifiers, which
 * the bundler resolves away. The rendered screens are checked the same way in the e2e
 * tests (test/e2e/pages/app.ts, checkWording).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ENTRY = resolve('src/renderer/src/main.tsx');
const DEVELOPER_TEXT = /(^|[\s("'“])scripts\/|\b[\w.-]+\.(mjs|cjs|ts|tsx)\b/;

function resolveModule(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const base = resolve(dirname(from), spec);
  for (const c of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')]) {
    if (existsSync(c) && /\.(ts|tsx)$/.test(c)) return c;
  }
  return null;
}

/** Every string a module holds, and the modules it imports. */
function scan(file: string): { strings: string[]; imports: string[] } {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const strings: string[] = [];
  const imports: string[] = [];
  const visit = (node: ts.Node): void => {
    // Module specifiers (import/export … from '…', import('…'), import.meta.glob('…')) are paths the bundler resolves, not text.
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      imports.push(node.moduleSpecifier.text);
      if (ts.isImportDeclaration(node) && node.importClause) visit(node.importClause);
      return;
    }
    if (ts.isCallExpression(node)) {
      const callee = node.expression.getText(source);
      if (node.expression.kind === ts.SyntaxKind.ImportKeyword || callee === 'import.meta.glob') {
        for (const a of node.arguments) if (ts.isStringLiteral(a)) imports.push(a.text);
        return;
      }
    }
    if (ts.isStringLiteralLike(node)) strings.push(node.text);
    else if (ts.isTemplateExpression(node)) strings.push(node.head.text, ...node.templateSpans.map((s) => s.literal.text));
    else if (ts.isJsxText(node)) strings.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { strings, imports };
}

/** The renderer's modules: the import graph from its entry. */
function catalogue(): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const queue = [ENTRY];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    const { strings, imports } = scan(file);
    seen.set(file, strings);
    for (const spec of imports) {
      const target = resolveModule(file, spec);
      if (target && !seen.has(target)) queue.push(target);
      // import.meta.glob patterns name files directly.
      if (!target && spec.startsWith('.') && existsSync(resolve(dirname(file), spec))) queue.push(resolve(dirname(file), spec));
    }
  }
  return seen;
}

describe('user-visible strings of the renderer', () => {
  const files = catalogue();

  it('covers the screens, the dashboards and the shared modules they use', () => {
    const names = [...files.keys()].map((f) => relative(process.cwd(), f));
    for (const f of ['src/renderer/src/screens/Home.tsx', 'src/renderer/src/screens/VerifyScreen.tsx', 'src/renderer/src/screens/wizard/DataStep.tsx', 'src/renderer/src/dashboards/index.tsx', 'src/shared/roles.ts', 'src/shared/requirements.ts']) {
      expect(names).toContain(f);
    }
    expect([...files.values()].flat().length).toBeGreaterThan(1000);
  });

  it('holds no scripts/ paths or .mjs/.ts file names', () => {
    const bad = [...files.entries()].flatMap(([file, strings]) => strings.filter((s) => DEVELOPER_TEXT.test(s)).map((s) => `${relative(process.cwd(), file)}: ${s.trim().slice(0, 120)}`));
    expect(bad).toEqual([]);
  });

  it('the check finds such text where it is', () => {
    // The same scan over a module that does carry developer text: the check can fail.
    const probe = join(process.cwd(), 'test/unit/lint/ui-strings.test.ts');
    expect(scan(probe).strings.some((s) => DEVELOPER_TEXT.test(s))).toBe(true);
  });
});
