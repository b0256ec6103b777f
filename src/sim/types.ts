// Object shapes the simulated cluster stores, beyond the core's DaemonSet/Pod/Node/ControllerRevision.
import type {ControllerRevision, DaemonSet, Node, ObjectMeta, Pod} from '../core/index.js';
import type {ResourceName} from './resources.js';

/** Any stored object: metadata plus whatever the resource carries. Stored objects are deeply frozen. */
export interface KubeObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: ObjectMeta;
  readonly [field: string]: unknown;
}

export interface Namespace {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: ObjectMeta;
  readonly spec?: {readonly finalizers?: readonly string[]};
  readonly status?: {readonly phase?: string};
}

export interface ObjectReference {
  readonly kind?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly uid?: string;
  readonly apiVersion?: string;
  readonly resourceVersion?: string;
  readonly fieldPath?: string;
}

/** A core/v1 Event. */
export interface KubeEvent {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: ObjectMeta;
  readonly involvedObject: ObjectReference;
  readonly reason?: string;
  readonly message?: string;
  readonly type?: string;
  readonly count?: number;
  readonly firstTimestamp?: string;
  readonly lastTimestamp?: string;
  readonly eventTime?: string;
  readonly source?: {readonly component?: string; readonly host?: string};
  readonly reportingComponent?: string;
  readonly reportingInstance?: string;
}

/** The object type each resource stores. */
export interface ResourceTypes {
  readonly namespaces: Namespace;
  readonly nodes: Node;
  readonly pods: Pod;
  readonly events: KubeEvent;
  readonly daemonsets: DaemonSet;
  readonly controllerrevisions: ControllerRevision;
  readonly serviceaccounts: KubeObject;
  readonly configmaps: KubeObject;
  readonly jobs: KubeObject;
  readonly roles: KubeObject;
  readonly rolebindings: KubeObject;
  readonly clusterroles: KubeObject;
  readonly clusterrolebindings: KubeObject;
}

export type ObjectOf<R extends ResourceName> = ResourceTypes[R];
