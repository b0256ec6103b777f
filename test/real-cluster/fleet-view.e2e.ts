// Issue 27 part 4, the fleet view: the real 1.20.2 control plane as one member of a fleet. One kubeconfig holds
// it, two simulated clusters started in this process, and a context whose server nothing listens on; through
// kubectl, `ds-rollout status agent --all-contexts` and `ds-plan agent --all-contexts` print one table with a
// row per cluster (the unreachable one a row saying so), exit with the worst cluster's code and end with the
// line that counts them.
import {writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {agentManifest, eventually} from './control-plane.js';
import {BROKEN, startFleet, type Fleet} from './fleet-members.js';

const NODES = 3;
let members: Fleet;
let down: string;

const fleet = (args: readonly string[], input?: string) => members.run(args, input);

beforeAll(async () => {
  members = await startFleet(NODES);
  down = members.down;
  // Rolled out on the real cluster and sim-a; on sim-b a release that crashes.
  const set = await fleet(['set', 'image', 'daemonset/agent', `agent=registry.example/${BROKEN}`, '--context', 'sim-b']);
  expect(set.code, set.stderr).toBe(0);
  await eventually('sim-b stuck on the crashing release', async () => {
    const r = await fleet(['ds-rollout', 'status', 'agent', '--contexts', 'sim-b']);
    return r.code === 3 ? r : undefined;
  });
});

afterAll(async () => {
  await members?.stop();
});

describe('the fleet view with the real 1.20.2 control plane as a member', () => {
  it('status --all-contexts: one table, a row per cluster, the unreachable one included; the worst exit code; the count line', async () => {
    const r = await fleet(['ds-rollout', 'status', 'agent', '--all-contexts', '--request-timeout', '5s']);
    expect(r.stderr).toBe('');
    // unreachable (2) outranks stuck (3): nothing is known of the rollout there.
    expect(r.code).toBe(2);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^CONTEXT +VERDICT +REVISION +BUDGET +BLOCKER$/),
      expect.stringMatching(/^real-1\.20 +complete +1 +- *$/),
      expect.stringMatching(/^sim-a +complete +1 +- *$/),
      expect.stringMatching(/^sim-b +stuck +1->2 +1\/1 unavailable +\S/),
      expect.stringMatching(new RegExp(`^down +unreachable +- +- +.*${down.replace(/\./g, '\\.')}`)),
      '4 clusters: 2 complete, 1 stuck, 1 unreachable',
    ]);

    const json = await fleet(['ds-rollout', 'status', 'agent', '--all-contexts', '--request-timeout', '5s', '-o', 'json']);
    const document = JSON.parse(json.stdout) as {exitCode: number; contexts: Record<string, {state: string; server?: string}>};
    expect(document.exitCode).toBe(2);
    expect(Object.entries(document.contexts).map(([context, entry]) => `${context}:${entry.state}`)).toEqual([
      'real-1.20:complete',
      'sim-a:complete',
      'sim-b:stuck',
      'down:unreachable',
    ]);
  });

  it('ds-plan --all-contexts: each cluster planned on its own controller version, one row each', async () => {
    const r = await fleet(['ds-plan', 'agent', '--all-contexts', '--request-timeout', '5s']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(2);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^CONTEXT +VERDICT +REVISION +BUDGET +WAVES +ETA +BLOCKER$/),
      expect.stringMatching(/^real-1\.20 +complete +1 +- +0 +- *$/),
      expect.stringMatching(/^sim-a +complete +1 +- +0 +- *$/),
      expect.stringMatching(/^sim-b +(stuck|progressing) +1->2 +1\/1 unavailable +\d+ +\S+ +\S/),
      expect.stringMatching(/^down +unreachable +- +- +- +- +\S/),
      expect.stringMatching(/^4 clusters: 2 complete, 1 (stuck|progressing), 1 unreachable$/),
    ]);
  });

  it('ds-plan -f: a new release planned on every cluster, the real one checked by its own API server', async () => {
    const path = join(members.sims['sim-a'].dir, 'agent-2.yaml');
    writeFileSync(path, agentManifest('registry.example/agent:2.0'));
    const r = await fleet(['ds-plan', '-f', path, '--contexts', 'real-1.20,sim-a', '--request-timeout', '5s']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(
        /^real-1\.20 +progressing +1->2 +0\/1 unavailable +\d+ +\S+ +agent: registry\.example\/agent:1\.0 -> registry\.example\/agent:2\.0$/,
      ),
      expect.stringMatching(/^sim-a +progressing +1->2 +0\/1 unavailable +\d+ +\S+ +agent: registry\.example\/agent:1\.0 -> registry\.example\/agent:2\.0$/),
      '2 clusters: 2 progressing',
    ]);
  });
});
