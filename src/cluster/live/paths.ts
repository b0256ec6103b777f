// REST paths of the four resources a DaemonSet rollout involves, and the RBAC description of each request.
import type {RequestDescription} from './errors.js';

const seg = encodeURIComponent;

// A namespace of undefined: across all namespaces (`-A`).
function scope(namespace: string | undefined): string {
  return namespace === undefined ? '' : `/namespaces/${seg(namespace)}`;
}

export function daemonSetsPath(namespace: string | undefined, name?: string): string {
  return `/apis/apps/v1${scope(namespace)}/daemonsets${name === undefined ? '' : `/${seg(name)}`}`;
}

export function podsPath(namespace: string | undefined, name?: string): string {
  return `/api/v1${scope(namespace)}/pods${name === undefined ? '' : `/${seg(name)}`}`;
}

export function nodesPath(): string {
  return '/api/v1/nodes';
}

export function revisionsPath(namespace: string | undefined, name?: string): string {
  return `/apis/apps/v1${scope(namespace)}/controllerrevisions${name === undefined ? '' : `/${seg(name)}`}`;
}

export function describe(verb: RequestDescription['verb'], resource: string, namespace?: string, name?: string): RequestDescription {
  return {verb, resource, ...(namespace === undefined ? {} : {namespace}), ...(name === undefined ? {} : {name})};
}
