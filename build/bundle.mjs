// Bundles the CLI with esbuild, after tsc (npm run build):
// * dist/cli.mjs: ESM, what bin/kubectl-ds_plan and bin/kubectl-ds_rollout load: the entry, with every --help text
//   rendered into it after the build (renderHelpIntoEntry). @oclif/core and the command classes are in the chunk it
//   imports for anything else; client-node, Ink, React, js-yaml and the services are split into dist/chunks/ too,
//   loaded by the commands that need them (the commands import them with `await import()`).
// * dist-sea/main.cjs (with --sea, and only that): one CommonJS file for Node's single executable, which can `require` only
//   Node's built-ins. Two dependencies use top-level await, which CommonJS cannot hold; both are rewritten here.
import {analyzeMetafile, build} from 'esbuild';
import {execFileSync} from 'node:child_process';
import {readFileSync, rmSync, writeFileSync} from 'node:fs';
import {pathToFileURL} from 'node:url';

const HELP_PLACEHOLDER = 'DS_ROLLOUT_HELP_PLACEHOLDER';
const pjson = JSON.parse(readFileSync('package.json', 'utf8'));
const define = {
  __DS_ROLLOUT_PJSON__: JSON.stringify({name: pjson.name, version: pjson.version, type: pjson.type, oclif: pjson.oclif}),
  // React's production build: smaller, and no development warnings on a user's terminal.
  'process.env.NODE_ENV': '"production"',
  // Replaced in dist/cli.mjs by every help text once the bundle is built (renderHelpIntoEntry); the single executable keeps it.
  __DS_ROLLOUT_HELP__: JSON.stringify(HELP_PLACEHOLDER),
};

// Ink awaits `import('./devtools.js')` and its own package.json at the top of reconciler.js when DEV=true. React
// devtools are not shipped, so the bundle fails that import the way a missing react-devtools-core would.
const inkWithoutDevtools = {
  name: 'ink-without-devtools',
  setup(esbuild) {
    esbuild.onLoad({filter: /[\\/]ink[\\/]build[\\/]reconciler\.js$/}, ({path}) => {
      const rewritten = readFileSync(path, 'utf8')
        .replace("await import('./devtools.js');", "throw Object.assign(new Error('react-devtools-core is not bundled'), {code: 'ERR_MODULE_NOT_FOUND'});")
        .replace('? await loadPackageJson()', '? {name: undefined, version: undefined}');
      if (!rewritten.includes('react-devtools-core is not bundled') || rewritten.includes('await loadPackageJson')) {
        throw new Error(`ink-without-devtools: Ink's top-level awaits moved in ${path}`);
      }
      return {contents: rewritten, loader: 'js'};
    });
  },
};

/** A plugin that makes each [from, to] replacement in the module `filter` matches; the build fails once a `from` is gone. */
function rewriteSource(name, filter, ...replacements) {
  return {
    name,
    setup(esbuild) {
      esbuild.onLoad({filter}, ({path}) => {
        let source = readFileSync(path, 'utf8');
        for (const [from, to] of replacements) {
          if (!source.includes(from)) throw new Error(`${name}: ${JSON.stringify(from)} is no longer in ${path}`);
          source = source.replace(from, to);
        }
        return {contents: source, loader: 'js'};
      });
    },
  };
}

/**
 * A require of one of Node's modules, made when a property of it is first read. oclif requires three at import
 * that only some runs use: child_process (the Windows shell's name), readline (a flag read from piped stdin) and
 * perf_hooks (oclif's own debug timings). Each costs Node some of its internal modules to compile before --help
 * prints; required on first use instead, they cost nothing to a run that does not use them.
 */
function lazyRequire(variable, module) {
  return [
    `const ${variable} = require("${module}");`,
    `let ${variable}_loaded; const ${variable} = new Proxy({}, {get: (_, key) => (${variable}_loaded ??= require("${module}"))[key]});`,
  ];
}

// oclif asks whether it runs under WSL with a dynamic import, at every start: one more file to load, after the
// others, before anything is printed. The same module, imported statically, is in the bundle's first file.
const oclifWslStatic = rewriteSource(
  'oclif-wsl-static',
  /[\\/]@oclif[\\/]core[\\/]lib[\\/]util[\\/]os\.js$/,
  ["(await import('wsl-utils')).isWsl", "require('is-wsl').default"],
  lazyRequire('node_child_process_1', 'node:child_process'),
);

// oclif sorts the command list with localeCompare at every start, and the first localeCompare of a process loads
// ICU's collation (~7 ms, a tenth of Node's own start-up). Command ids are lower-case ASCII words and colons, which
// code point order sorts the same way.
const oclifSortWithoutIcu = rewriteSource('oclif-sort-without-icu', /[\\/]@oclif[\\/]core[\\/]lib[\\/]config[\\/]plugin\.js$/, [
  '.sort((a, b) => a.id.localeCompare(b.id))',
  '.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))',
]);

