// What a real API server fills in when a DaemonSet or Pod is created or updated, before validation and
// storage (docs/design/sim-api.md §7.1). Manifests given with -f never went through a server, so the planner defaults them
// the same way before comparing their template with stored revisions (docs/design/reconcile.md §10.2).
//
// Only the scheme's defaulting functions are modelled, not admission plugins. Left out on purpose:
//   - Priority admission: spec.priority 0, spec.preemptionPolicy PreemptLowerPriority (and priorityClassName).
//   - ServiceAccount admission: spec.serviceAccountName/serviceAccount "default" and the projected token volume.
//   - DefaultTolerationSeconds admission: not-ready/unreachable NoExecute tolerations with 300 s.
//   - Registry strategies (not defaulting): metadata.generation, the template-generation annotation, pod
//     status.phase Pending and status.qosClass.
// Also not modelled: resource quantity canonicalisation and milli round-up (SetDefaults_ResourceList; `1000m`
// stays `1000m` here although the server stores `1`), feature-gated defaults (PodLevelResources, ImageVolume
// pull policy), gRPC probe `service`, and the legacy volume plugins' defaults (iSCSI, RBD, AzureDisk, ScaleIO).
import {deepEqualJson} from './canonical-json.js';
import {TEMPLATE_GENERATION_ANNOTATION, templateGeneration} from './pod-template.js';
import type {Container, DaemonSet, Pod, PodSpec, PodTemplateSpec} from './types.js';

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Go's `== ""` test on a string field: absent, null and "" are all unset. */
function unsetString(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

/** Go's `== nil` test on a pointer field. */
function unset(value: unknown): boolean {
  return value === undefined || value === null;
}

// ---------------------------------------------------------------------------------------------
// Image pull policy

// The docker reference grammar (distribution/reference): optional domain, lowercase path components,
// optional tag, optional digest.
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[0-9a-fA-F:.]+\\])(?::[0-9]+)?`;
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const REFERENCE = new RegExp(`^(?:(${DOMAIN})/)?(${PATH_COMPONENT}(?:/${PATH_COMPONENT})*)(?::(${TAG}))?(?:@(${DIGEST}))?$`);
const HEX64 = /^[a-f0-9]{64}$/;

/**
 * The tag ParseImageName reports: the explicit tag; "latest" when there is neither tag nor digest; "" when the
 * image does not parse (then the server defaults IfNotPresent, having ignored the error).
 */
// upstream: pkg/util/parsers/parsers.go ParseImageName (via distribution/reference ParseNormalizedNamed)
function imageTag(image: string): string {
  if (HEX64.test(image)) return '';
  // A first component without '.' or ':' that is not "localhost" is a Docker Hub path, not a domain, and
  // must then be lowercase like every path component.
  const slash = image.indexOf('/');
  const first = slash === -1 ? '' : image.slice(0, slash);
  const hasDomain = slash !== -1 && (/[.:]/.test(first) || first === 'localhost' || first.toLowerCase() !== first);
  const match = REFERENCE.exec(hasDomain ? image : `docker.io/${image}`);
  if (match === null) return '';
  const [, , path, tag, digest] = match;
  if (path!.length + (hasDomain ? first.length + 1 : 'docker.io/'.length) > 255) return '';
  if (tag !== undefined) return tag;
  return digest === undefined ? 'latest' : '';
}

/** `Always` for an image whose tag is (or defaults to) `latest`, otherwise `IfNotPresent`. */
// upstream: pkg/apis/core/v1/defaults.go SetDefaults_Container (ImagePullPolicy)
export function defaultImagePullPolicy(image: string | undefined): 'Always' | 'IfNotPresent' {
  return imageTag(image ?? '') === 'latest' ? 'Always' : 'IfNotPresent';
}

// ---------------------------------------------------------------------------------------------
// Containers

// upstream: pkg/apis/core/v1/defaults.go SetDefaults_HTTPGetAction
function defaultHttpGet(httpGet: unknown): unknown {
  if (!isObject(httpGet)) return httpGet;
  return {
    ...httpGet,
    path: unsetString(httpGet['path']) ? '/' : httpGet['path'],
    scheme: unsetString(httpGet['scheme']) ? 'HTTP' : httpGet['scheme'],
  };
}

/** Go tests these int32 fields against 0, so an explicit 0 is replaced too. */
function orDefault(value: unknown, fallback: number): unknown {
  return value === undefined || value === null || value === 0 ? fallback : value;
}

// upstream: pkg/apis/core/v1/defaults.go SetDefaults_Probe
function defaultProbe(probe: unknown): unknown {
  if (!isObject(probe)) return probe;
  const out: JsonObject = {
    ...probe,
    timeoutSeconds: orDefault(probe['timeoutSeconds'], 1),
    periodSeconds: orDefault(probe['periodSeconds'], 10),
    successThreshold: orDefault(probe['successThreshold'], 1),
    failureThreshold: orDefault(probe['failureThreshold'], 3),
  };
  if (isObject(probe['httpGet'])) out['httpGet'] = defaultHttpGet(probe['httpGet']);
  return out;
}

function defaultLifecycle(lifecycle: unknown): unknown {
  if (!isObject(lifecycle)) return lifecycle;
  const out: JsonObject = {...lifecycle};
  for (const hook of ['postStart', 'preStop']) {
    const handler = lifecycle[hook];
    if (isObject(handler) && isObject(handler['httpGet'])) out[hook] = {...handler, httpGet: defaultHttpGet(handler['httpGet'])};
  }
  return out;
}

// upstream: pkg/apis/core/v1/defaults.go SetDefaults_ObjectFieldSelector
function defaultFieldRef(fieldRef: unknown): unknown {
  if (!isObject(fieldRef)) return fieldRef;
  return {...fieldRef, apiVersion: unsetString(fieldRef['apiVersion']) ? 'v1' : fieldRef['apiVersion']};
}

function defaultEnv(env: unknown): unknown {
  if (!Array.isArray(env)) return env;
  return env.map((item: unknown) => {
    if (!isObject(item) || !isObject(item['valueFrom']) || !isObject(item['valueFrom']['fieldRef'])) return item;
    return {...item, valueFrom: {...item['valueFrom'], fieldRef: defaultFieldRef(item['valueFrom']['fieldRef'])}};
  });
}

function defaultPorts(ports: unknown): unknown {
  if (!Array.isArray(ports)) return ports;
  // Declarative default (`+default="TCP"`) on ContainerPort.protocol.
  return ports.map((port: unknown) => (isObject(port) && unsetString(port['protocol']) ? {...port, protocol: 'TCP'} : port));
}

// upstream: pkg/apis/core/v1/defaults.go SetDefaults_Container; pkg/apis/apps/v1/zz_generated.defaults.go (per container)
function defaultContainer(container: Container): Container {
  const c = container as JsonObject;
  const out: JsonObject = {
    ...c,
    imagePullPolicy: unsetString(c['imagePullPolicy']) ? defaultImagePullPolicy(typeof c['image'] === 'string' ? c['image'] : undefined) : c['imagePullPolicy'],
    terminationMessagePath: unsetString(c['terminationMessagePath']) ? '/dev/termination-log' : c['terminationMessagePath'],
    terminationMessagePolicy: unsetString(c['terminationMessagePolicy']) ? 'File' : c['terminationMessagePolicy'],
    // Not a defaulting function: Go's value-typed `resources` always encodes, as `{}` when empty.
    resources: unset(c['resources']) ? {} : c['resources'],
  };
  if (c['ports'] !== undefined) out['ports'] = defaultPorts(c['ports']);
  if (c['env'] !== undefined) out['env'] = defaultEnv(c['env']);
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
    if (isObject(c[probe])) out[probe] = defaultProbe(c[probe]);
  }
  if (isObject(c['lifecycle'])) out['lifecycle'] = defaultLifecycle(c['lifecycle']);
  return out as unknown as Container;
}

function defaultContainers(containers: unknown): unknown {
  return Array.isArray(containers) ? containers.map((c: unknown) => (isObject(c) ? defaultContainer(c as unknown as Container) : c)) : containers;
}

// ---------------------------------------------------------------------------------------------
// Volumes

const DEFAULT_MODE = 0o644; // 420: the default file mode of secret, configMap, downwardAPI and projected volumes

function withDefaultMode(source: unknown): unknown {
  return isObject(source) && unset(source['defaultMode']) ? {...source, defaultMode: DEFAULT_MODE} : source;
}

function defaultDownwardItems(source: JsonObject): JsonObject {
  const items = source['items'];
  if (!Array.isArray(items)) return source;
  return {
    ...source,
    items: items.map((item: unknown) => (isObject(item) && isObject(item['fieldRef']) ? {...item, fieldRef: defaultFieldRef(item['fieldRef'])} : item)),
  };
}

function defaultProjectedSources(source: JsonObject): JsonObject {
  const sources = source['sources'];
  if (!Array.isArray(sources)) return source;
  return {
    ...source,
    sources: sources.map((s: unknown) => {
      if (!isObject(s)) return s;
      const out: JsonObject = {...s};
      if (isObject(s['downwardAPI'])) out['downwardAPI'] = defaultDownwardItems(s['downwardAPI']);
      const token = s['serviceAccountToken'];
      // upstream: SetDefaults_ServiceAccountTokenProjection (one hour)
      if (isObject(token) && unset(token['expirationSeconds'])) out['serviceAccountToken'] = {...token, expirationSeconds: 3600};
      return out;
    }),
  };
}

// upstream: pkg/apis/core/v1/defaults.go SetDefaults_Volume and the per-source defaulters it is generated with
function defaultVolume(volume: unknown): unknown {
  if (!isObject(volume)) return volume;
  const out: JsonObject = {...volume};
  const sourceKeys = Object.keys(volume).filter((k) => k !== 'name' && !unset(volume[k]));
  // A volume naming no source is an emptyDir.
  if (sourceKeys.length === 0) out['emptyDir'] = {};
  const hostPath = volume['hostPath'];
  if (isObject(hostPath) && unset(hostPath['type'])) out['hostPath'] = {...hostPath, type: ''};
  for (const key of ['secret', 'configMap']) if (isObject(volume[key])) out[key] = withDefaultMode(volume[key]);
  if (isObject(volume['downwardAPI'])) out['downwardAPI'] = defaultDownwardItems(withDefaultMode(volume['downwardAPI']) as JsonObject);
  if (isObject(volume['projected'])) out['projected'] = defaultProjectedSources(withDefaultMode(volume['projected']) as JsonObject);
  const ephemeral = volume['ephemeral'];
  if (isObject(ephemeral) && isObject(ephemeral['volumeClaimTemplate'])) {
    const claim = ephemeral['volumeClaimTemplate'];
    const spec = isObject(claim['spec']) ? claim['spec'] : {};
    // upstream: SetDefaults_PersistentVolumeClaimSpec
    if (unset(spec['volumeMode'])) out['ephemeral'] = {...ephemeral, volumeClaimTemplate: {...claim, spec: {...spec, volumeMode: 'Filesystem'}}};
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Pod spec, template, DaemonSet, Pod

/**
 * Defaults of a PodSpec wherever it appears (pods and pod templates): dnsPolicy ClusterFirst, restartPolicy
 * Always, securityContext {}, terminationGracePeriodSeconds 30, schedulerName default-scheduler, and the
 * container and volume defaults. Returns a new object; the input is not modified.
 */
// upstream: pkg/apis/core/v1/defaults.go SetDefaults_PodSpec; pkg/apis/apps/v1/zz_generated.defaults.go SetObjectDefaults_DaemonSet
export function defaultPodSpec(spec: PodSpec): PodSpec {
  const s = spec as JsonObject;
  const out: JsonObject = {
    ...s,
    dnsPolicy: unsetString(s['dnsPolicy']) ? 'ClusterFirst' : s['dnsPolicy'],
    restartPolicy: unsetString(s['restartPolicy']) ? 'Always' : s['restartPolicy'],
    securityContext: unset(s['securityContext']) ? {} : s['securityContext'],
    terminationGracePeriodSeconds: unset(s['terminationGracePeriodSeconds']) ? 30 : s['terminationGracePeriodSeconds'],
    schedulerName: unsetString(s['schedulerName']) ? 'default-scheduler' : s['schedulerName'],
    containers: defaultContainers(s['containers']),
  };
  for (const key of ['initContainers', 'ephemeralContainers']) if (s[key] !== undefined) out[key] = defaultContainers(s[key]);
  if (Array.isArray(s['volumes'])) out['volumes'] = s['volumes'].map(defaultVolume);
  return out as unknown as PodSpec;
}

export function defaultPodTemplateSpec(template: PodTemplateSpec): PodTemplateSpec {
  return {...template, spec: defaultPodSpec(template.spec)};
}

/**
 * A DaemonSet as the API server stores it: updateStrategy type RollingUpdate (when empty) and, for RollingUpdate,
 * rollingUpdate {maxUnavailable: 1, maxSurge: 0} for the missing budgets; revisionHistoryLimit 10; pod template
 * defaults. apps/v1 does not default the selector from the template labels (extensions/v1beta1 did) and leaves
 * minReadySeconds alone. Idempotent; the input is not modified.
 */
// upstream: pkg/apis/apps/v1/defaults.go SetDefaults_DaemonSet
export function defaultDaemonSet(ds: DaemonSet): DaemonSet {
  const strategy = ds.spec.updateStrategy ?? {};
  const type = unsetString(strategy.type) ? 'RollingUpdate' : strategy.type!;
  let updateStrategy = {...strategy, type};
  if (type === 'RollingUpdate') {
    const rollingUpdate = strategy.rollingUpdate ?? {};
    updateStrategy = {
      ...updateStrategy,
      rollingUpdate: {
        ...rollingUpdate,
        maxUnavailable: unset(rollingUpdate.maxUnavailable) ? 1 : rollingUpdate.maxUnavailable!,
        maxSurge: unset(rollingUpdate.maxSurge) ? 0 : rollingUpdate.maxSurge!,
      },
    };
  }
  return {
    ...ds,
    spec: {
      ...ds.spec,
      updateStrategy,
      revisionHistoryLimit: unset(ds.spec.revisionHistoryLimit) ? 10 : ds.spec.revisionHistoryLimit!,
      template: defaultPodTemplateSpec(ds.spec.template),
    },
  };
}

function requestsFromLimits(containers: unknown): unknown {
  if (!Array.isArray(containers)) return containers;
  return containers.map((c: unknown) => {
    if (!isObject(c) || !isObject(c['resources']) || !isObject(c['resources']['limits'])) return c;
    const resources = c['resources'];
    const requests = isObject(resources['requests']) ? resources['requests'] : {};
    // A limit without a request means request = limit.
    return {...c, resources: {...resources, requests: {...(resources['limits'] as JsonObject), ...requests}}};
  });
}

function hostPortsFromContainerPorts(containers: unknown): unknown {
  if (!Array.isArray(containers)) return containers;
  return containers.map((c: unknown) => {
    if (!isObject(c) || !Array.isArray(c['ports'])) return c;
    const ports = c['ports'].map((p: unknown) => (isObject(p) && (unset(p['hostPort']) || p['hostPort'] === 0) ? {...p, hostPort: p['containerPort']} : p));
    return {...c, ports};
  });
}

/**
 * A Pod as the API server's defaulting leaves it: the PodSpec defaults plus the pod-only ones (requests copied
 * from limits, enableServiceLinks true, with hostNetwork every container port's hostPort = containerPort).
 * Admission plugins are not modelled (see the head of this file): no priority, preemptionPolicy, service account
 * or default tolerations. Idempotent; the input is not modified.
 */
// upstream: pkg/apis/core/v1/defaults.go SetDefaults_Pod, SetDefaults_PodSpec
export function defaultPod(pod: Pod): Pod {
  const spec = defaultPodSpec(pod.spec) as JsonObject;
  const out: JsonObject = {
    ...spec,
    containers: requestsFromLimits(spec['containers']),
    enableServiceLinks: unset(spec['enableServiceLinks']) ? true : spec['enableServiceLinks'],
  };
  if (spec['initContainers'] !== undefined) out['initContainers'] = requestsFromLimits(spec['initContainers']);
  if (spec['hostNetwork'] === true) {
    out['containers'] = hostPortsFromContainerPorts(out['containers']);
    if (out['initContainers'] !== undefined) out['initContainers'] = hostPortsFromContainerPorts(out['initContainers']);
  }
  return {...pod, spec: out as unknown as PodSpec};
}

/**
 * The DaemonSet the API server stores for a create: defaulted, generation 1, template generation at least 1
 * (what the controller labels its first pods with).
 */
// upstream: pkg/registry/apps/daemonset/strategy.go PrepareForCreate; pkg/apis/apps/v1/defaults.go SetDefaults_DaemonSet
export function prepareDaemonSetCreate(ds: DaemonSet): DaemonSet {
  const defaulted = defaultDaemonSet(ds);
  const tg = Math.max(1, templateGeneration(defaulted) ?? 0);
  return {
    ...defaulted,
    metadata: {...defaulted.metadata, generation: 1, annotations: {...defaulted.metadata.annotations, [TEMPLATE_GENERATION_ANNOTATION]: String(tg)}},
  };
}

/**
 * The DaemonSet the API server stores when `next` replaces `current` (the main resource, not status): defaulted;
 * generation up by one for any spec change, template generation up by one for a template change.
 */
// upstream: pkg/registry/apps/daemonset/strategy.go PrepareForUpdate
export function prepareDaemonSetUpdate(current: DaemonSet, next: DaemonSet): DaemonSet {
  const defaulted = defaultDaemonSet(next);
  const templateChanged = !deepEqualJson(current.spec.template, defaulted.spec.template, {nullAsAbsent: true});
  const specChanged = templateChanged || !deepEqualJson(current.spec, defaulted.spec, {nullAsAbsent: true});
  const tg = templateGeneration(current) ?? 0;
  const generation = (current.metadata.generation ?? 1) + (specChanged ? 1 : 0);
  return {
    ...defaulted,
    metadata: {
      ...defaulted.metadata,
      generation,
      annotations: {...defaulted.metadata.annotations, [TEMPLATE_GENERATION_ANNOTATION]: String(templateChanged ? tg + 1 : tg)},
    },
  };
}
