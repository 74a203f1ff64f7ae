// Lint rules, including the layering rules DESIGN.md relies on:
// - nothing under src/main imports 'electron' except index.ts, ipc.ts and *.electron.ts;
// - src/main/stats imports nothing outside itself;
// - src/renderer never imports src/main; src/shared imports no Node or DOM-only modules;
// - onnxruntime-node is loaded only through src/main/inference/ort.ts, which refuses to
//   run unless the process turned the library's native telemetry off;
// - every relative import follows the room table of eslint-rules/layering.mjs.
import tseslint from 'typescript-eslint';
import layering from './eslint-rules/layering.mjs';

const electronOnly = ['electron', 'electron/*'];
const ortOnlyThroughWrapper = {
  name: 'onnxruntime-node',
  allowTypeImports: true,
  message: "import onnxruntime-node through src/main/inference/ort.ts: it checks that the native telemetry is off (src/main/security/telemetry.ts)",
};

const focusedTests = { selector: "CallExpression[callee.object.name=/^(it|test|describe)$/][callee.property.name='only']", message: 'focused tests silence the rest of the suite' };
// SQL lives in src/main/store (DESIGN.md; issue 22): a statement prepared, a script run or a
// pragma set anywhere else in the engine is refused. `exec` is matched only with a string or
// template argument, which a RegExp's exec (a variable) does not have.
const SQL_MESSAGE = 'SQL lives in src/main/store: add a named function to a repository module there and call it';
const sqlOnlyInStore = [
  { selector: "CallExpression[callee.property.name='prepare']", message: SQL_MESSAGE },
  { selector: "CallExpression[callee.property.name='exec'][arguments.0.type=/^(Literal|TemplateLiteral)$/]", message: SQL_MESSAGE },
  { selector: "CallExpression[callee.property.name='pragma']", message: SQL_MESSAGE },
];

export default tseslint.config(
  {
    ignores: ['node_modules/**', 'out/**', 'dist/**', 'resources/**', 'test-results/**', 'playwright-report/**', 'demo-output/**', '**/*.d.ts', 'test/fixtures/lint/**'],
  },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.mts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-restricted-syntax': ['error', focusedTests],
      'no-restricted-imports': ['error', { paths: [ortOnlyThroughWrapper] }],
    },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx', 'src/**/*.mts', 'src/**/*.mjs'],
    plugins: { equivox: layering },
    rules: { 'equivox/layering': 'error' },
  },
  {
    files: ['src/main/**/*.ts'],
    ignores: ['src/main/index.ts', 'src/main/ipc.ts', 'src/main/**/*.electron.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [ortOnlyThroughWrapper, { name: 'electron', message: 'only src/main/index.ts, src/main/ipc.ts and *.electron.ts may import electron (DESIGN.md: the engine runs without Electron)' }], patterns: [{ group: ['electron/*'], message: 'only src/main/index.ts, src/main/ipc.ts and *.electron.ts may import electron' }] }],
    },
  },
  {
    files: ['src/main/stats/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^(?!\\./|\\.\\./(?!\\.\\.)).*', message: 'src/main/stats is pure: it imports nothing outside itself' }, { regex: '^\\.\\./\\.\\.', message: 'src/main/stats is pure: it imports nothing outside itself' }] }],
    },
  },
  {
    files: ['src/renderer/**/*.ts', 'src/renderer/**/*.tsx'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '(^|/)main(/|$)', message: 'the renderer talks to the engine only through window.equivox' }, { group: electronOnly, message: 'the renderer never imports electron' }, { regex: '^node:', message: 'the renderer has no Node APIs' }] }],
    },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^node:', message: 'src/shared has no Node imports' }, { regex: '(^|/)(main|renderer|preload)(/|$)', message: 'src/shared depends on nothing but itself and zod' }, { group: electronOnly, message: 'src/shared never imports electron' }] }],
    },
  },
  {
    files: ['src/main/**/*.ts'],
    ignores: ['src/main/store/**'],
    rules: {
      'no-restricted-syntax': ['error', focusedTests, ...sqlOnlyInStore],
    },
  },
);
