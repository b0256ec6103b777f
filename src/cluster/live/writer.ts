// Writes to a live cluster with optimistic concurrency: every DaemonSet patch carries the resourceVersion it
// was computed from, and a 409 means "read again, decide again", never "send the same thing again".
import {type ControllerRevision, type DaemonSet, DS_ROLLOUT_FIELD_MANAGER} from '../../core/index.js';
import {ConflictError} from '../../platform/errors.js';
import type {DaemonSetRef} from '../cluster-source.js';
import type {ClusterWriter, DaemonSetPatch, PatchResult, PodPreconditions, WriteOptions} from '../cluster-writer.js';
import type {KubeClient} from './client.js';
import {describeRequest, isConflict} from './errors.js';
import {daemonSetsPath, describe, podsPath, revisionsPath} from './paths.js';
import {projectDaemonSet, projectRevision} from './project.js';

const CONTENT_TYPES: Readonly<Record<DaemonSetPatch['type'], string>> = {
  strategic: 'application/strategic-merge-patch+json',
  merge: 'application/merge-patch+json',
};

export interface LiveWriterOptions {
  /** Reads (and patches) before a run of conflicts is given up (default 5). */
  readonly attempts?: number;
  /** Called between a conflict and the fresh read; tests use it to interleave a concurrent change. */
  readonly onConflict?: (attempt: number) => void | Promise<void>;
}

/** Own writes remembered per DaemonSet (a watch is rarely more than a write or two behind). */
const REMEMBERED_WRITES = 8;

export class LiveClusterWriter implements ClusterWriter {
  private readonly attempts: number;
  /**
   * Per DaemonSet: the object each of this writer's patches stored, by the resourceVersion it replaced. A base
   * from a watch that has not shown this writer's own last write yet is that write's answer instead: the same
   * object the precondition would find, without the 409 and the GET. (resourceVersions are only compared for
   * equality, as the API asks.)
   */
  private readonly written = new Map<string, Map<string, DaemonSet>>();

  constructor(
    readonly client: KubeClient,
    private readonly options: LiveWriterOptions = {},
  ) {
    this.attempts = Math.max(1, options.attempts ?? 5);
  }

  async patchDaemonSet(ref: DaemonSetRef, build: (current: DaemonSet) => DaemonSetPatch | undefined, options: WriteOptions = {}): Promise<PatchResult> {
    const path = daemonSetsPath(ref.namespace, ref.name);
    for (let attempt = 1; ; attempt++) {
      const before =
        attempt === 1 && options.base
          ? this.newestOwn(ref, options.base)
          : projectDaemonSet(await this.client.get(path, describe('get', 'daemonsets', ref.namespace, ref.name)));
      const patch = build(before);
      if (patch === undefined) return {applied: false, before, after: before, attempts: attempt};
      const request = describe('patch', 'daemonsets', ref.namespace, ref.name);
      try {
        const after = await this.client.write('PATCH', path, request, {
          body: withResourceVersion(patch.body, before.metadata.resourceVersion),
          contentType: CONTENT_TYPES[patch.type],
          query: {fieldManager: DS_ROLLOUT_FIELD_MANAGER, ...(options.dryRun ? {dryRun: 'All'} : {})},
        });
        const stored = projectDaemonSet(after);
        if (!options.dryRun) this.remember(ref, before, stored);
        return {applied: true, before, after: stored, attempts: attempt};
      } catch (error) {
        if (!isConflict(error)) throw error;
        if (attempt >= this.attempts) {
          throw new ConflictError(`cannot ${describeRequest(request)}: it changed ${attempt} times while being updated; nothing was changed, try again`, {
            cause: error,
          });
        }
        await this.options.onConflict?.(attempt);
      }
    }
  }

  /** `base`, or the answer to this writer's own latest write that followed it. */
  private newestOwn(ref: DaemonSetRef, base: DaemonSet): DaemonSet {
    const successors = this.written.get(`${ref.namespace}/${ref.name}`);
    let newest = base;
    for (let hops = 0; successors && hops < REMEMBERED_WRITES; hops++) {
      const next = successors.get(newest.metadata.resourceVersion ?? '');
      if (!next) break;
      newest = next;
    }
    return newest;
  }

  private remember(ref: DaemonSetRef, before: DaemonSet, after: DaemonSet): void {
    const key = `${ref.namespace}/${ref.name}`;
    const successors = this.written.get(key) ?? new Map<string, DaemonSet>();
    successors.set(before.metadata.resourceVersion ?? '', after);
    if (successors.size > REMEMBERED_WRITES) successors.delete(successors.keys().next().value!);
    this.written.set(key, successors);
  }

  /**
   * Sends a DaemonSet manifest with dryRun=All: as an update of `current` (no resourceVersion precondition), or as
   * a create when there is none. Nothing is stored; the answer is the object as the server would store it (defaulted,
   * unknown fields dropped). A refusal (422) is the user's input error.
   */
  async dryRunDaemonSet(ref: DaemonSetRef, manifest: DaemonSet, current: DaemonSet | undefined): Promise<DaemonSet> {
    // No resourceVersion: a dry run checks the manifest, not a race with the controller's status writes (a
    // DaemonSet allows an unconditional update); the file's own, from `kubectl get -o yaml`, is stale by design.
    const {resourceVersion: _stale, ...kept} = manifest.metadata;
    const metadata = {...kept, name: ref.name, namespace: ref.namespace};
    const body = {...manifest, apiVersion: 'apps/v1', kind: 'DaemonSet', metadata};
    const query = {dryRun: 'All', fieldManager: 'ds-rollout'};
    const stored = current
      ? await this.client.write('PUT', daemonSetsPath(ref.namespace, ref.name), describe('update', 'daemonsets', ref.namespace, ref.name), {body, query})
      : await this.client.write('POST', daemonSetsPath(ref.namespace), describe('create', 'daemonsets', ref.namespace, ref.name), {body, query});
    return projectDaemonSet(stored);
  }

  async readRevision(namespace: string, name: string): Promise<ControllerRevision> {
    return projectRevision(await this.client.get(revisionsPath(namespace, name), describe('get', 'controllerrevisions', namespace, name)));
  }

  async annotateRevision(namespace: string, name: string, uid: string, annotations: Readonly<Record<string, string>>): Promise<ControllerRevision> {
    const raw = await this.client.write('PATCH', revisionsPath(namespace, name), describe('patch', 'controllerrevisions', namespace, name), {
      body: {metadata: {uid, annotations}},
      contentType: 'application/merge-patch+json',
      query: {fieldManager: 'ds-rollout'},
    });
    return projectRevision(raw);
  }

  async deletePod(namespace: string, name: string, preconditions: PodPreconditions, options: WriteOptions = {}): Promise<void> {
    await this.client.write('DELETE', podsPath(namespace, name), describe('delete', 'pods', namespace, name), {
      body: {
        apiVersion: 'v1',
        kind: 'DeleteOptions',
        preconditions: {uid: preconditions.uid, ...(preconditions.resourceVersion === undefined ? {} : {resourceVersion: preconditions.resourceVersion})},
        ...(options.dryRun ? {dryRun: ['All']} : {}),
      },
      query: options.dryRun ? {dryRun: 'All'} : {},
    });
  }
}

function withResourceVersion(body: Readonly<Record<string, unknown>>, resourceVersion: string | undefined): Record<string, unknown> {
  if (resourceVersion === undefined) return {...body};
  const metadata = typeof body['metadata'] === 'object' && body['metadata'] !== null ? (body['metadata'] as Record<string, unknown>) : {};
  return {...body, metadata: {...metadata, resourceVersion}};
}
