// Every example runs (issue 28): each `sh` block of the README and docs/, and each --help example, is run as pasted,
// in order, in one shell session per document (exports carry over), against one simulated demo cluster per document
// that KUBECONFIG points at. A block that is meant to fail says so and its exit code is checked; one that cannot run
// here says why, and shows as skipped with that reason. Markers, on the line before a block's fence:
//   <!-- check: exit 3 -->                    the block ends with this exit code
//   <!-- check: skip needs a real cluster --> not run, for the reason given (required)
// For --help examples, where a comment cannot go, HELP_MARKERS below says the same by the example's command.
// `npm ci` and `npm run build` are stood in by no-ops: `npm test` has done both before the suite runs.
import {execFile} from 'node:child_process';
import {existsSync} from 'node:fs';
import {chmod, copyFile, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {COMMANDS} from '../../src/cli.js';
import {ROOT} from '../helpers/run-cli.js';
import {startTestCluster, stopDetachedSims, type TestCluster} from '../helpers/sim-cluster.js';

interface Block {
  /** Where it is: `README.md:60`, or `kubectl ds-rollout step --help`. */
  readonly where: string;
  readonly code: string;
  readonly exit: number;
  readonly skip?: string;
}

interface Marker {
  readonly exit?: number;
  readonly skip?: string;
  /** Run first, in the same shell: the state a --help example presumes (a paused rollout). */
  readonly before?: string;
}

function parseMarker(text: string | undefined, where: string): Marker {
  if (text === undefined) return {};
  const match = /^(?:exit (\d+)|skip (\S.*))$/.exec(text.trim());
  if (!match) throw new Error(`${where}: unknown check marker "${text}" (want "exit N" or "skip REASON")`);
  return match[1] !== undefined ? {exit: Number(match[1])} : {skip: match[2]!};
}

/** The `sh` blocks of a markdown page, with the marker on the line before each. */
export function markdownBlocks(page: string, text: string): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(`{3,})(\S*)/.exec(lines[i]!);
    if (!fence) continue;
    const end = lines.findIndex((line, index) => index > i && line.startsWith(fence[1]!));
    if (end < 0) throw new Error(`${page}:${i + 1}: a code fence that is never closed`);
    if (fence[2] === 'sh') {
      const where = `${page}:${i + 1}`;
      const marker = parseMarker(/^<!-- check: (.*) -->$/.exec(lines[i - 1] ?? '')?.[1], where);
      blocks.push({where, code: lines.slice(i + 1, end).join('\n'), exit: marker.exit ?? 0, ...(marker.skip ? {skip: marker.skip} : {})});
    }
    i = end;
  }
  return blocks;
}

/**
 * The fleet's --help examples name the contexts a, b and c: three small simulated clusters in one kubeconfig
 * (docs/commands/sim.md), each running the DaemonSet agent (its container app on agent:1), rolled out.
 */
const FLEET_SIMS = `export KUBECONFIG=~/.kube/sim-fleet
for c in a b c; do
  kubectl ds-rollout sim start --detach --scenario empty --nodes 2 --speed 30 --context-name $c --kubeconfig $KUBECONFIG
  echo '{"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"}, "spec": {"selector": {"matchLabels": {"app": "agent"}},
    "template": {"metadata": {"labels": {"app": "agent"}}, "spec": {"containers": [{"name": "app", "image": "agent:1"}]}}}}' |
    kubectl --context $c create -f -
  kubectl ds-rollout status agent --context $c --timeout 1m
done`;
/** Those, and agent.yaml: the DaemonSet's next release as a manifest (its whole pod template), for `fleet rollout -f`. */
const FLEET_MANIFEST = `${FLEET_SIMS}
cat > agent.yaml <<'EOF'
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent, release: '3'}}
    spec: {containers: [{name: app, image: 'agent:3'}]}
