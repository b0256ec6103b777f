// A gated rollout run by Kubernetes instead of a terminal (`step --until-complete ... --detach`): the manifests of
// the Job that runs the same command in the DaemonSet's namespace, with a ServiceAccount allowed exactly what the
// rollout does; and the Kubernetes Events that tell the rollout's story on the DaemonSet (`kubectl describe ds`).
// Pure: names, argument lists and objects as data; the service sends them.
import {DRIVEN_GATED_PHASES, type GatedEvent, type GatedRecord, describeGateFailure, gatedRecordOf} from './gates.js';
import type {PrometheusTarget, ServiceRef} from './metric-gate.js';
import {computeTemplateHash} from './revisions.js';
import type {Revision} from './revision-number.js';
import {formatRfc3339} from './rfc3339.js';
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

/**
 * Nodes are cluster-scoped: reading them needs a ClusterRole. One, shared, grants nothing by itself; each rollout's
 * ClusterRoleBinding (detachNodeBindingName) binds it to that rollout's ServiceAccount only.
 */
export const DETACH_NODE_READER = 'ds-rollout:node-reader';
/**
 * A cluster-scoped object cannot be owned by a namespaced Job (the garbage collector does not resolve such an owner),
 * so the binding is named after the Job and labelled with it: once the Job is deleted its ServiceAccount goes with
 * it and the binding grants nothing; the next --detach deletes it.
 */
export const detachNodeBindingName = (namespace: string, job: string) => `ds-rollout:${namespace}:${job}`;
/**
 * The Role and RoleBinding in another namespace that let the Job reach its metric gate's Service there: named and
 * labelled as the node binding, and for the same reason (an owner must be in the same namespace), deleted as it is.
 */
export const detachProxyRoleName = detachNodeBindingName;
/** On the node binding and a proxy Role elsewhere: the namespace and name of the Job it serves (a label value holds either). */
export const DETACHED_JOB_NAMESPACE_LABEL = 'ds-rollout.io/job-namespace';
export const DETACHED_JOB_LABEL = 'ds-rollout.io/job';
/** Where the strategy file (--strategy) is mounted in the Job's pod, from a ConfigMap named as the Job. */
export const DETACHED_STRATEGY_DIR = '/etc/ds-rollout';
/**
 * Jobs retry a failed driver this many times (10 s, 20 s, 40 s ... apart): enough for a restart that finds the step
 * lease of a killed driver (it lapses in 30 s). A rollout that failed does not wait for them: its driver sets the
 * limit to 0 before it exits (failedJobPatch), so the Job controller fails the Job on that exit.
 */
export const DETACHED_BACKOFF_LIMIT = 6;
/** Set in the Job's pod: the template hash the Job was made for. A restart after that rollout ended does nothing. */
export const DETACHED_TEMPLATE_ENV = 'DS_ROLLOUT_DETACHED_TEMPLATE';
/** Set in the Job's pod: the Job's own name, the one Job its Role lets it patch. */
export const DETACHED_JOB_ENV = 'DS_ROLLOUT_DETACHED_JOB';
/** Event.source.component and reportingController. */
export const EVENT_COMPONENT = 'ds-rollout';

export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
  /** Only these objects (RBAC reads a list or watch as naming one when its fieldSelector is metadata.name=NAME). */
  readonly resourceNames?: readonly string[];
}

/**
 * What one detached rollout sends in its namespace (step, bake, undo on failure, the record, its events, failing its
 * own Job): checked against the simulated cluster's request log by test/cli/detach.test.ts, and by RBAC on the real
 * control plane. Pods cannot be narrowed: RBAC names objects, not labels, and a pod's name is known only once it runs.
 * `proxied`: the Service of a metric gate in the Job's own namespace (one in another gets a Role there).
 */
