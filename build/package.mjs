// `npm run package`: standalone linux-amd64 executables and the krew archive and manifests.
// The executables are this machine's own node binary with dist-sea/main.cjs (node build/bundle.mjs --sea)
// injected as a single executable application (Node 20: --experimental-sea-config, then postject). Nothing
// is downloaded, so the archive is only built for the platform this runs on; darwin and windows entries are
// added to the manifests by a release pipeline that builds on those systems (see `platform` below).
import {execFileSync} from 'node:child_process';
import {createHash} from 'node:crypto';
import {chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {inject} from 'postject';
import {archiveUri} from './release-url.mjs';

const pjson = JSON.parse(readFileSync('package.json', 'utf8'));
const version = pjson.version;
const GOARCH = {x64: 'amd64', arm64: 'arm64'};
const os = process.platform;
const arch = GOARCH[process.arch] ?? process.arch;
if (os !== 'linux') throw new Error(`npm run package builds on linux only (this is ${os}): the archive holds this machine's node binary`);

const PLUGINS = [
  {
    name: 'ds-plan',
    binary: 'kubectl-ds_plan',
    shortDescription: 'Preview a DaemonSet rollout, wave by wave, with the controller’s rules',
    description: `Shows what the DaemonSet controller does next and how the whole rollout unfolds:
the waves of nodes, the budget (maxUnavailable, maxSurge) each one uses, and what
blocks it. Reads a live cluster or a \`kubectl get -o yaml\` snapshot; -f plans a new
manifest before it is applied. Text, JSON or YAML.`,
  },
  {
    name: 'ds-rollout',
    binary: 'kubectl-ds_rollout',
    shortDescription: 'Status, history, undo, pause, step, canary and resume for DaemonSet rollouts',
    description: `kubectl rollout for DaemonSets, and what it lacks: status node by node, history
with template diffs, undo, pause (which kubectl refuses for DaemonSets), step (one
wave of old pods at a time), gated rollouts (a canary, bakes and health gates, then
promote or abort) and resume, and a live terminal dashboard.`,
  },
];

const archiveName = `ds-rollout_${version}_${os}_${arch}.tar.gz`;
// Checked first: a release without a download URL is refused before three minutes of work.
const uri = archiveUri(pjson, archiveName);
const work = 'dist-sea';
const stage = join(work, 'stage');
rmSync(stage, {recursive: true, force: true});
mkdirSync(stage, {recursive: true});

// 1. The blob: the CommonJS bundle, with V8's code cache so start-up skips compiling it.
const seaConfig = join(work, 'sea-config.json');
const blob = join(work, 'sea-prep.blob');
writeFileSync(seaConfig, JSON.stringify({main: join(work, 'main.cjs'), output: blob, disableExperimentalSEAWarning: true, useCodeCache: true}));
// Node says "Wrote single executable preparation blob to ..." on stderr: a success says nothing, a failure says why.
try {
  execFileSync(process.execPath, ['--experimental-sea-config', seaConfig], {stdio: ['ignore', 'pipe', 'pipe']});
} catch (error) {
  process.stderr.write(error.stderr ?? '');
  throw new Error(`node --experimental-sea-config ${seaConfig} failed`, {cause: error});
}
const blobBytes = readFileSync(blob);

/**
 * postject's ELF parser (LIEF, compiled to WebAssembly) prints one warning per note section of node's binary whose
 * name it cannot look up ("Can't find string offset for section name '.note.100'", nine for Node 20; nodejs/postject#83).
 * They describe node's own notes, which the injection leaves as they are, so exactly those lines are dropped; any other
 * line still reaches stderr. The module binds console.warn when inject() loads it, so the filter is in place by then.
 */
async function quietly(work) {
  const warn = console.warn;
  console.warn = (...args) => {
    if (!/^warning: Can't find string offset for section name '\.note[^']*'$/.test(args.join(' '))) warn(...args);
  };
  try {
    return await work();
  } finally {
    console.warn = warn;
  }
}

// 2. One executable per plugin (krew links one binary per plugin name); each finds its plugin from its name, so
// the executables are the same bytes: injected once, then copied.
const executable = join(work, 'executable');
copyFileSync(process.execPath, executable);
await quietly(() => inject(executable, 'NODE_SEA_BLOB', blobBytes, {sentinelFuse: 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'}));
for (const plugin of PLUGINS) {
  const target = join(stage, plugin.binary);
  copyFileSync(executable, target);
  chmodSync(target, 0o755);
  // kubectl 1.26+ runs kubectl_complete-<plugin> for `kubectl <plugin> <TAB>`.
  const completer = join(stage, plugin.binary.replace('kubectl-', 'kubectl_complete-'));
  writeFileSync(completer, `#!/bin/sh\n# kubectl 1.26+ runs this for \`kubectl ${plugin.name} <TAB>\`.\nexec ${plugin.binary} __complete "$@"\n`);
  chmodSync(completer, 0o755);
}
copyFileSync('LICENSE', join(stage, 'LICENSE'));

// 3. The archive, byte for byte the same from the same inputs (sorted, no owners, no times).
mkdirSync('dist-release', {recursive: true});
const archive = join('dist-release', archiveName);
const files = ['LICENSE', ...PLUGINS.flatMap((p) => [p.binary, p.binary.replace('kubectl-', 'kubectl_complete-')])].sort();
const tar = execFileSync('tar', ['--create', '--sort=name', '--mtime=@0', '--owner=0', '--group=0', '--numeric-owner', '-C', stage, ...files], {
  maxBuffer: 1 << 30,
});
// --fast (the krew archive test): gzip -1, about 3 times faster and 10% larger; the same files, the same checks.
const level = process.argv.includes('--fast') ? '-1' : '-6';
writeFileSync(archive, execFileSync('gzip', ['-n', level], {input: tar, maxBuffer: 1 << 30}));
const sha256 = createHash('sha256').update(readFileSync(archive)).digest('hex');
// sha256sum's format, so `sha256sum -c SHA256SUMS` checks a download.
writeFileSync(join('dist-release', 'SHA256SUMS'), `${sha256}  ${archiveName}\n`);

// 4. The krew manifests: one per plugin name, both pointing at the same archive.
const indent = (text, spaces) => text.replace(/^/gm, ' '.repeat(spaces));
function platform(plugin) {
  const completer = plugin.binary.replace('kubectl-', 'kubectl_complete-');
  return `  - selector:
      matchLabels:
        os: ${os}
        arch: ${arch}
    uri: ${uri}
    sha256: ${sha256}
    files:
      - from: ${plugin.binary}
        to: .
      - from: ${completer}
        to: .
      - from: LICENSE
        to: .
    bin: ${plugin.binary}
`;
}
mkdirSync(join('dist-release', 'plugins'), {recursive: true});
for (const plugin of PLUGINS) {
  const manifest = `apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: ${plugin.name}
spec:
  version: v${version}
  shortDescription: ${plugin.shortDescription}
  description: |
${indent(plugin.description, 4)}
  caveats: |
    A standalone executable (Node.js ${process.version} inside; needs glibc and libstdc++).
    Shell completion through kubectl (1.26+) needs ${plugin.binary.replace('kubectl-', 'kubectl_complete-')} on
    your PATH; krew does not link it yet (kubernetes-sigs/krew#812):
      ln -s "\${KREW_ROOT:-$HOME/.krew}/store/${plugin.name}/v${version}/${plugin.binary.replace('kubectl-', 'kubectl_complete-')}" "\${KREW_ROOT:-$HOME/.krew}/bin/"
    Live commands use your kubeconfig (--kubeconfig, $KUBECONFIG, ~/.kube/config) and need
    RBAC to read nodes, pods, daemonsets and controllerrevisions; see --help of each command.
  platforms:
${platform(plugin)}`;
  writeFileSync(join('dist-release', 'plugins', `${plugin.name}.yaml`), manifest);
}
process.stdout.write(
  `${archive}\nsha256 ${sha256} (dist-release/SHA256SUMS)\nuri ${uri}\n${PLUGINS.map((p) => `dist-release/plugins/${p.name}.yaml`).join('\n')}\n`,
);