EOF`;
/** Those, with a fleet rollout whose first wave waits for promote. */
const FLEET_AWAITING = `${FLEET_SIMS}
kubectl ds-rollout fleet rollout agent --contexts a,b,c --cluster-waves 1,100% --image app=agent:2 --canary 1 --approve --yes`;

/** --help examples that cannot run as written here, by their command. */
const HELP_MARKERS: Readonly<Record<string, Marker>> = {
  'kubectl ds-rollout dashboard fluentd -n kube-system': {skip: 'interactive: needs a terminal (test/e2e/dashboard-tmux.test.ts drives it)'},
  'kubectl ds-rollout dashboard fluentd -n kube-system --readonly': {skip: 'interactive: needs a terminal (test/e2e/dashboard-tmux.test.ts drives it)'},
  "kubectl ds-rollout dashboard fluentd -n kube-system --contexts 'prod-*'": {
    skip: 'interactive, on several clusters (test/e2e/fleet-dashboard-tmux.test.ts drives it)',
  },
  'kubectl ds-rollout dashboard fluentd -n kube-system -o json --watch': {skip: 'follows the stuck demo until --stuck-after (test/services/dashboard.test.ts)'},
  'kubectl ds-rollout sim start --scenario large --speed 10 --port 6443': {skip: 'runs in the foreground until Ctrl-C'},
  'kubectl get nodes,pods,ds,controllerrevisions -A -o json > cluster.json\nkubectl ds-rollout sim start --snapshot cluster.json --fail-image bad-tag': {
    skip: 'runs in the foreground until Ctrl-C (docs/commands/sim.md runs the same rehearsal detached)',
  },
  'kubectl ds-rollout sim kubelets --kubeconfig /tmp/rc/kubeconfig --nodes 8': {skip: 'needs a real control plane (docs/testing.md)'},
  'source <(kubectl ds-rollout completion zsh)': {skip: 'zsh, not bash (test/cli/completion.test.ts)'},
  'kubectl ds-rollout status fluentd -n kube-system --context prod': {skip: "names a context of the reader's kubeconfig"},
  'kubectl ds-rollout status ds/fluentd -n kube-system': {skip: 'follows the stuck demo until --stuck-after (test/cli/status.test.ts)'},
  'kubectl ds-rollout status fluentd --timeout 10m --stuck-after 1m': {skip: 'waits out a minute of --stuck-after on the stuck demo (test/cli/status.test.ts)'},
  // The demo's rollouts are under way: progressing is exit 4.
  'kubectl ds-rollout status -A': {exit: 4},
  'kubectl ds-rollout step fluentd -n kube-system --dry-run\nkubectl ds-rollout step fluentd -n kube-system --canary 2 --dry-run': {
    before: 'kubectl ds-rollout pause fluentd -n kube-system',
  },
  'kubectl ds-rollout abort fluentd -n kube-system --yes': {skip: 'needs a gated rollout under way (test/cli/gated-abort.test.ts)'},
  'kubectl ds-rollout abort fluentd -n kube-system --max-unavailable 3 --yes': {skip: 'needs a gated rollout under way (test/cli/gated-abort.test.ts)'},
  'kubectl ds-rollout promote fluentd -n kube-system --yes': {skip: 'needs a gated rollout waiting for approval (test/cli/gated.test.ts)'},
  'kubectl ds-rollout fleet rollout agent --contexts a,b,c --image app=agent:2 -y\nkubectl ds-rollout fleet rollout agent --contexts a,b,c -f agent.yaml -y': {
    before: FLEET_MANIFEST,
  },
  'kubectl ds-rollout fleet status agent --contexts a': {before: FLEET_AWAITING},
  'kubectl ds-rollout fleet promote agent --contexts a --yes': {before: FLEET_AWAITING},
  'kubectl ds-rollout fleet abort agent --contexts a --yes': {before: FLEET_AWAITING},
  'kubectl ds-rollout resume agent --force --max-unavailable 1': {skip: 'needs an OnDelete DaemonSet (test/cli/pause-resume.test.ts)'},
};

function helpBlocks(id: string): Block[] {
  const [plugin, ...words] = id.split(':');
  const typed = ['kubectl', `ds-${plugin}`, ...words, '--help'].join(' ');
  const examples = (COMMANDS[id]!.examples ?? []) as ReadonlyArray<{description: string; command: string}>;
  return examples.map(({command}) => {
    const marker = HELP_MARKERS[command] ?? {};
    const code = marker.before === undefined ? command : `${marker.before}\n${command}`;
    return {where: typed, code, exit: marker.exit ?? 0, ...(marker.skip ? {skip: marker.skip} : {})};
  });
}

async function markdownPages(dir: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, dir), {withFileTypes: true});
  const pages = await Promise.all(
    entries.map(async (entry) => {
      const path = join(dir, entry.name);
      return entry.isDirectory() ? markdownPages(path) : entry.name.endsWith('.md') ? [path] : [];
    }),
  );
  return pages.flat().sort();
}

const DOCUMENTS: ReadonlyArray<readonly [string, Block[]]> = [
  ...(await Promise.all(
    ['README.md', ...(await markdownPages('docs'))].map(async (page) => [page, markdownBlocks(page, await readFile(join(ROOT, page), 'utf8'))] as const),
  )),
  ...Object.keys(COMMANDS).map((id) => [`--help of ${id}`, helpBlocks(id)] as const),
].filter(([, blocks]) => blocks.length > 0);

// `npm ci` and `npm run build` were done by `npm test`; `npm run demo` is the built demo. Anything else is a mistake.
const NPM = `#!/bin/sh
case "$*" in
  "ci" | "run build") exit 0 ;;
  "run demo") exec node scripts/demo.mjs ;;
  *) echo "docs check: npm $* is not stood in" >&2; exit 127 ;;
