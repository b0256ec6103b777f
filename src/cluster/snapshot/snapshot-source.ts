// Offline ClusterSource over a snapshot file: nothing is contacted.
import {type ClusterState, type DaemonSet, dumpKubeVersion, type ObjectMeta} from '../../core/index.js';
import {NotFoundError, UsageError} from '../../platform/errors.js';
import {MAX_SNAPSHOT_BYTES, readBoundedFile, readBoundedStream} from '../bounded-input.js';
import type {ClusterObjects, ClusterObjectsSource, ClusterSource, DaemonSetRef} from '../cluster-source.js';
import {parseSnapshot, type SnapshotObjects} from './parse-snapshot.js';

/** The name `--snapshot -` gets in messages. */
export const STDIN_NAME = '<stdin>';

// Objects written by hand may leave out the namespace; the API server would have put them in "default".
function namespaceOf(metadata: ObjectMeta): string {
  return metadata.namespace ?? 'default';
}

export class SnapshotClusterSource implements ClusterSource, ClusterObjectsSource {
  constructor(
    private readonly objects: SnapshotObjects,
    private readonly sourceName: string,
  ) {}

  /** Reads and parses `path` (`-` reads stdin until it closes). */
  static async fromFile(path: string, stdin: NodeJS.ReadStream = process.stdin): Promise<SnapshotClusterSource> {
    const {objects, sourceName} = await readSnapshot(path, stdin);
    return new SnapshotClusterSource(objects, sourceName);
  }

  async readState(ref: DaemonSetRef): Promise<ClusterState> {
    const daemonSet = this.objects.daemonSets.find((ds) => ds.metadata.name === ref.name && namespaceOf(ds.metadata) === ref.namespace);
    if (!daemonSet) throw new NotFoundError(this.notFoundMessage(ref));
    return {daemonSet: withNamespace(daemonSet, ref.namespace), ...(await this.readSurroundings(ref.namespace))};
  }

  async readSurroundings(namespace: string): Promise<Omit<ClusterState, 'daemonSet'>> {
    return {
      nodes: this.objects.nodes,
      pods: this.objects.pods.filter((pod) => namespaceOf(pod.metadata) === namespace),
      revisions: this.objects.revisions.filter((revision) => namespaceOf(revision.metadata) === namespace),
    };
  }

  /** The version the dump stands for (its newest kubelet's); none when no node says (the newest modelled is planned). */
  async readServerVersion(): Promise<string> {
    const version = dumpKubeVersion(this.objects.nodes);
    if (version === undefined) throw new NotFoundError(`snapshot ${this.sourceName} names no Kubernetes version (no node has status.nodeInfo)`);
    return version;
  }

  async readObjects(namespace: string | undefined): Promise<ClusterObjects> {
    const inScope = (metadata: ObjectMeta) => namespace === undefined || namespaceOf(metadata) === namespace;
    return {
      daemonSets: this.objects.daemonSets.filter((ds) => inScope(ds.metadata)).map((ds) => withNamespace(ds, namespaceOf(ds.metadata))),
      nodes: this.objects.nodes,
      pods: this.objects.pods.filter((pod) => inScope(pod.metadata)),
      revisions: this.objects.revisions.filter((revision) => inScope(revision.metadata)),
    };
  }

  /** Every DaemonSet of the snapshot (in `namespace` when given), sorted. */
  daemonSetRefs(namespace?: string): DaemonSetRef[] {
    return this.objects.daemonSets
      .map((ds) => ({namespace: namespaceOf(ds.metadata), name: ds.metadata.name}))
      .filter((ref) => namespace === undefined || ref.namespace === namespace)
      .sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
  }

  /** What the snapshot was read from, for messages (`<stdin>` for -). */
  get name(): string {
    return this.sourceName;
  }

  private notFoundMessage(ref: DaemonSetRef): string {
    const names = this.objects.daemonSets.map((ds) => ({namespace: namespaceOf(ds.metadata), name: ds.metadata.name}));
    // Same-namespace DaemonSets first: the likeliest typo is in the name, not the namespace.
    names.sort(
      (a, b) =>
        Number(b.namespace === ref.namespace) - Number(a.namespace === ref.namespace) || a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name),
    );
    const shown = names.slice(0, 10).map((n) => `${n.namespace}/${n.name}`);
    if (names.length > shown.length) shown.push(`and ${names.length - shown.length} more`);
    const has = shown.length > 0 ? `it has: ${shown.join(', ')}` : 'it has no DaemonSets';
    return `daemonset "${ref.name}" not found in namespace "${ref.namespace}" of snapshot ${this.sourceName} (${has})`;
  }
}

/** Reads and parses the snapshot at `path` (`-` reads stdin until it closes); `sourceName` is what messages call it. */
export async function readSnapshot(path: string, stdin: NodeJS.ReadStream = process.stdin): Promise<{objects: SnapshotObjects; sourceName: string}> {
  if (path === '-') {
    // Waiting on a terminal would look like a hang.
    if (stdin.isTTY) throw new UsageError('--snapshot - reads the snapshot from stdin, but stdin is a terminal');
    return {objects: await parseSnapshot(await readStream(stdin), STDIN_NAME), sourceName: STDIN_NAME};
  }
  return {objects: await parseSnapshot(await readSnapshotFile(path), path), sourceName: path};
}

function withNamespace(daemonSet: DaemonSet, namespace: string): DaemonSet {
  if (daemonSet.metadata.namespace === namespace) return daemonSet;
  return {...daemonSet, metadata: {...daemonSet.metadata, namespace}};
}

async function readSnapshotFile(path: string): Promise<string> {
  return readBoundedFile(path, {what: `snapshot file "${path}"`, maxBytes: MAX_SNAPSHOT_BYTES});
}

async function readStream(stream: NodeJS.ReadableStream): Promise<string> {
  return readBoundedStream(stream, {what: `snapshot ${STDIN_NAME}`, maxBytes: MAX_SNAPSHOT_BYTES}, {waitingFor: 'standard input (--snapshot -)'});
}
