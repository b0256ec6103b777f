// `npm test` on a machine without kubectl or tmux stops at once (the pretest script), naming what is missing.
import {execFile} from 'node:child_process';
import {readFileSync} from 'node:fs';
import {mkdtemp, rm, symlink} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, expect, test} from 'vitest';
import {ROOT} from '../helpers/run-cli.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ds-rollout-tools-'));
});
afterAll(async () => {
  if (dir) await rm(dir, {recursive: true, force: true});
});

/** The check with PATH holding only the named tools (links to /bin/true: only their presence counts). */
async function check(tools: readonly string[]): Promise<{code: number; stdout: string; stderr: string}> {
  const bin = await mkdtemp(join(dir, 'bin-'));
  for (const tool of tools) await symlink('/bin/true', join(bin, tool));
  return new Promise((resolve) =>
    execFile(process.execPath, [join(ROOT, 'scripts', 'check-test-tools.mjs')], {env: {PATH: bin}}, (error, stdout, stderr) =>
      resolve({code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr}),
    ),
  );
}

test('npm test runs the check first', () => {
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {scripts: Record<string, string>}).scripts;
  expect(scripts['pretest']).toBe('node scripts/check-test-tools.mjs');
});

test.each([
  [['kubectl', 'tmux'], 0, ''],
  [['kubectl'], 1, 'error: npm test needs tmux on PATH (Debian: apt-get install tmux; .ci/run installs them)\n'],
  [['tmux'], 1, 'error: npm test needs kubectl on PATH (Debian: apt-get install kubernetes-client; .ci/run installs them)\n'],
  [[], 1, 'error: npm test needs kubectl and tmux on PATH (Debian: apt-get install kubernetes-client tmux; .ci/run installs them)\n'],
])('with %j on PATH: exit %i', async (tools, code, stderr) => {
  expect(await check(tools)).toEqual({code, stdout: '', stderr});
});