esac
`;

// The system's PATH without what npm and vitest add (node_modules/.bin, some of which do not exist: kubectl plugin list fails on them).
const SYSTEM_PATH = (process.env['PATH'] ?? '').split(':').filter((dir) => dir !== '' && !dir.includes('node_modules') && existsSync(dir));

describe.each(DOCUMENTS)('%s', (_document, blocks) => {
  let cluster: TestCluster | undefined;
  let work: string;
  const runnable = blocks.some((block) => block.skip === undefined);

  beforeAll(async () => {
    if (!runnable) return;
    // A copy of the clone to run in: the repository's files linked, so what a block writes stays here.
    work = await mkdtemp(join(tmpdir(), 'ds-rollout-docs-'));
    const clone = join(work, 'clone');
    await mkdir(clone);
    for (const name of await readdir(ROOT)) if (name !== '.git') await symlink(join(ROOT, name), join(clone, name));
    await mkdir(join(work, 'shims'));
    await writeFile(join(work, 'shims', 'npm'), NPM);
    await chmod(join(work, 'shims', 'npm'), 0o755);
    // A home as a fish user's has it (fish creates its completions directory).
    await mkdir(join(work, 'home', '.config', 'fish', 'completions'), {recursive: true});
    await mkdir(join(work, 'tmp'));
    // Sped up, so that a rollout a block follows moves on; started once for the whole document.
    cluster = await startTestCluster({scenario: 'demo', speed: 5, namespace: 'kube-system'});
    // The reader's own cluster is their ~/.kube/config: here, the demo.
    await mkdir(join(work, 'home', '.kube'));
    await copyFile(cluster.kubeconfig, join(work, 'home', '.kube', 'config'));
    await writeFile(join(work, 'state.sh'), `cd ${clone}\n`);
  }, 60_000);

  afterAll(async () => {
    if (!runnable) return;
    await stopDetachedSims(join(work, 'tmp'));
    await cluster?.stop();
    await rm(work, {recursive: true, force: true});
  }, 60_000);

  for (const block of blocks) {
    const title = `${block.where}: ${block.code.split('\n')[0]}${block.exit === 0 ? '' : ` (exit ${block.exit})`}`;
    if (block.skip !== undefined) {
      test.skip(`${title} [${block.skip}]`, () => {});
      continue;
    }
    test(
      title,
      async () => {
        const state = join(work, 'state.sh');
        // The session so far (exports, directory), the block as pasted, then the session for the next block.
        // The block's status is its last command's, or the first to fail outside an && or || list (set -e).
        const script = `. ${state}\nset -eo pipefail\n${block.code}\nstatus=$?\nset +e\nexport -p > ${state}.next\necho "cd $PWD" >> ${state}.next\nexit $status\n`;
        const result = await new Promise<{code: number; stdout: string; stderr: string}>((resolve) => {
          execFile(
            'bash',
            ['-c', script],
            {
              // As after the README's install from source: the plugins on PATH.
              env: {
                PATH: [join(work, 'shims'), join(work, 'clone', 'bin'), ...SYSTEM_PATH].join(':'),
                HOME: join(work, 'home'),
                TMPDIR: join(work, 'tmp'),
                NO_COLOR: '1',
              },
              // A guard against a block that hangs, not a measure of speed.
              timeout: 180_000,
              maxBuffer: 64 * 1024 * 1024,
            },
            (error, stdout, stderr) => resolve({code: typeof error?.code === 'number' ? error.code : error ? -1 : 0, stdout, stderr}),
          );
        });
        expect(result.code, `${block.where} ended ${result.code}:\n${result.stderr.slice(-2000)}`).toBe(block.exit);
        if (block.exit === 0) await writeFile(state, await readFile(`${state}.next`, 'utf8'));
      },
      240_000,
    );
  }
});

test('the examples counted', () => {
  const all = DOCUMENTS.flatMap(([, blocks]) => blocks);
  // Printed for the record: how many blocks run and how many are skipped (each with its reason above).
  console.log(`docs check: ${all.filter((b) => !b.skip).length} blocks run, ${all.filter((b) => b.skip).length} skipped, in ${DOCUMENTS.length} documents`);
  expect(all.filter((b) => !b.skip).length).toBeGreaterThan(0);
});
