// Lint rules of the house. Besides the usual correctness rules, it holds the layer order of architecture.md, lowest
// first: core (imports nothing outside itself), platform (nothing of the project), cluster, sim, output, services,
// ui, cli, commands, and the entry point. A layer imports only layers below it; other layers enter the core only
// through src/core/index.ts; services never import ui, and ui takes only the services' types.
// test/architecture/imports.test.ts checks the same order on every import, lazy and type-only ones included, and
// that no import cycle exists.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

// Relative paths only: '@oclif/core/help' is a package, not src/core.
const coreOnlyThroughIndex = {regex: '^\\.\\.?/(.*/)?core/(?!index\\.js$)', message: 'Enter the core through src/core/index.ts.'};
const above = (layers, where) => ({
  group: layers.map((layer) => `**/${layer}/*`),
  message: `Imports point down the layers: ${where} imports no ${layers.join(', ')}.`,
});
const layerRules = (...patterns) => ({'no-restricted-imports': ['error', {patterns: [coreOnlyThroughIndex, ...patterns]}]});

export default tseslint.config(
  {ignores: ['dist/**', 'dist-sea/**', 'dist-release/**', 'node_modules/**', 'coverage/**', 'test/fixtures/**', 'oclif.manifest.json']},
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.js', '**/*.mjs'],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
        structuredClone: 'readonly',
        performance: 'readonly',
        fetch: 'readonly',
        queueMicrotask: 'readonly',
      },
    },
    linterOptions: {reportUnusedDisableDirectives: 'error'},
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', {argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none'}],
      '@typescript-eslint/consistent-type-imports': ['error', {fixStyle: 'inline-type-imports'}],
      'no-constant-condition': ['error', {checkLoops: false}],
      // `let stop; stop = follow(...)`: a callback may run inside follow() and must find undefined, not a TDZ.
      'prefer-const': ['error', {ignoreReadBeforeAssign: true}],
      eqeqeq: ['error', 'smart'],
      // Terminal escape sequences and JSON escaping are this tool's business.
      'no-control-regex': 'off',
    },
  },
  {
    files: ['src/ui/**/*.tsx', 'src/ui/**/*.ts'],
    plugins: {'react-hooks': reactHooks},
    rules: {'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error'},
  },
  {
    files: ['src/core/**'],
    rules: {
      'no-restricted-imports': ['error', {patterns: [{regex: '^(?!\\./)', message: 'src/core is pure: it imports only from src/core.'}]}],
      'no-restricted-globals': ['error', {name: 'process', message: 'src/core is pure: no process.'}, {name: 'require', message: 'src/core is pure.'}],
      'no-restricted-properties': [
        'error',
        {object: 'Date', property: 'now', message: 'src/core is pure: time is a parameter.'},
        {object: 'Math', property: 'random', message: 'src/core is pure: no randomness.'},
      ],
    },
  },
  {
    files: ['src/platform/**'],
    rules: {'no-restricted-imports': ['error', {patterns: [{regex: '^\\.\\./', message: 'src/platform imports nothing of the project.'}]}]},
  },
  {files: ['src/cluster/**'], rules: layerRules(above(['sim', 'output', 'services', 'ui', 'cli', 'commands'], 'src/cluster'))},
  {files: ['src/sim/**'], rules: layerRules(above(['output', 'services', 'ui', 'cli', 'commands'], 'src/sim'))},
  {files: ['src/output/**'], rules: layerRules(above(['cluster', 'sim', 'services', 'ui', 'cli', 'commands'], 'src/output (renderers)'))},
  {files: ['src/services/**'], rules: layerRules(above(['ui', 'cli', 'commands'], 'src/services'))},
  {
    files: ['src/ui/**'],
    rules: {
      ...layerRules(above(['cluster', 'sim', 'cli', 'commands'], 'src/ui (renderers)')),
      // The dashboard renders what the dashboard service returns: its types, never its code.
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {patterns: [{group: ['**/services/*'], allowTypeImports: true, message: 'src/ui imports only the types of services.'}]},
      ],
    },
  },
  {files: ['src/cli/**'], rules: layerRules(above(['commands'], 'src/cli'))},
  {files: ['src/commands/**', 'src/*.ts'], rules: layerRules()},
  // Tests reach into parsed JSON documents freely.
  {files: ['test/**', 'bench/**', 'scripts/**', 'build/**'], rules: {'@typescript-eslint/no-explicit-any': 'off'}},
);
