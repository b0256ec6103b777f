// A gated rollout run by Kubernetes instead of a terminal (`step --until-complete ... --detach`): the manifests of
// the Job that runs the same command in the DaemonSet's namespace, with a ServiceAccount allowed exactly what the
// rollout does; and the Kubernetes Events that tell the rollout's story on the DaemonSet (`kubectl describe ds`).
// Pure: names, argument lists and objects as data; the service sends them.
import {FINISHED_GATED_PHASES, type GatedEvent, gatedRecordOf} from './gates.js';
import {computeTemplateHash} from './revisions.js';
import type {Revision} from './revision-number.js';
import type {DaemonSet} from './types.js';

/** The image the release packaging builds from the repository's Dockerfile; `--image` replaces it. */
export const RELEASE_IMAGE_REPOSITORY = 'ghcr.io/ds-rollout/ds-rollout';

export function releaseImage(version: string): string {
  return `${RELEASE_IMAGE_REPOSITORY}:v${version.replace(/^v/, '')}`;
}

/** On the DaemonSet: the Job that drives its gated rollout (so every machine can name it). */
export const DETACHED_JOB_ANNOTATION = 'ds-rollout.io/detached-job';
/** On the Job, its pods, the ServiceAccount and the roles. */
export const DETACHED_DAEMONSET_LABEL = 'ds-rollout.io/daemonset';
export const DETACHED_TEMPLATE_LABEL = 'ds-rollout.io/template';
const MANAGED_BY = {'app.kubernetes.io/managed-by': 'ds-rollout', 'app.kubernetes.io/name': 'ds-rollout'};

/** One ServiceAccount (and Role, RoleBinding) per namespace serves every detached rollout there. */
export const DETACH_SERVICE_ACCOUNT = 'ds-rollout';
/** Nodes are cluster-scoped: reading them needs a ClusterRole, named per namespace so bindings stay separate. */
export const detachClusterRoleName = (namespace: string) => `ds-rollout:${namespace}`;
/** Where the strategy file (--strategy) is mounted in the Job's pod, from a ConfigMap named as the Job. */
export const DETACHED_STRATEGY_DIR = '/etc/ds-rollout';
/**
 * Jobs retry a failed driver this many times (10 s, 20 s, 40 s ... apart): enough for a restart that finds the step
 * lease of a killed driver (it lapses in 30 s), and a failed gate ends the Job as Failed within about 10 minutes.
 */
export const DETACHED_BACKOFF_LIMIT = 6;
/** Set in the Job's pod: the template hash the Job was made for. A restart after that rollout ended does nothing. */
export const DETACHED_TEMPLATE_ENV = 'DS_ROLLOUT_DETACHED_TEMPLATE';
/** Event.source.component and reportingController. */
export const EVENT_COMPONENT = 'ds-rollout';

export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
}

/**
 * What a gated rollout sends in its namespace (step, bake, undo on failure, the record, its events): checked against
 * the simulated cluster's request log by test/cli/detach.test.ts, and by RBAC on the real control plane.
 */