export function detachRoleRules(daemonSet: string, job: string, proxied?: ServiceRef): PolicyRule[] {
  return [
    {apiGroups: ['apps'], resources: ['daemonsets'], resourceNames: [daemonSet], verbs: ['get', 'list', 'watch', 'patch']},
    // get and patch: an undo on a failed gate writes the change-cause on the revision it restores (named by hash).
    {apiGroups: ['apps'], resources: ['controllerrevisions'], verbs: ['get', 'list', 'watch', 'patch']},
    {apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch', 'delete']},
    {apiGroups: [''], resources: ['events'], verbs: ['create']},
    // A rollout that failed fails its Job (failedJobPatch).
    {apiGroups: ['batch'], resources: ['jobs'], resourceNames: [job], verbs: ['get', 'patch']},
    // The metric gate through the service proxy, to a Service in this namespace (detachManifests decides).
    ...(proxied === undefined ? [] : serviceProxyRules(proxied)),
  ];
}

/**
 * The name RBAC checks for a request through the service proxy: the API server's RequestInfo takes the path segment
 * after `services/` as the name, so `/services/NAME:PORT/proxy/...` is `get` on `services/proxy` named `NAME:PORT`
 * (a rule naming only NAME does not match it).
 */
export const serviceProxyName = (service: Pick<ServiceRef, 'name' | 'port'>) => `${service.name}:${service.port}`;

/** What the metric gate needs to query Prometheus through the service proxy (services/metric-gate.ts): that one service. */
export function serviceProxyRules(service: ServiceRef): PolicyRule[] {
  return [{apiGroups: [''], resources: ['services/proxy'], resourceNames: [serviceProxyName(service)], verbs: ['get']}];
}

/**
 * The Service a detached rollout's metric gate reaches through the API server's proxy, or undefined (no metric gate,
 * or Prometheus by URL). A rollout of this template under way asks what its record holds (a rerun, a promote);
 * a new one, what its strategy says.
 */
export function detachProxiedService(record: GatedRecord | undefined, template: string, strategy: PrometheusTarget | undefined): ServiceRef | undefined {
  if (record !== undefined && record.template === template && DRIVEN_GATED_PHASES.has(record.phase)) {
    return (record.metrics?.length ?? 0) > 0 ? record.prometheus?.service : undefined;
  }
  return strategy?.service;
}

export const DETACH_NODE_READER_RULES: readonly PolicyRule[] = [{apiGroups: [''], resources: ['nodes'], verbs: ['list', 'watch']}];

/** Does one of `rules` allow `verb` on `group`/`resource` (named `name`, if the request names one)? */
export function rulesAllow(rules: readonly PolicyRule[], group: string, resource: string, verb: string, name?: string): boolean {
  return rules.some(
    (rule) =>
      rule.apiGroups.includes(group) &&
      rule.resources.includes(resource) &&
      rule.verbs.includes(verb) &&
      (rule.resourceNames === undefined || (name !== undefined && rule.resourceNames.includes(name))),
  );
}

/**
 * The Job of one rollout: the DaemonSet's name and the template being rolled out, so a second `--detach` of the
 * same rollout finds it, and a later rollout gets its own. At most 63 characters (a label value names it too).
 * `attempt` 2 and on: a fresh Job after one that failed while its rollout did not (`-retry-N`).
 */
export function detachedJobName(daemonSet: string, templateHash: string, promotedStage?: number, attempt = 1): string {
  const suffix = `${templateHash.slice(0, 10)}${promotedStage === undefined ? '' : `-promote-${promotedStage}`}${attempt > 1 ? `-retry-${attempt}` : ''}`;
  const room = 63 - 'ds-rollout--'.length - suffix.length;
  return `ds-rollout-${daemonSet.slice(0, room).replace(/[-.]+$/, '')}-${suffix}`;
}

/** Is `job` one of the Jobs of this rollout (the step's, or a promote's)? */
export function isDetachedJobOf(job: string, daemonSet: string, templateHash: string): boolean {
  const step = detachedJobName(daemonSet, templateHash);
  return job === step || job.startsWith(`${step}-promote-`) || job.startsWith(`${step}-retry-`);
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
  /** The Service the metric gate reaches through the API server's proxy (detachProxiedService): the Job may get it. */
  readonly prometheusService?: ServiceRef;
}

export type Manifest = Readonly<Record<string, unknown>> & {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {readonly name: string; readonly namespace?: string; readonly labels?: Readonly<Record<string, string>>};
};

const RBAC = 'rbac.authorization.k8s.io/v1';

/** A Role and the RoleBinding that gives it to `subjects`, both named `name`. */
function roleAndBinding(name: string, namespace: string, labels: Readonly<Record<string, string>>, rules: PolicyRule[], subjects: unknown[]): Manifest[] {
  return [
    {apiVersion: RBAC, kind: 'Role', metadata: {name, namespace, labels}, rules},
    {
      apiVersion: RBAC,
      kind: 'RoleBinding',
      metadata: {name, namespace, labels},
      roleRef: {apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name},
      subjects,
    },
  ];
}

/**
 * What the Job's ServiceAccount may do: its Role in its namespace (with the metric gate's service proxy when that
 * Service is there too), the node reader's binding, and a Role in the namespace of a metric gate's Service elsewhere.
 */
function detachRbacManifests(input: DetachInput, labels: Readonly<Record<string, string>>): Manifest[] {
  const {namespace, job} = input;
  const subjects = [{kind: 'ServiceAccount', name: job, namespace}];
  const service = input.prometheusService;
  const here = service !== undefined && service.namespace === namespace ? service : undefined;
  const jobLabels = jobLabelsOf(namespace, job);
  return [
    ...roleAndBinding(job, namespace, labels, detachRoleRules(input.daemonSet, job, here), subjects),
    {apiVersion: RBAC, kind: 'ClusterRole', metadata: {name: DETACH_NODE_READER, labels: {...MANAGED_BY}}, rules: DETACH_NODE_READER_RULES},
    {
      apiVersion: RBAC,
      kind: 'ClusterRoleBinding',
      metadata: {name: detachNodeBindingName(namespace, job), labels: jobLabels},
      roleRef: {apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: DETACH_NODE_READER},
      subjects,
    },
  ];
}

/** The labels that name the Job an object outside its namespace serves (the node binding, a proxy Role elsewhere). */
const jobLabelsOf = (namespace: string, job: string) => ({...MANAGED_BY, [DETACHED_JOB_NAMESPACE_LABEL]: namespace, [DETACHED_JOB_LABEL]: job});

/**
 * The Role and RoleBinding that let the Job reach its metric gate's Service in another namespace (none for one in
 * its own, or without one). Made first: a namespace that is not there fails the creation before anything is made.
 */
function detachProxyGrantElsewhere(input: DetachInput): Manifest[] {
  const {namespace, job} = input;
  const service = input.prometheusService;
  if (service === undefined || service.namespace === namespace) return [];
  return roleAndBinding(detachProxyRoleName(namespace, job), service.namespace, jobLabelsOf(namespace, job), serviceProxyRules(service), [
    {kind: 'ServiceAccount', name: job, namespace},
  ]);
}

/**
 * In creation order: what the Job needs exists before it. The ServiceAccount, Role, RoleBinding and ConfigMap are
 * the Job's own, named after it; once the Job exists they get it as their owner (jobOwnerReference), so deleting the
 * Job deletes them. The shared ClusterRole is never owned; the node binding is cluster-scoped (detachNodeBindingName),
 * and a metric gate's Role and RoleBinding in another namespace, made first, are out of the Job's reach as owner
 * (detachProxyRoleName).
 */
export function detachManifests(input: DetachInput): Manifest[] {
  const {namespace} = input;
  const job = input.job;
  const labels = {...MANAGED_BY, [DETACHED_DAEMONSET_LABEL]: input.daemonSet, [DETACHED_TEMPLATE_LABEL]: input.template.slice(0, 63)};
  const manifests: Manifest[] = [
    ...detachProxyGrantElsewhere(input),
    {apiVersion: 'v1', kind: 'ServiceAccount', metadata: {name: job, namespace, labels}},
    ...detachRbacManifests(input, labels),
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
      {name: DETACHED_JOB_ENV, value: job},
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
          serviceAccountName: job,
          restartPolicy: 'Never',
          containers: [container],
          volumes: [{name: 'tmp', emptyDir: {}}, ...(input.strategy !== undefined ? [{name: 'strategy', configMap: {name: job}}] : [])],
        },
      },
    },
  });
  return manifests;
}

