// The architecture's rules of the house, checked on the source: imports point inward, the core is pure,
// and commands load heavy modules lazily so --help stays fast.
import {existsSync, readdirSync, readFileSync, statSync} from 'node:fs';
import {join, relative} from 'node:path';
import {describe, expect, test} from 'vitest';

const SRC = join(import.meta.dirname, '..', '..', 'src');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry) ? [path] : [];
  });
}

function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'/gm)].map((m) => m[1]!);
}

/**
 * Every import of the file: static, type-only, re-exports, side-effect and lazy `import()`. A type-only import is an
 * arrow all the same (it says which module knows which), and a lazy one is only a later one.
 */
function allImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const pattern = /^\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'|^\s*import\s+'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/gm;
  return [...text.matchAll(pattern)].map((m) => (m[1] ?? m[2] ?? m[3])!);
}

/** A relative import of `file`, as the path under src/ of the source it names (.ts or .tsx); undefined outside src. */
function resolved(file: string, spec: string): string | undefined {
  const base = join(file, '..', spec).replace(/\.js$/, '');
  for (const candidate of [`${base}.ts`, `${base}.tsx`]) if (existsSync(candidate)) return relative(SRC, candidate);
  return undefined;
}

/** The import graph of src/: each source (path under src/) and the sources it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const targets = allImports(file).flatMap((spec) => (spec.startsWith('.') ? [resolved(file, spec)] : []));
    graph.set(relative(SRC, file), [...new Set(targets.filter((t): t is string => t !== undefined))]);
  }
  return graph;
}

/** The import cycles of a graph: its strongly connected components of more than one module (Tarjan), or a self-import. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}

/**
 * The layers of src/, lowest first (docs/design/architecture.md's table): a module imports only its own layer and
 * those below it, and of those only the ones listed. The entry point (src/cli.ts) is the top.
 */
const LAYERS: ReadonlyArray<readonly [layer: string, mayImport: readonly string[]]> = [
  ['core', []],
  ['platform', []],
  ['cluster', ['core', 'platform']],
  ['sim', ['core', 'platform', 'cluster']],
  ['output', ['core', 'platform']],
  ['services', ['core', 'platform', 'cluster', 'sim', 'output']],
  // The dashboard renders what the dashboard service returns: its types only (checked below).
  ['ui', ['core', 'platform', 'output', 'services']],
  ['cli', ['core', 'platform', 'cluster', 'sim', 'output', 'services', 'ui']],
  ['commands', ['core', 'platform', 'cluster', 'sim', 'output', 'services', 'ui', 'cli']],
  ['cli.ts', ['core', 'platform', 'cluster', 'sim', 'output', 'services', 'ui', 'cli', 'commands']],
];

/** The layer of a source, by its absolute path or its path under src/: its first folder, or the entry point. */
const layer = (file: string) => (file.startsWith('/') ? relative(SRC, file) : file).split('/')[0]!;