export const DETACH_ROLE_RULES: readonly PolicyRule[] = [
  {apiGroups: ['apps'], resources: ['daemonsets'], verbs: ['get', 'list', 'watch', 'patch']},
  // get and patch: an undo on a failed gate writes the change-cause on the revision it restores.
  {apiGroups: ['apps'], resources: ['controllerrevisions'], verbs: ['get', 'list', 'watch', 'patch']},
  {apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch', 'delete']},
  {apiGroups: [''], resources: ['events'], verbs: ['create']},
];

export const DETACH_CLUSTER_ROLE_RULES: readonly PolicyRule[] = [{apiGroups: [''], resources: ['nodes'], verbs: ['list', 'watch']}];

/** Does one of `rules` allow `verb` on `group`/`resource`? */
export function rulesAllow(rules: readonly PolicyRule[], group: string, resource: string, verb: string): boolean {
  return rules.some((rule) => rule.apiGroups.includes(group) && rule.resources.includes(resource) && rule.verbs.includes(verb));
}

/**
 * The Job of one rollout: the DaemonSet's name and the template being rolled out, so a second `--detach` of the
 * same rollout finds it, and a later rollout gets its own. At most 63 characters (a label value names it too).
 */
export function detachedJobName(daemonSet: string, templateHash: string, promotedStage?: number): string {
  const suffix = `${templateHash.slice(0, 10)}${promotedStage === undefined ? '' : `-promote-${promotedStage}`}`;
  const room = 63 - 'ds-rollout--'.length - suffix.length;
  return `ds-rollout-${daemonSet.slice(0, room).replace(/[-.]+$/, '')}-${suffix}`;
}

/** Is `job` one of the Jobs of this rollout (the step's, or a promote's)? */
export function isDetachedJobOf(job: string, daemonSet: string, templateHash: string): boolean {
  const step = detachedJobName(daemonSet, templateHash);
  return job === step || job.startsWith(`${step}-promote-`);
}

// Flags that choose this machine's cluster, credentials or output: the Job has its own (in-cluster), or none.
const DROPPED_WITH_VALUE = new Set([
  '--image',
  '--dry-run',
  '--output',
  '-o',
  '--kubeconfig',
  '--context',
  '--cluster',
  '--user',
  '--server',
  '-s',
  '--token',
  '--certificate-authority',
  '--tls-server-name',
  '--as',
  '--as-group',
  '--namespace',
  '-n',
  '--strategy',
]);
const DROPPED_ALONE = new Set(['--detach', '--insecure-skip-tls-verify', '--yes', '-y']);

/**
 * The command line the Job runs: the operator's, minus --detach and everything that names this machine's cluster,
 * credentials or files (a token never lands in a manifest), plus the namespace, --yes, and the mounted strategy.
 */
export function detachedCommandArgs(command: string, argv: readonly string[], options: {namespace: string; strategy: boolean; yes: boolean}): string[] {
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      kept.push(...argv.slice(i));
      break;
    }
    if (DROPPED_ALONE.has(arg) || DROPPED_ALONE.has(arg.split('=')[0]!)) continue;
    const flag = arg.startsWith('--') ? arg.split('=')[0]! : arg.slice(0, 2);
    if (DROPPED_WITH_VALUE.has(flag)) {
      // `--flag value`, `--flag=value`, `-nvalue`, `-n=value`; a bare --dry-run means client and takes no value.
      if (arg === flag && (flag !== '--dry-run' || ['none', 'client', 'server'].includes(argv[i + 1] ?? ''))) i++;
      continue;
    }
    kept.push(arg);
  }
  return [
    command,
    ...kept,
    '--namespace',
    options.namespace,
    ...(options.strategy ? ['--strategy', `${DETACHED_STRATEGY_DIR}/strategy.yaml`] : []),
    ...(options.yes ? ['--yes'] : []),
  ];
}

export interface DetachInput {
  readonly namespace: string;
  readonly daemonSet: string;
  /** The template hash being rolled out (the gated record's `template`). */
  readonly template: string;
  /** detachedJobName's. */
  readonly job: string;
  readonly image: string;
  /** The container's args (detachedCommandArgs). */
  readonly args: readonly string[];
  /** The text of --strategy, mounted from a ConfigMap. */
  readonly strategy?: string;
}

export type Manifest = Readonly<Record<string, unknown>> & {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {readonly name: string; readonly namespace?: string; readonly labels?: Readonly<Record<string, string>>};
};

