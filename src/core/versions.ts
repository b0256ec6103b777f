// Which upstream DaemonSet controller the core models. Behaviour changed between minors (docs/design/reconcile.md
// §14, and the pre-1.21 rolling update); the minor is a parameter of each decision, never a global.

import type {Node} from './types.js';

/** The oldest and newest Kubernetes 1.x minors whose DaemonSet controller the core models. */
export const OLDEST_MODELLED_MINOR = 20;
export const NEWEST_MODELLED_MINOR = 36;

/** A Kubernetes 1.x minor version, e.g. 20 for 1.20. */
export type ControllerMinor = number;

/** The minor the core models for a server (or `--kube-version`) of `minor`: the nearest modelled one. */
export function modelledMinor(minor: ControllerMinor): ControllerMinor {
  return Math.min(NEWEST_MODELLED_MINOR, Math.max(OLDEST_MODELLED_MINOR, minor));
}

export function formatMinor(minor: ControllerMinor): string {
  return `1.${minor}`;
}

/**
 * `1.20`, `v1.20.2`, `1.20+` (GKE/EKS style) and the like: the 1.x minor, or undefined when it is not a
 * Kubernetes 1.x version.
 */
export function parseMinor(text: string): ControllerMinor | undefined {
  const match = /^v?1\.([0-9]+)(?:\+|\.[0-9]+.*|-.*)?$/.exec(text.trim());
  return match ? Number.parseInt(match[1]!, 10) : undefined;
}

/**
 * The Kubernetes version a dump of a cluster stands for: its newest kubelet's (kubelets are never newer than their
 * API server, and a dump holds nothing closer to it). Undefined when no node says. ds-plan --snapshot plans with
 * it, and a rehearsal of the dump (sim start --snapshot) serves it as its /version: one version for both.
 */
export function dumpKubeVersion(nodes: readonly Node[]): string | undefined {
  let newest: {text: string; minor: number} | undefined;
  for (const node of nodes) {
    const info = node.status?.['nodeInfo'];
    const version = typeof info === 'object' && info !== null ? (info as Record<string, unknown>)['kubeletVersion'] : undefined;
    const text = typeof version === 'string' ? version : undefined;
    const minor = text === undefined ? undefined : parseMinor(text);
    if (minor !== undefined && (newest === undefined || minor > newest.minor)) newest = {text: text!, minor};
  }
  return newest?.text;
}

/** Before 1.21 the rolling update had no maxSurge, and counted terminating old pods that are still available. */
export function hasSurge(minor: ControllerMinor): boolean {
  return minor >= 21;
}

/** From 1.31 on (kubernetes#123233) an unavailable old pod counts against maxUnavailable. */
export function countsUnavailableOldPods(minor: ControllerMinor): boolean {
  return minor >= 31;
}
