// Which objects belong to the DaemonSet (controller references, adoption, release) and how its pods
// group by node.
import {isPodTerminal, isPodTerminating} from './availability.js';
import {getTargetNodeName} from './eligibility.js';
import {labelSelectorMatches} from './selectors.js';
import type {DaemonSet, ObjectMeta, OwnerReference, Pod} from './types.js';

/** The owner reference with `controller: true`, if any; plain owner references do not count. */
// upstream: staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/controller_ref.go GetControllerOf
export function getControllerOf(meta: ObjectMeta): OwnerReference | undefined {
  return meta.ownerReferences?.find((ref) => ref.controller === true);
}

export interface ClaimResult<T> {
  /** Objects the DS controls after this claim, adopted ones included, in input order. */
  readonly owned: T[];
  /** Orphans the controller would adopt (patch in a controller reference). */
  readonly adopt: T[];
  /** Objects controlled by the DS whose labels no longer match: the controller would drop its reference. */
  readonly release: T[];
}

/**
 * Classifies objects by docs/design/reconcile.md §3: controlled by another UID → ignored; controlled by the DS →
 * owned if the selector matches, else released (unless the DS is being deleted); orphan → adopted when the
 * selector matches, neither it nor the DS is being deleted and it is in the DS's namespace.
 */
// upstream: pkg/controller/controller_ref_manager.go BaseControllerRefManager.ClaimObject
export function claimObjects<T extends {readonly metadata: ObjectMeta}>(ds: DaemonSet, objects: readonly T[]): ClaimResult<T> {
  const owned: T[] = [];
  const adopt: T[] = [];
  const release: T[] = [];
  const uid = ds.metadata.uid;
  const selector = ds.spec.selector;
  const dsDeleting = !!ds.metadata.deletionTimestamp;
  const namespace = ds.metadata.namespace;

  // Indexed: a CLI run makes this pass cold, and a cold for-of allocates at every step.
  for (let i = 0; i < objects.length; i++) {
    const obj = objects[i]!;
    const matches = labelSelectorMatches(selector, obj.metadata.labels);
    const ref = getControllerOf(obj.metadata);
    if (ref !== undefined) {
      if (ref.uid !== uid) continue;
      if (matches) owned.push(obj);
      else if (!dsDeleting) release.push(obj);
      continue;
    }
    if (dsDeleting || !matches || obj.metadata.deletionTimestamp) continue;
    // Objects of other namespaces are never adopted; one without a namespace is taken to be the DS's
    // (callers pass the namespace's list).
    if (namespace && obj.metadata.namespace !== undefined && obj.metadata.namespace !== namespace) continue;
    adopt.push(obj);
    owned.push(obj);
  }
  return {owned, adopt, release};
}

/**
 * Daemon pods grouped by their target node (spec.nodeName, else the node-affinity pin). Pods without a
 * target are skipped; pods both terminal and being deleted are dropped (1.28+) unless keepDeletedTerminal
 * (history cleanup keeps them). Input order is preserved within a node. Map keys follow first appearance;
 * sort them by node name before relying on an order.
 */
// upstream: pkg/controller/daemon/daemon_controller.go getNodesToDaemonPods
export function getNodesToDaemonPods(daemonPods: readonly Pod[], options: {keepDeletedTerminal?: boolean} = {}): Map<string, Pod[]> {
  const byNode = new Map<string, Pod[]>();
  for (let i = 0; i < daemonPods.length; i++) {
    const pod = daemonPods[i]!;
    if (!options.keepDeletedTerminal && isPodTerminal(pod) && isPodTerminating(pod)) continue;
    const node = getTargetNodeName(pod);
    if (node === undefined) continue;
    const list = byNode.get(node);
    if (list === undefined) byNode.set(node, [pod]);
    else list.push(pod);
  }
  return byNode;
}