/** Whether the rollout a Job was made for goes on, ended well, or ended otherwise, and why. */
export type DetachedRolloutEnd =
  {readonly kind: 'running'} | {readonly kind: 'complete'; readonly message: string} | {readonly kind: 'failed'; readonly message: string};

/**
 * Where the rollout a Job was made for stands. It is over when its record says complete (the Job succeeds), or
 * failed, aborting, aborted, abandoned or superseded, or the template is no longer the one the Job was made for (rolled back,
 * aborted, replaced by a newer release): then the Job fails, so that its alerts fire, and no restart starts a gated
 * rollout of a restored template.
 */
export function detachedRolloutEnd(ds: DaemonSet, template: string): DetachedRolloutEnd {
  const ref = `daemonset ${ds.metadata.namespace ?? ''}/${ds.metadata.name}`;
  const found = gatedRecordOf(ds);
  const record = found.kind === 'record' && found.record.template === template ? found.record : undefined;
  if (record?.phase === 'complete') return {kind: 'complete', message: `the gated rollout of ${ref} is complete: nothing to do`};
  if (computeTemplateHash(ds.spec.template) !== template) {
    return {kind: 'failed', message: `the template of ${ref} is no longer the one this Job rolls out${record ? ` (gated rollout ${record.phase})` : ''}`};
  }
  if (record !== undefined && !DRIVEN_GATED_PHASES.has(record.phase)) {
    return {kind: 'failed', message: `the gated rollout of ${ref} is ${record.phase}`};
  }
  return {kind: 'running'};
}