/** In creation order: what the Job needs exists before it. */
export function detachManifests(input: DetachInput): Manifest[] {
  const {namespace} = input;
  const job = input.job;
  const labels = {...MANAGED_BY, [DETACHED_DAEMONSET_LABEL]: input.daemonSet, [DETACHED_TEMPLATE_LABEL]: input.template.slice(0, 63)};
  const shared = {metadata: (name: string, namespaced = true) => ({name, ...(namespaced ? {namespace} : {}), labels: {...MANAGED_BY}})};
  const clusterRole = detachClusterRoleName(namespace);
  const subjects = [{kind: 'ServiceAccount', name: DETACH_SERVICE_ACCOUNT, namespace}];
  const manifests: Manifest[] = [
    {apiVersion: 'v1', kind: 'ServiceAccount', metadata: shared.metadata(DETACH_SERVICE_ACCOUNT)},
    {apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: shared.metadata(DETACH_SERVICE_ACCOUNT), rules: DETACH_ROLE_RULES},
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: shared.metadata(DETACH_SERVICE_ACCOUNT),
      roleRef: {apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: DETACH_SERVICE_ACCOUNT},
      subjects,
    },
    {apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: shared.metadata(clusterRole, false), rules: DETACH_CLUSTER_ROLE_RULES},
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: shared.metadata(clusterRole, false),
      roleRef: {apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRole},
      subjects,
    },
  ];
  if (input.strategy !== undefined) {
    manifests.push({apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: job, namespace, labels}, data: {'strategy.yaml': input.strategy}});
  }
  const container = {
    name: 'ds-rollout',
    image: input.image,
    args: [...input.args],
    env: [
      {name: 'NO_COLOR', value: '1'},
      // The root filesystem is read-only: anything the CLI caches goes to an emptyDir.
      {name: 'HOME', value: '/tmp'},
      {name: DETACHED_TEMPLATE_ENV, value: input.template},
    ],
    resources: {requests: {cpu: '50m', memory: '64Mi'}, limits: {memory: '512Mi'}},
    securityContext: {allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, runAsUser: 65532, capabilities: {drop: ['ALL']}},
    volumeMounts: [
      {name: 'tmp', mountPath: '/tmp'},
      ...(input.strategy !== undefined ? [{name: 'strategy', mountPath: DETACHED_STRATEGY_DIR, readOnly: true}] : []),
    ],
  };
  manifests.push({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {name: job, namespace, labels},
    spec: {
      backoffLimit: DETACHED_BACKOFF_LIMIT,
      template: {
        metadata: {labels},
        spec: {
          serviceAccountName: DETACH_SERVICE_ACCOUNT,
          restartPolicy: 'Never',
          containers: [container],
          volumes: [{name: 'tmp', emptyDir: {}}, ...(input.strategy !== undefined ? [{name: 'strategy', configMap: {name: job}}] : [])],
        },
      },
    },
  });
  return manifests;
}

/**
 * Why a restarted Job has nothing left to do, or undefined: its rollout is over when the template is no longer the
 * one it was made for (aborted, rolled back, or replaced by a newer release), or its record has ended (complete,
 * aborted, abandoned, superseded) or failed. Without this, a restart after an abort would start a gated rollout of
 * the restored template, and one after `resume --force` would revive the abandoned record.
 */
export function detachedRolloutOver(ds: DaemonSet, template: string): string | undefined {
  const ref = `daemonset ${ds.metadata.namespace ?? ''}/${ds.metadata.name}`;
  if (computeTemplateHash(ds.spec.template) !== template) return `the template of ${ref} is no longer the one this Job rolls out: nothing to do`;
  const found = gatedRecordOf(ds);
  // Failed too: its gate has spoken, and only abort (or a new rollout) moves it on; a restart must not write.
  if (found.kind === 'record' && found.record.template === template && (FINISHED_GATED_PHASES.has(found.record.phase) || found.record.phase === 'failed')) {
    return `the gated rollout of ${ref} is ${found.record.phase}: nothing to do`;
  }
  return undefined;
}

/** The DaemonSet's annotation naming the Job that drives its rollout, or undefined. */
export function detachedJobOf(ds: {readonly metadata: {readonly annotations?: Readonly<Record<string, string>>}}): string | undefined {
  const name = ds.metadata.annotations?.[DETACHED_JOB_ANNOTATION];
  return name === undefined || name === '' ? undefined : name;
}

// ---------------------------------------------------------------------------------------------------------------
// Events

export interface RolloutEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

/** The end of a run, and the commands that are stage transitions of their own. */
export type RolloutMilestone =
  | {readonly kind: 'complete'}
  | {readonly kind: 'awaiting-approval'; readonly stage: string}
  | {readonly kind: 'promoted'}
  | {readonly kind: 'aborted'; readonly toRevision: Revision; readonly nodes: readonly string[]}
  /** Ended by `resume --force` at this stage and phase. */
  | {readonly kind: 'abandoned'; readonly stage: string; readonly phase: string}
  | {readonly kind: 'detached'; readonly job: string; readonly created: boolean};

const nodeList = (nodes: readonly string[] | undefined) => (nodes === undefined ? 'every node' : nodes.join(', '));

