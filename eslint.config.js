// Lint rules of the house. Besides the usual correctness rules, it holds the architecture's import
// direction (architecture.md): the core imports nothing outside itself, other layers enter the core only
// through src/core/index.ts, output and ui import no services, commands, cluster or sim.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

// Relative paths only: '@oclif/core/help' is a package, not src/core.
const coreOnlyThroughIndex = {regex: '^\\.\\.?/(.*/)?core/(?!index\\.js$)', message: 'Enter the core through src/core/index.ts.'};
const noServices = {group: ['**/services/*', '**/commands/*'], message: 'Imports point inward: no services or commands here.'};
const noClusterAccess = {group: ['**/cluster/*', '**/sim/*'], message: 'Imports point inward: output and ui render; they do not reach the cluster.'};

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
  {files: ['src/output/**', 'src/ui/**'], rules: {'no-restricted-imports': ['error', {patterns: [coreOnlyThroughIndex, noServices, noClusterAccess]}]}},
  {
    files: ['src/cluster/**', 'src/sim/**'],
    rules: {
      'no-restricted-imports': ['error', {patterns: [coreOnlyThroughIndex, noServices, {group: ['**/output/*', '**/ui/*'], message: 'Imports point inward.'}]}],
    },
  },
  {files: ['src/services/**', 'src/commands/**', 'src/cli/**', 'src/platform/**', 'src/*.ts'], rules: {'no-restricted-imports': ['error', {patterns: [coreOnlyThroughIndex]}]}},
  // Tests reach into parsed JSON documents freely.
  {files: ['test/**', 'bench/**', 'scripts/**', 'build/**'], rules: {'@typescript-eslint/no-explicit-any': 'off'}},
);