/** Whether a Job has ended as one of `outcomes`: its Complete or Failed condition is True (the Job controller's). */
export function jobEndedAs(
  job: {readonly status?: {readonly conditions?: readonly {readonly type: string; readonly status: string}[]}} | undefined,
  ...outcomes: readonly ('Complete' | 'Failed')[]
): boolean {
  return job?.status?.conditions?.some((c) => c.status === 'True' && (outcomes as readonly string[]).includes(c.type)) ?? false;
}

/**
 * The merge patch that makes the Job controller fail a Job on its pod's next failure: backoffLimit 0, with the
 * resourceVersion read as precondition; undefined when it is set already or the Job has ended. Kubernetes 1.20 has
 * no podFailurePolicy; an activeDeadlineSeconds would fail it too, but deletes the running pod and with it the log.
 */
export function failedJobPatch(job: {
  readonly metadata: {readonly resourceVersion?: string};
  readonly spec?: {readonly backoffLimit?: number};
  readonly status?: {readonly conditions?: readonly {readonly type: string; readonly status: string}[]};
}): Record<string, unknown> | undefined {
  if (jobEndedAs(job, 'Complete', 'Failed') || job.spec?.backoffLimit === 0) return undefined;
  return {metadata: {resourceVersion: job.metadata.resourceVersion}, spec: {backoffLimit: 0}};
}

/** The ownerReference that makes a rollout's ServiceAccount, Role, RoleBinding and ConfigMap go with its Job. */
export function jobOwnerReference(job: {readonly name: string; readonly uid: string}) {
  return {apiVersion: 'batch/v1', kind: 'Job', name: job.name, uid: job.uid};
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
        message: `Gate failed at stage ${event.stage.name}: ${event.failures.map(describeGateFailure).join('; ')}`,
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
  const time = formatRfc3339(now);
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
