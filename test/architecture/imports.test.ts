// The architecture's rules of the house, checked on the source: imports point inward, the core is pure,
// and commands load heavy modules lazily so --help stays fast.
import {readdirSync, readFileSync, statSync} from 'node:fs';
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

const layer = (file: string) => relative(SRC, file).split('/')[0]!;

describe('src/core is pure', () => {
  test.each(sources(join(SRC, 'core')).map((f) => ({file: relative(SRC, f), path: f})))('$file', ({path}) => {
    for (const spec of staticImports(path)) {
      expect(spec.startsWith('./'), `${spec} leaves src/core`).toBe(true);
    }
    const text = readFileSync(path, 'utf8');
    expect(text).not.toMatch(/Date\.now\(|Math\.random\(|new Date\(\)|process\.|require\(/);
  });
});

describe('imports point inward', () => {
  const allowed: Record<string, string[]> = {
    cluster: ['core', 'platform', 'cluster'],
    sim: ['core', 'platform', 'sim', 'cluster'],
    output: ['core', 'output'],
    ui: ['core', 'output', 'ui', 'platform'],
  };
  const files = sources(SRC).filter((f) => layer(f) in allowed);
  test.each(files.map((f) => ({file: relative(SRC, f), path: f})))('$file', ({path}) => {
    const from = layer(path);
    for (const spec of staticImports(path)) {
      if (!spec.startsWith('.')) continue;
      const target = relative(SRC, join(path, '..', spec));
      expect(allowed[from], `${relative(SRC, path)} imports ${spec}`).toContain(target.split('/')[0]!.replace(/\.js$/, '.ts'));
    }
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

describe('the gated and detach command modules do not import each other both ways', () => {
  const importsOf = (file: string) => [...readFileSync(join(SRC, 'cli', file), 'utf8').matchAll(/(?:from|import\()\s*'(\.\/[^']+)'/g)].map((m) => m[1]!);
  test('detach-command may use gated-command; gated-command never imports detach-command', () => {
    expect(importsOf('gated-command.ts')).not.toContain('./detach-command.js');
  });
});