/** The Kubernetes Event a gated rollout's progress makes, or undefined (step details and bake countdowns make none). */
export function rolloutEventOf(event: GatedEvent | RolloutMilestone): RolloutEvent | undefined {
  switch (event.kind) {
    case 'plan':
      return event.resumed
        ? {
            type: 'Normal',
            reason: 'RolloutResumed',
            message: `Gated rollout resumed at stage ${event.stage + 1}/${event.stages.length} ${event.stages[event.stage]?.name ?? ''}`.trim(),
          }
        : {type: 'Normal', reason: 'RolloutStarted', message: `Gated rollout started: ${event.stages.map((s) => s.name).join(', ')}`};
    case 'stage': {
      const canary = event.number === 1 && event.stage.name === 'canary';
      return {
        type: 'Normal',
        reason: canary ? 'CanaryStarted' : 'StageStarted',
        message: `Stage ${event.number}/${event.total} ${event.stage.name} started on ${nodeList(event.stage.nodes)}`,
      };
    }
    case 'bake-passed':
      return {type: 'Normal', reason: event.stage.name === 'canary' ? 'CanaryPassed' : 'StagePassed', message: `Stage ${event.stage.name} passed its gate`};
    case 'gate-failed':
      return {
        type: 'Warning',
        reason: 'GateFailed',
        message: `Gate failed at stage ${event.stage.name}: ${event.failures.map((f) => `pod ${f.pod} on node ${f.node}: ${f.reason}`).join('; ')}`,
      };
    case 'rolling-back':
      return {
        type: 'Warning',
        reason: 'RollingBack',
        message: `Rolling back to revision ${event.toRevision} on ${event.nodes.length > 0 ? event.nodes.join(', ') : 'no node'}`,
      };
    case 'complete':
      return {type: 'Normal', reason: 'RolloutComplete', message: 'Gated rollout complete: every stage passed'};
    case 'awaiting-approval':
      return {type: 'Normal', reason: 'AwaitingApproval', message: `Stage ${event.stage} passed; waiting for kubectl ds-rollout promote`};
    case 'promoted':
      return {type: 'Normal', reason: 'Promoted', message: 'Gated rollout promoted past its approval point'};
    case 'aborted':
      return {
        type: 'Warning',
        reason: 'Aborted',
        message: `Gated rollout aborted: back on revision ${event.toRevision}${event.nodes.length > 0 ? ` (stepped back: ${event.nodes.join(', ')})` : ''}`,
      };
    case 'abandoned':
      return {
        type: 'Warning',
        reason: 'Abandoned',
        message: `Gated rollout ended by resume --force at stage ${event.stage} (${event.phase}): the controller rolls out the rest`,
      };
    case 'superseded':
      return {type: 'Warning', reason: 'Superseded', message: `Gated rollout superseded: ${event.message}`};
    case 'detached':
      return {type: 'Normal', reason: 'Detached', message: `Gated rollout ${event.created ? 'handed to' : 'already driven by'} Job ${event.job}`};
    default:
      return undefined;
  }
}

/** Event messages are capped by the API server at 1 KiB (as client-go's recorder truncates them). */
const MAX_MESSAGE = 1024;

/**
 * A core/v1 Event on the DaemonSet, as client-go's recorder writes one: named after the object and the time in
 * hex (plus a sequence number, for two events in one millisecond), first and last time the server's clock. No
 * eventTime: that would ask the API server for the events.k8s.io fields (action, ...) too.
 */
export function kubernetesEvent(input: {
  readonly daemonSet: {readonly namespace: string; readonly name: string; readonly uid: string; readonly resourceVersion?: string};
  readonly event: RolloutEvent;
  /** The server's clock, epoch ms. */
  readonly now: number;
  readonly sequence: number;
  /** Who sent it (Event.source.host, reportingInstance): a host or a pod name. */
  readonly host: string;
}): Manifest {
  const {daemonSet, event, now, sequence} = input;
  const time = new Date(Math.floor(now / 1000) * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
  const message = event.message.length > MAX_MESSAGE ? `${event.message.slice(0, MAX_MESSAGE - 3)}...` : event.message;
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {name: `${daemonSet.name}.${(now * 1000 + (sequence % 1000)).toString(16)}`, namespace: daemonSet.namespace},
    involvedObject: {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      namespace: daemonSet.namespace,
      name: daemonSet.name,
      uid: daemonSet.uid,
      ...(daemonSet.resourceVersion === undefined ? {} : {resourceVersion: daemonSet.resourceVersion}),
    },
    reason: event.reason,
    message,
    type: event.type,
    source: {component: EVENT_COMPONENT, host: input.host},
    firstTimestamp: time,
    lastTimestamp: time,
    count: 1,
    reportingComponent: EVENT_COMPONENT,
    reportingInstance: input.host,
  };
}