describe('src/core is pure', () => {
  test.each(sources(join(SRC, 'core')).map((f) => ({file: relative(SRC, f), path: f})))('$file', ({path}) => {
    for (const spec of staticImports(path)) {
      expect(spec.startsWith('./'), `${spec} leaves src/core`).toBe(true);
    }
    const text = readFileSync(path, 'utf8');
    expect(text).not.toMatch(/Date\.now\(|Math\.random\(|new Date\(\)|process\.|require\(/);
  });
});

describe('the layers', () => {
  const rank = new Map(LAYERS.map(([layer], i) => [layer, i]));

  test('src/ holds only the entry point and the layer folders', () => {
    expect(readdirSync(SRC).filter((entry) => !rank.has(entry))).toEqual([]);
  });

  test('each layer may import only layers below it', () => {
    for (const [layer, mayImport] of LAYERS) for (const target of mayImport) expect(rank.get(target), `${layer} -> ${target}`).toBeLessThan(rank.get(layer)!);
  });

  test('no import goes against the layer order (lazy and type-only imports included)', () => {
    const mayImport = new Map(LAYERS);
    const against = [...importGraph()].flatMap(([file, targets]) =>
      targets.filter((target) => layer(target) !== layer(file) && !mayImport.get(layer(file))?.includes(layer(target))).map((target) => `${file} -> ${target}`),
    );
    expect(against).toEqual([]);
  });

  test('services never import ui; ui imports only the types of services', () => {
    const wrong = sources(SRC).flatMap((file) => {
      const from = layer(file);
      const text = readFileSync(file, 'utf8');
      if (from === 'services') return allImports(file).filter((spec) => resolved(file, spec)?.startsWith('ui/'));
      if (from !== 'ui') return [];
      const typeOnly = new Set([...text.matchAll(/^\s*(?:import|export)\s+type\s[^'"]*?from\s+'([^']+)'/gm)].map((m) => m[1]!));
      return allImports(file)
        .filter((spec) => resolved(file, spec)?.startsWith('services/') && !typeOnly.has(spec))
        .map((spec) => `${relative(SRC, file)} -> ${spec}`);
    });
    expect(wrong).toEqual([]);
  });

  test('no import cycle (lazy and type-only imports included)', () => {
    expect(cycles(importGraph())).toEqual([]);
  });

  test('the cycle finder finds a cycle, through type-only and lazy imports too', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    expect(allImports(join(SRC, 'cli.ts'))).toContain('./cli/completion/complete.js');
  });
});

describe('other layers enter the core only through src/core/index.ts', () => {
  const outside = sources(SRC).filter((f) => layer(f) !== 'core');
  test.each(outside.map((f) => ({file: relative(SRC, f), path: f})))('$file', ({path}) => {
    for (const spec of staticImports(path)) {
      if (!spec.startsWith('.')) continue;
      const target = relative(SRC, join(path, '..', spec));
      if (target.startsWith('core/')) expect(target, `${relative(SRC, path)} imports ${spec}`).toBe('core/index.js');
    }
  });
});

describe('commands import only @oclif/core at the top (heavy modules lazily, inside run)', () => {
  const commands = sources(join(SRC, 'commands'));
  test.each(commands.map((f) => ({file: relative(SRC, f), path: f})))('$file', ({path}) => {
    for (const spec of staticImports(path)) {
      const lightweight = spec === '@oclif/core' || spec.startsWith('@oclif/core/') || spec.startsWith('.') || spec.startsWith('node:');
      expect(lightweight, `${relative(SRC, path)} imports ${spec} eagerly`).toBe(true);
    }
    // Relative imports at the top must not pull services (which pull client-node, ink, js-yaml).
    for (const spec of staticImports(path).filter((s) => s.startsWith('.'))) {
      expect(spec, `${relative(SRC, path)} imports ${spec} eagerly`).not.toMatch(/services|cluster\/live|ui\//);
    }
  });
});

describe('one clock: outside src/sim, src/cluster and src/platform/clock.ts nothing reads the wall clock', () => {
  const files = sources(SRC).filter((f) => !['sim', 'cluster'].includes(layer(f)) && relative(SRC, f) !== 'platform/clock.ts');
  test.each(files.map((f) => ({file: relative(SRC, f), path: f})))('$file', ({path}) => {
    expect(readFileSync(path, 'utf8')).not.toMatch(/Date\.now\b|new Date\(\)|performance\.now\(/);
  });
});

describe('one door: commands and services reach a live cluster through the Session (src/cluster/session.ts)', () => {
  // Shell completion looks names up before any command runs, one short try each, from a kubeconfig choice of its own.
  const files = sources(SRC).filter((f) => layer(f) !== 'cluster' && relative(SRC, f) !== 'services/completion.ts');
  test.each(files.map((f) => ({file: relative(SRC, f), path: f})))('$file', ({path}) => {
    // openLiveCluster/connectLiveCluster build a second connection beside the session's, with a clock of its own.
    expect(readFileSync(path, 'utf8')).not.toMatch(/\b(openLiveCluster|connectLiveCluster|stepClusterOf)\b/);
  });
});