// oclif's help measures every word it wraps with string-width 4, which runs a large emoji regular expression over
// each one. Printable ASCII (no escape sequence, no control character, no emoji) is one column a character: the
// same answer, without the expression, for nearly all of the help's text.
const stringWidthAsciiFirst = {
  name: 'string-width-ascii-first',
  setup(esbuild) {
    esbuild.onLoad({filter: /[\\/]node_modules[\\/]string-width[\\/]index\.js$/}, ({path}) => {
      const source = readFileSync(path, 'utf8');
      const entry = 'const stringWidth = string => {';
      if (!source.includes(entry) || !source.includes("require('emoji-regex')")) return undefined; // another major version
      return {
        contents: source.replace(entry, `${entry}\n\tif (typeof string === 'string' && /^[\\x20-\\x7e]*$/.test(string)) return string.length;`),
        loader: 'js',
      };
    });
  },
};

// yoga-layout (Ink's layout engine) compiles its WebAssembly with top-level await. Node compiles and
// instantiates WebAssembly synchronously too, and Emscripten's `instantiateWasm` hook lets the caller do it:
// the same module, ready when the import returns, with no await.
const yogaWithoutAwait = {
  name: 'yoga-without-await',
  setup(esbuild) {
    esbuild.onLoad({filter: /[\\/]yoga-layout[\\/]dist[\\/]src[\\/]index\.js$/}, () => ({
      loader: 'js',
      resolveDir: new URL('../node_modules/yoga-layout/dist/src/', import.meta.url).pathname,
      contents: `
import loadYoga from '../binaries/yoga-wasm-base64-esm.js';
import wrapAssembly from './wrapAssembly.js';
import {wasmBytes} from 'yoga-wasm-bytes';
const module = {
  instantiateWasm(imports, receive) {
    const instance = new WebAssembly.Instance(new WebAssembly.Module(wasmBytes()), imports);
    receive(instance);
    return instance.exports;
  },
};
loadYoga(module);
const Yoga = wrapAssembly(module);
export default Yoga;
export * from './generated/YGEnums.js';
`,
    }));
    esbuild.onResolve({filter: /^yoga-wasm-bytes$/}, () => ({path: 'yoga-wasm-bytes', namespace: 'yoga'}));
    esbuild.onLoad({filter: /.*/, namespace: 'yoga'}, () => {
      const binary = readFileSync(new URL('../node_modules/yoga-layout/dist/binaries/yoga-wasm-base64-esm.js', import.meta.url), 'utf8');
      const base64 = /data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)/.exec(binary)?.[1];
      if (!base64) throw new Error('yoga-without-await: no inlined WebAssembly in yoga-layout');
      return {loader: 'js', contents: `export const wasmBytes = () => Buffer.from(${JSON.stringify(base64)}, 'base64');`};
    });
  },
};

const oclifParseLazyReadline = rewriteSource(
  'oclif-parse-lazy-readline',
  /[\\/]@oclif[\\/]core[\\/]lib[\\/]parser[\\/]parse\.js$/,
  lazyRequire('node_readline_1', 'node:readline'),
);
const oclifLazyPerfHooks = rewriteSource(
  'oclif-lazy-perf-hooks',
  /[\\/]@oclif[\\/]core[\\/]lib[\\/]performance\.js$/,
  lazyRequire('node_perf_hooks_1', 'node:perf_hooks'),
);

// The single executable's require() loads only Node's built-ins, and warns on the first try at anything else.
// The optional modules that dependencies probe for in try/catch (oclif: typescript, for development only; ws:
// native speed-ups; node-fetch: encoding) are absent from it on purpose: they fail here the way a missing package fails.
const OPTIONAL = /^(typescript|bufferutil|utf-8-validate|encoding)$/;
const optionalModulesAbsent = {
  name: 'optional-modules-absent',
  setup(esbuild) {
    esbuild.onResolve({filter: OPTIONAL}, ({path}) => ({path, namespace: 'absent'}));
    esbuild.onLoad({filter: /.*/, namespace: 'absent'}, ({path}) => ({
      loader: 'js',
      contents: `throw Object.assign(new Error(${JSON.stringify(`Cannot find module '${path}'`)}), {code: 'MODULE_NOT_FOUND'});`,
    }));
  },
};

// oclif requires these at import although this CLI never calls them: file globbing (the 'pattern' command
// discovery; the commands here are explicit), wildcard plugin names, package.json lookup (package.json is
// built in). Left out, they cost nothing to parse at every start; calling one says so.
const UNUSED = {
  tinyglobby: ['glob'],
  minimatch: ['minimatch'],
  lilconfig: ['lilconfig'],
};
const oclifUnusedLeftOut = {
  name: 'oclif-unused-left-out',
  setup(esbuild) {
    esbuild.onResolve({filter: new RegExp(`^(${Object.keys(UNUSED).join('|')})$`)}, ({path}) => ({path, namespace: 'unused'}));
    esbuild.onLoad({filter: /.*/, namespace: 'unused'}, ({path}) => ({
      loader: 'js',
      contents: UNUSED[path]
        .map((name) => `exports.${name} = () => { throw new Error(${JSON.stringify(`${path} is not in the ds-rollout bundle`)}); };`)
        .join('\n'),
    }));
  },
};

