// The knowledge the code relies on is in the repository: every comment that cites a document cites a file under
// docs/ that exists, at a section it has; every relative link of the README and docs/ leads somewhere.
import {existsSync, readdirSync, readFileSync, statSync} from 'node:fs';
import {dirname, join, relative} from 'node:path';
import {describe, expect, test} from 'vitest';
import {ROOT} from '../helpers/run-cli.js';

// Pages other branches add (hostile, gated, detach, plan): linked before they land.
const PAGES_TO_COME = new Set(['docs/limits.md', 'docs/timing.md', 'docs/gated/abort-and-record.md', 'docs/gated/detached.md']);

function files(dir: string, keep: (path: string) => boolean): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return files(path, keep);
    return keep(path) ? [path] : [];
  });
}

const SOURCES = ['src', 'test', 'scripts', 'build', 'bench'].flatMap((dir) => files(dir, (path) => /\.(ts|tsx|mjs|js|sh|md)$/.test(path)));
const DOCS = ['README.md', ...files('docs', (path) => path.endsWith('.md'))];

/** Section numbers a markdown page has: `## 8.` and `### 8.1` headings give 8 and 8.1. */
function sectionsOf(page: string): Set<string> {
  const text = readFileSync(join(ROOT, page), 'utf8');
  return new Set([...text.matchAll(/^#{2,4} (\d+(?:\.\d+)?)\.? /gm)].map((match) => match[1]!));
}

describe('comments cite documents in the repository', () => {
  test('no comment cites a design document by its old name or a path outside the repository', () => {
    const stale = SOURCES.filter((path) => !path.startsWith('test/docs/')).flatMap((path) =>
      readFileSync(join(ROOT, path), 'utf8')
        .split('\n')
        .flatMap((line, index) =>
          /reconcile-spec|(?<!docs\/design\/)sim-api|(?<!docs\/design\/)plan-contract\.md|real-cluster\.md|dependencies\.md|\/work\/shared/.test(line)
            ? [`${path}:${index + 1}: ${line.trim()}`]
            : [],
        ),
    );
    expect(stale).toEqual([]);
  });

  test('every docs/ page a comment names exists, and has the section it cites', () => {
    const problems: string[] = [];
    let citations = 0;
    for (const path of SOURCES) {
      const text = readFileSync(join(ROOT, path), 'utf8').replace(/\n\s*(?:\/\/|\*|#)\s*/g, ' ');
      for (const match of text.matchAll(/(docs\/[\w/.-]+\.md)((?:,? (?:§[\d.]+\d|and §[\d.]+\d|\/ §[\d.]+\d))*)/g)) {
        citations++;
        const page = match[1]!;
        if (!existsSync(join(ROOT, page))) {
          if (!PAGES_TO_COME.has(page)) problems.push(`${path}: ${page} does not exist`);
          continue;
        }
        const sections = sectionsOf(page);
        for (const section of match[2]!.matchAll(/§([\d.]+\d)/g)) {
          if (!sections.has(section[1]!)) problems.push(`${path}: ${page} has no section ${section[1]}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(citations).toBeGreaterThanOrEqual(45);
  });
});

describe('documentation links', () => {
  test.each(DOCS)('%s: every relative link leads to a file (and a heading, when it names one)', (page) => {
    const text = readFileSync(join(ROOT, page), 'utf8').replace(/```[\s\S]*?```/g, '');
    const broken: string[] = [];
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1]!;
      if (/^[a-z]+:/.test(target)) continue;
      const [file, anchor] = target.split('#') as [string, string | undefined];
      const path = file === '' ? page : relative(ROOT, join(ROOT, dirname(page), file));
      if (!existsSync(join(ROOT, path))) {
        if (!PAGES_TO_COME.has(path)) broken.push(target);
        continue;
      }
      if (anchor !== undefined && path.endsWith('.md') && !anchorsOf(path).has(anchor)) broken.push(target);
    }
    expect(broken).toEqual([]);
  });
});

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchorsOf(page: string): Set<string> {
  const text = readFileSync(join(ROOT, page), 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set(
    [...text.matchAll(/^#+ (.+)$/gm)].map((match) =>
      match[1]!
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    ),
  );
}
