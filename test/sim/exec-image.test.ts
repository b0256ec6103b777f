// `sim kubelets --exec-image`: a pod's container run as a local process, as a container runtime runs an image's
// entrypoint (the container's args and env, the service account files, in-cluster env), its exit the container's.
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, expect, test} from 'vitest';
import type {Pod} from '../../src/core/index.js';
import {ExecRunner, type ExecPod, parseExecImage} from '../../src/sim/exec-image.js';
import {exitedPodStatus} from '../../src/sim/kubelet.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, {recursive: true, force: true});
  dir = undefined;
});

const pod: ExecPod = {
  namespace: 'default',
  name: 'driver-abcde',
  uid: 'uid-1',
  serviceAccount: 'ds-rollout',
  args: ['step', 'agent'],
  env: [
    {name: 'NO_COLOR', value: '1'},
    {name: 'HOME', value: '/tmp'},
  ],
};

// Prints what a process in a pod sees, then exits with the code its last argument names (or waits to be killed).
const SCRIPT = `
const fs = require('node:fs');
const dir = process.env.DS_ROLLOUT_SERVICEACCOUNT_DIR;
console.log(JSON.stringify({
  args: process.argv.slice(1),
  host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT,
  noColor: process.env.NO_COLOR, homeIsPods: process.env.HOME.endsWith('default_driver-abcde'),
  token: fs.readFileSync(dir + '/token', 'utf8'), ns: fs.readFileSync(dir + '/namespace', 'utf8'), ca: fs.readFileSync(dir + '/ca.crt', 'utf8'),
}));
const last = process.argv.at(-1);
if (last === 'wait') setInterval(() => {}, 1000); else process.exit(Number(last));
`;

async function runner(requested: string[]) {
  const script = join(dir!, 'entrypoint.cjs');
  await writeFile(script, SCRIPT);
  const exits: {code: number; pod: string}[] = [];
  let exited: (code: number) => void = () => {};
  const ended = () => new Promise<number>((resolve) => (exited = resolve));
  const run = new ExecRunner(
    {
      host: '127.0.0.1',
      port: '6443',
      caCert: 'CA PEM',
      requestToken: async (namespace, name) => {
        requested.push(`${namespace}/${name}`);
        return `token-of-${name}`;
      },
    },
    [parseExecImage(`ds-rollout:e2e=${process.execPath} ${script}`)],
    dir!,
    (p, code) => {
      exits.push({code, pod: p.name});
      exited(code);
    },
  );
  return {run, exits, ended};
}

test('IMAGE=COMMAND: the image before the first =, the command split on spaces; anything else is refused', () => {
  expect(parseExecImage('ghcr.io/x/ds-rollout:v1=node /opt/bin/run --flag')).toEqual({
    image: 'ghcr.io/x/ds-rollout:v1',
    command: ['node', '/opt/bin/run', '--flag'],
  });
  expect(() => parseExecImage('no-command=')).toThrow('want IMAGE=COMMAND');
  expect(() => parseExecImage('=node')).toThrow('want IMAGE=COMMAND');
});

test("a pod of the image runs the command with the container's args and env, a service account token and in-cluster env; its exit code is reported", async () => {
  dir = await mkdtemp(join(tmpdir(), 'ds-rollout-exec-'));
  const requested: string[] = [];
  const {run, exits, ended} = await runner(requested);
  const exec = run.imageFor(['other:1', 'ds-rollout:e2e'])!;
  expect(run.imageFor(['ds-rollout:e2e-other'])).toBeUndefined();
  const done = ended();
  const started = await run.start({...pod, args: [...pod.args, '3']}, exec, '2026-11-27T00:00:00Z');
  expect(run.has('uid-1')).toBe(true);
  expect(await done).toBe(3);
  expect(exits).toEqual([{code: 3, pod: 'driver-abcde'}]);
  expect(run.has('uid-1')).toBe(false);
  expect(requested).toEqual(['default/ds-rollout']);
  const seen = JSON.parse((await readFile(started.log, 'utf8')).trim()) as Record<string, unknown>;
  expect(seen).toEqual({
    args: [expect.stringMatching(/entrypoint\.cjs$/), 'step', 'agent', '3'],
    host: '127.0.0.1',
    port: '6443',
    noColor: '1',
    homeIsPods: true,
    token: 'token-of-ds-rollout',
    ns: 'default',
    ca: 'CA PEM',
  });
});

test('a killed process is a container terminated by SIGKILL (137); the pod fails', async () => {
  dir = await mkdtemp(join(tmpdir(), 'ds-rollout-exec-'));
  const {run, ended} = await runner([]);
  const done = ended();
  const started = await run.start({...pod, args: ['wait']}, run.imageFor(['ds-rollout:e2e'])!, '2026-11-27T00:00:00Z');
  // Killed once it runs (its first line is out), as a node losing it would.
  await new Promise((resolve) => started.child.stdout!.once('data', resolve));
  started.child.kill('SIGKILL');
  expect(await done).toBe(137);
  const status = exitedPodStatus(
    {metadata: {name: 'driver-abcde', uid: 'uid-1'}, spec: {containers: [{name: 'ds-rollout', image: 'ds-rollout:e2e'}]}} as Pod,
    137,
    '2026-11-27T00:00:00Z',
    '2026-11-27T00:01:00Z',
  );
  expect(status).toMatchObject({
    phase: 'Failed',
    containerStatuses: [
      {ready: false, state: {terminated: {exitCode: 137, reason: 'Error', startedAt: '2026-11-27T00:00:00Z', finishedAt: '2026-11-27T00:01:00Z'}}},
    ],
  });
  expect(exitedPodStatus({metadata: {name: 'p'}, spec: {containers: [{name: 'c'}]}} as Pod, 0, 'a', 'b')).toMatchObject({phase: 'Succeeded'});
});