// client-node's generated API classes and models are plain declarations, but its package.json does not say so
// (no "sideEffects"), so esbuild keeps all of them (3 MB) wherever KubeConfig is imported. Said here, only the
// APIs a command uses are bundled, and the reads that need only KubeConfig's transport load no generated code.
const clientNodeWithoutSideEffects = {
  name: 'client-node-without-side-effects',
  setup(esbuild) {
    esbuild.onResolve({filter: /^@kubernetes\/client-node$|^\.{1,2}\//}, async (args) => {
      if (args.pluginData === 'resolving' || (args.path.startsWith('.') && !/[\\/]@kubernetes[\\/]client-node[\\/]/.test(args.importer))) return undefined;
      const resolved = await esbuild.resolve(args.path, {kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'resolving'});
      if (resolved.errors.length > 0) return undefined;
      return {path: resolved.path, sideEffects: false};
    });
  },
};

// The rewrites both bundles share.
const shared = [
  clientNodeWithoutSideEffects,
  inkWithoutDevtools,
  oclifUnusedLeftOut,
  oclifWslStatic,
  oclifSortWithoutIcu,
  stringWidthAsciiFirst,
  oclifParseLazyReadline,
  oclifLazyPerfHooks,
];

const common = {
  // Less to parse at every start. Identifiers are not shortened: errors are named after their classes, and
  // esbuild's keepNames would instead wrap every inner function in a call that names it, each time it is created.
  minifyWhitespace: process.env['DS_ROLLOUT_BUNDLE_MINIFY'] !== '0', // 0: readable CPU profiles
  minifySyntax: true,
  bundle: true,
  platform: 'node',
  target: 'node20',
  define,
  legalComments: 'none',
  logLevel: 'warning',
  // The dashboard sets NODE_ENV itself for the unbundled build; here it is fixed at build time.
  logOverride: {'assign-to-define': 'silent'},
  // Kubernetes' JavaScript client brings optional transports (websockets' native speedups) it can run without.
  // oclif looks for typescript only to run a plugin's sources in development; neither bundle needs it.
  external: ['bufferutil', 'utf-8-validate', 'typescript'],
};

// --sea builds the single-executable bundle only: dist/ is what `npm run build` made, and tests running beside
// `npm run package` (or the krew archive test) keep loading it.
const sea = process.argv.includes('--sea');
if (!sea) {
  // Chunks of an earlier build would stay next to the new ones.
  rmSync('dist/chunks', {recursive: true, force: true});
  const esm = await build({
    ...common,
    metafile: true,
    entryPoints: {cli: 'build/entry.mjs'},
    outdir: 'dist',
    outExtension: {'.js': '.mjs'},
    chunkNames: 'chunks/[name]-[hash]',
    format: 'esm',
    splitting: true,
    plugins: shared,
    // client-node's CommonJS dependencies `require()` Node's built-ins, which ESM has no `require` for.
    banner: {js: "import {createRequire as __dsCreateRequire} from 'node:module'; const require = __dsCreateRequire(import.meta.url);"},
  });

  if (process.argv.includes('--analyze')) process.stdout.write(await analyzeMetafile(esm.metafile));
  renderHelpIntoEntry('dist/cli.mjs');
}

/**
 * `--help` without oclif: the bundle just built renders every help text (its help class, in a child process),
 * and they are written into its entry in place of the placeholder, which build/entry.mjs prints them from.
 */
function renderHelpIntoEntry(entry) {
  const script = `const {renderHelp} = await import(${JSON.stringify(pathToFileURL(entry).href)}); process.stdout.write(JSON.stringify(await renderHelp(process.cwd())));`;
  const texts = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: {...process.env, KUBECTL_DS_INVOKED_AS: 'kubectl'},
  });
  const source = readFileSync(entry, 'utf8');
  const placeholder = new RegExp(`(["'\`])${HELP_PLACEHOLDER}\\1`, 'g');
  const found = source.match(placeholder)?.length ?? 0;
  if (found !== 1) throw new Error(`help texts: ${entry} holds the placeholder ${found} times, not once`);
  writeFileSync(
    entry,
    source.replace(placeholder, () => JSON.stringify(texts)),
  );
}

if (sea) {
  await build({
    ...common,
    entryPoints: ['build/sea-entry.mjs'],
    outfile: 'dist-sea/main.cjs',
    format: 'cjs',
    external: [],
    plugins: [...shared, yogaWithoutAwait, optionalModulesAbsent],
  });
}
