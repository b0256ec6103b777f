// What the controller creates: the pod template with daemon labels and tolerations, the pod it POSTs for
// a node, and whether an existing pod already belongs to the update revision.
import {addOrUpdateDaemonPodTolerations, replaceDaemonSetPodNodeNameNodeAffinity} from './eligibility.js';
import type {DaemonSet, Labels, ObjectMeta, Pod, PodTemplateSpec} from './types.js';

export const CONTROLLER_REVISION_HASH_LABEL = 'controller-revision-hash';
export const POD_TEMPLATE_GENERATION_LABEL = 'pod-template-generation';
export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

const INT64 = /^[+-]?[0-9]+$/;

/**
 * The DS's `deprecated.daemonset.template.generation` annotation as a number; undefined when absent or
 * not a base-10 integer (upstream fails the sync in that case; callers may report it).
 */
// upstream: pkg/controller/daemon/util/daemonset_util.go GetTemplateGeneration
export function templateGeneration(ds: DaemonSet): number | undefined {
  const text = ds.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  if (text === undefined || !INT64.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/**
 * The template plus the daemon labels (`pod-template-generation` when the generation is known,
 * `controller-revision-hash` when the hash is non-empty) and the default daemon tolerations. New object.
 */
// upstream: pkg/controller/daemon/util/daemonset_util.go CreatePodTemplate
export function createPodTemplate(template: PodTemplateSpec, generation: number | undefined, hash: string): PodTemplateSpec {
  const labels: Record<string, string> = {...(template.metadata?.labels ?? {})};
  if (generation !== undefined) labels[POD_TEMPLATE_GENERATION_LABEL] = String(generation);
  if (hash.length > 0) labels[CONTROLLER_REVISION_HASH_LABEL] = hash;
  return {
    ...template,
    metadata: {...(template.metadata ?? {}), labels},
    spec: {...template.spec, tolerations: addOrUpdateDaemonPodTolerations(template.spec.tolerations, template.spec.hostNetwork === true)},
  };
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

// upstream: pkg/controller/controller_utils.go getPodsPrefix
function podNamePrefix(dsName: string): string {
  const prefix = `${dsName}-`;
  // Validated as a generateName prefix: the trailing dash stands in for the random suffix.
  const probe = `${dsName}a`;
  return probe.length <= 253 && DNS1123_SUBDOMAIN.test(probe) ? prefix : dsName;
}

/**
 * The pod the controller POSTs for `nodeName`: generateName `<ds>-`, the DS's namespace, template labels
 * (+ hash and generation), annotations and finalizers, the controller ownerReference, and the template
 * spec with default tolerations and its required node affinity pinned to the node. The controller does
 * not set spec.nodeName (the scheduler binds it); a nodeName already in the template is kept. No status.
 */
// upstream: pkg/controller/daemon/daemon_controller.go syncNodes + pkg/controller/controller_utils.go GetPodFromTemplate
export function newDaemonPod(ds: DaemonSet, nodeName: string, hash: string): Pod {
  const template = createPodTemplate(ds.spec.template, templateGeneration(ds), hash);
  const source = template.metadata ?? {};
  const metadata: {-readonly [K in keyof ObjectMeta]: ObjectMeta[K]} = {
    name: '',
    generateName: podNamePrefix(ds.metadata.name),
    labels: {...(source.labels ?? {})},
    ownerReferences: [
      {apiVersion: 'apps/v1', kind: 'DaemonSet', name: ds.metadata.name, uid: ds.metadata.uid ?? '', controller: true, blockOwnerDeletion: true},
    ],
  };
  if (ds.metadata.namespace !== undefined) metadata.namespace = ds.metadata.namespace;
  if (source.annotations !== undefined) metadata.annotations = {...(source.annotations as Labels)};
  const finalizers = source['finalizers'];
  if (Array.isArray(finalizers) && finalizers.length > 0) metadata.finalizers = finalizers.map(String);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata,
    spec: {...template.spec, affinity: replaceDaemonSetPodNodeNameNodeAffinity(template.spec.affinity, nodeName)},
  };
}

/**
 * Updated = carries the update revision's hash, or (fallback) the DS's template generation in
 * `pod-template-generation` (docs/design/reconcile.md §7.2).
 */
// upstream: pkg/controller/daemon/util/daemonset_util.go IsPodUpdated
export function isPodUpdated(pod: Pod, hash: string, generation: number | undefined): boolean {
  const labels = pod.metadata.labels;
  if (hash.length > 0 && labels?.[CONTROLLER_REVISION_HASH_LABEL] === hash) return true;
  return generation !== undefined && labels?.[POD_TEMPLATE_GENERATION_LABEL] === String(generation);
}
