// Node eligibility: may this DaemonSet run a pod on this node (upstream NodeShouldRunDaemonPod), plus the
// toleration, taint and node-affinity rules it is made of and the affinity helpers used by created pods.
import {isValidLabelKey, isValidLabelValue} from './selectors.js';
import type {Affinity, DaemonSet, Labels, Node, NodeEligibility, NodeSelectorRequirement, NodeSelectorTerm, Pod, PodSpec, Taint, Toleration} from './types.js';

export interface EligibilityOptions {
  /** Feature gate TaintTolerationComparisonOperators (alpha, 1.35+, off by default): enables `Lt`/`Gt` tolerations. */
  readonly taintTolerationComparisonOperators?: boolean;
}

const NO_SCHEDULE = 'NoSchedule';
const NO_EXECUTE = 'NoExecute';

// ---------------------------------------------------------------------------------------------
// Tolerations

// The order is upstream's: the two NoExecute ones first, network-unavailable last and only with hostNetwork.
const DEFAULT_DAEMON_TOLERATIONS: readonly Toleration[] = [
  {key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: NO_EXECUTE},
  {key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: NO_EXECUTE},
  {key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: NO_SCHEDULE},
  {key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: NO_SCHEDULE},
  {key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: NO_SCHEDULE},
  {key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: NO_SCHEDULE},
];
const HOST_NETWORK_TOLERATION: Toleration = {key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: NO_SCHEDULE};

// upstream: staging/src/k8s.io/api/core/v1/toleration.go Toleration.MatchToleration
function sameToleration(a: Toleration, b: Toleration): boolean {
  return (
    (a.key ?? '') === (b.key ?? '') && (a.effect ?? '') === (b.effect ?? '') && (a.operator ?? '') === (b.operator ?? '') && (a.value ?? '') === (b.value ?? '')
  );
}

// upstream: pkg/apis/core/v1/helper/helpers.go AddOrUpdateTolerationInPodSpec
function addOrUpdateToleration(list: readonly Toleration[], toleration: Toleration): readonly Toleration[] {
  let matched = false;
  for (const t of list) {
    if (!sameToleration(t, toleration)) continue;
    // An identical entry anywhere means "already there": nothing changes.
    if (t.tolerationSeconds === toleration.tolerationSeconds) return list;
    matched = true;
  }
  // A same-key/operator/value/effect entry with a different tolerationSeconds is overwritten in place,
  // so a daemon pod always tolerates these conditions forever.
  if (matched) return list.map((t) => (sameToleration(t, toleration) ? toleration : t));
  return [...list, toleration];
}

/**
 * The template's tolerations followed by the default daemon tolerations it lacks (docs/design/reconcile.md §4.4).
 * A template entry equal to a default except for tolerationSeconds is replaced in place by the default.
 */
// upstream: pkg/controller/daemon/util/daemonset_util.go AddOrUpdateDaemonPodTolerations
export function addOrUpdateDaemonPodTolerations(tolerations: readonly Toleration[] | undefined, hostNetwork: boolean): Toleration[] {
  let list: readonly Toleration[] = tolerations ?? [];
  for (const d of DEFAULT_DAEMON_TOLERATIONS) list = addOrUpdateToleration(list, d);
  if (hostNetwork) list = addOrUpdateToleration(list, HOST_NETWORK_TOLERATION);
  return [...list];
}

const INT64 = /^[+-]?[0-9]+$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go's strconv.ParseInt(s, 10, 64), or undefined when it would fail. */
function parseInt64(text: string): bigint | undefined {
  if (!INT64.test(text)) return undefined;
  const n = BigInt(text);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

// upstream: staging/src/k8s.io/api/core/v1/toleration.go Toleration.ToleratesTaint
export function toleratesTaint(toleration: Toleration, taint: Taint, options: EligibilityOptions = {}): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? '') {
    case '':
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    case 'Lt':
    case 'Gt': {
      if (!options.taintTolerationComparisonOperators) return false;
      const limit = parseInt64(toleration.value ?? '');
      const actual = parseInt64(taint.value ?? '');
      if (limit === undefined || actual === undefined) return false;
      return toleration.operator === 'Lt' ? actual < limit : actual > limit;
    }
    default:
      return false;
  }
}

/** The first taint (in the node's order) whose effect is in `effects` and that no toleration tolerates. */
// upstream: staging/src/k8s.io/component-helpers/scheduling/corev1/helpers.go FindMatchingUntoleratedTaint
export function findMatchingUntoleratedTaint(
  taints: readonly Taint[] | undefined,
  tolerations: readonly Toleration[] | undefined,
  effects: readonly string[],
  options: EligibilityOptions = {},
): Taint | undefined {
  for (const taint of taints ?? []) {
    if (!effects.includes(taint.effect)) continue;
    if (!(tolerations ?? []).some((t) => toleratesTaint(t, taint, options))) return taint;
  }
  return undefined;
}

/** kubectl's taint notation: `key=value:Effect`, or `key:Effect` without a value. */
export function formatTaint(taint: Taint): string {
  return taint.value ? `${taint.key}=${taint.value}:${taint.effect}` : `${taint.key}:${taint.effect}`;
}

// What the well-known node-lifecycle taints mean, so a reason names the node condition behind them.
const TAINT_HINTS: Readonly<Record<string, string>> = {
  'node.kubernetes.io/not-ready': 'node not ready',
  'node.kubernetes.io/unreachable': 'node unreachable',
  'node.kubernetes.io/unschedulable': 'node cordoned',
  'node.kubernetes.io/disk-pressure': 'disk pressure',
  'node.kubernetes.io/memory-pressure': 'memory pressure',
  'node.kubernetes.io/pid-pressure': 'PID pressure',
  'node.kubernetes.io/network-unavailable': 'network unavailable',
  'node.kubernetes.io/out-of-service': 'node out of service',
  'node.cloudprovider.kubernetes.io/uninitialized': 'cloud provider has not initialized the node',
};

function untoleratedReason(taint: Taint): string {
  const hint = TAINT_HINTS[taint.key];
  return `taint ${formatTaint(taint)} is not tolerated${hint ? ` (${hint})` : ''}`;
}

// ---------------------------------------------------------------------------------------------
// Node affinity

type LabelTest = (labels: Labels | undefined) => boolean;
type NodeTest = (node: Node) => boolean;

function labelOf(labels: Labels | undefined, key: string): string | undefined {
  return labels !== undefined && Object.prototype.hasOwnProperty.call(labels, key) ? labels[key] : undefined;
}

/** A compiled matchExpressions requirement, or undefined when the API's parser would reject it. */
// upstream: staging/src/k8s.io/apimachinery/pkg/labels/selector.go NewRequirement / Requirement.Matches
function compileLabelRequirement(req: NodeSelectorRequirement): LabelTest | undefined {
  const key = req.key;
  const values = req.values ?? [];
  if (!isValidLabelKey(key) || !values.every(isValidLabelValue)) return undefined;
  switch (req.operator) {
    case 'In':
    case 'NotIn': {
      if (values.length === 0) return undefined;
      const set = new Set(values);
      return req.operator === 'In'
        ? (labels) => {
            const v = labelOf(labels, key);
            return v !== undefined && set.has(v);
          }
        : (labels) => {
            const v = labelOf(labels, key);
            return v === undefined || !set.has(v);
          };
    }
    case 'Exists':
      return values.length === 0 ? (labels) => labelOf(labels, key) !== undefined : undefined;
    case 'DoesNotExist':
      return values.length === 0 ? (labels) => labelOf(labels, key) === undefined : undefined;
    case 'Gt':
    case 'Lt': {
      const limit = values.length === 1 ? parseInt64(values[0]!) : undefined;
      if (limit === undefined) return undefined;
      const greater = req.operator === 'Gt';
      return (labels) => {
        const v = labelOf(labels, key);
        const n = v === undefined ? undefined : parseInt64(v);
        if (n === undefined) return false;
        return greater ? n > limit : n < limit;
      };
    }
    default:
      return undefined;
  }
}

/** A compiled matchFields requirement: In / NotIn with exactly one value; other operators are invalid. */
// upstream: staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go nodeSelectorRequirementsAsFieldSelector
function compileFieldRequirement(req: NodeSelectorRequirement): ((fieldValue: (key: string) => string) => boolean) | undefined {
  const values = req.values ?? [];
  if ((req.operator !== 'In' && req.operator !== 'NotIn') || values.length !== 1) return undefined;
  const wanted = values[0]!;
  const key = req.key;
  // Like upstream's field set, a field other than metadata.name reads as "" (API validation forbids it anyway).
  return req.operator === 'In' ? (get) => get(key) === wanted : (get) => get(key) !== wanted;
}

/** A compiled term, or undefined if it is empty or invalid (both never match). */
// upstream: staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go newNodeSelectorTerm
function compileTerm(term: NodeSelectorTerm): NodeTest | undefined {
  const expressions = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (expressions.length === 0 && fields.length === 0) return undefined;
  const labelTests: LabelTest[] = [];
  for (const req of expressions) {
    const test = compileLabelRequirement(req);
    if (test === undefined) return undefined;
    labelTests.push(test);
  }
  const fieldTests: ((get: (key: string) => string) => boolean)[] = [];
  for (const req of fields) {
    const test = compileFieldRequirement(req);
    if (test === undefined) return undefined;
    fieldTests.push(test);
  }
  return (node) => {
    const labels = node.metadata.labels;
    for (const test of labelTests) if (!test(labels)) return false;
    // Upstream skips field requirements for a node without a name (its field set is empty).
    if (fieldTests.length > 0 && node.metadata.name) {
      const name = node.metadata.name;
      const get = (key: string): string => (key === 'metadata.name' ? name : '');
      for (const test of fieldTests) if (!test(get)) return false;
    }
    return true;
  };
}

function compileTerms(terms: readonly NodeSelectorTerm[]): NodeTest {
  const compiled = terms.map(compileTerm).filter((t): t is NodeTest => t !== undefined);
  if (compiled.length === 0) return () => false;
  return (node) => compiled.some((test) => test(node));
}

/** Terms ORed; empty and invalid terms never match, so no valid term means no node matches. */
// upstream: staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go LazyErrorNodeSelector.Match
export function nodeMatchesNodeSelectorTerms(node: Node, terms: readonly NodeSelectorTerm[]): boolean {
  return compileTerms(terms)(node);
}

interface CompiledRequiredAffinity {
  /** The nodeSelector pairs, in key order. */
  readonly nodeSelector: readonly (readonly [string, string])[];
  readonly affinity: NodeTest | undefined;
}

function compileRequiredAffinity(spec: PodSpec): CompiledRequiredAffinity {
  const nodeSelector = Object.entries(spec.nodeSelector ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const required = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  return {nodeSelector, affinity: required === undefined ? undefined : compileTerms(required.nodeSelectorTerms ?? [])};
}

function unmatchedNodeSelector(compiled: CompiledRequiredAffinity, node: Node): readonly (readonly [string, string])[] {
  const labels = node.metadata.labels;
  // A list only for a node that does not match: asked of every node, which nearly always does.
  let unmatched: (readonly [string, string])[] | undefined;
  for (let i = 0; i < compiled.nodeSelector.length; i++) {
    const pair = compiled.nodeSelector[i]!;
    if (labelOf(labels, pair[0]) !== pair[1]) (unmatched ??= []).push(pair);
  }
  return unmatched ?? NO_PAIRS;
}

const NO_PAIRS: readonly (readonly [string, string])[] = [];

/** nodeSelector AND required node affinity (a pod without either fits every node). */
// upstream: staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go GetRequiredNodeAffinity(...).Match
export function requiredNodeAffinityMatches(spec: PodSpec, node: Node): boolean {
  const compiled = compileRequiredAffinity(spec);
  return unmatchedNodeSelector(compiled, node).length === 0 && (compiled.affinity === undefined || compiled.affinity(node));
}

// ---------------------------------------------------------------------------------------------
// NodeShouldRunDaemonPod

const RUN: NodeEligibility = {shouldRun: true, shouldContinueRunning: true, reason: ''};
const SCHEDULE_EFFECTS: readonly string[] = [NO_SCHEDULE, NO_EXECUTE];

/**
 * Compiles everything that depends only on the DaemonSet (tolerations incl. defaults, nodeSelector,
 * affinity terms) once, and returns the per-node check. Use it when checking many nodes.
 */
// upstream: pkg/controller/daemon/daemon_controller.go NodeShouldRunDaemonPod
export function eligibilityCheckerFor(ds: DaemonSet, options: EligibilityOptions = {}): (node: Node) => NodeEligibility {
  const spec = ds.spec.template.spec;
  const pinnedTo = spec.nodeName ?? '';
  // The hypothetical pod (upstream NewPod) carries the default daemon tolerations.
  const tolerations = addOrUpdateDaemonPodTolerations(spec.tolerations, spec.hostNetwork === true);
  const required = compileRequiredAffinity(spec);

  return (node) => {
    const name = node.metadata.name;
    if (pinnedTo !== '' && pinnedTo !== name) {
      return {shouldRun: false, shouldContinueRunning: false, reason: `nodeName pins the template to ${pinnedTo}`};
    }
    // upstream predicates(): node affinity, then taints
    const unmatched = unmatchedNodeSelector(required, node);
    if (unmatched.length > 0) {
      return {shouldRun: false, shouldContinueRunning: false, reason: `nodeSelector ${unmatched.map(([k, v]) => `${k}=${v}`).join(',')} does not match`};
    }
    if (required.affinity !== undefined && !required.affinity(node)) {
      return {shouldRun: false, shouldContinueRunning: false, reason: 'required node affinity does not match'};
    }
    const taints = node.spec?.taints;
    if (taints === undefined || taints.length === 0) return RUN;
    const blocking = findMatchingUntoleratedTaint(taints, tolerations, SCHEDULE_EFFECTS, options);
    if (blocking === undefined) return RUN;
    // A running pod only has to leave when a NoExecute taint is untolerated; NoSchedule only stops new pods.
    const evicting = findMatchingUntoleratedTaint(taints, tolerations, [NO_EXECUTE], options);
    if (evicting !== undefined) return {shouldRun: false, shouldContinueRunning: false, reason: untoleratedReason(evicting), taint: evicting};
    return {shouldRun: false, shouldContinueRunning: true, reason: untoleratedReason(blocking), taint: blocking};
  };
}

/** Eligibility of one node; for many nodes build the checker once with eligibilityCheckerFor. */
// upstream: pkg/controller/daemon/daemon_controller.go NodeShouldRunDaemonPod
export function nodeShouldRunDaemonPod(node: Node, ds: DaemonSet, options: EligibilityOptions = {}): NodeEligibility {
  return eligibilityCheckerFor(ds, options)(node);
}

// ---------------------------------------------------------------------------------------------
// Target node of a daemon pod

/**
 * spec.nodeName, else the single value of the first `matchFields metadata.name In` requirement of the
 * required node affinity terms. Undefined when neither exists or that requirement has != 1 values.
 */
// upstream: pkg/controller/daemon/util/daemonset_util.go GetTargetNodeName
export function getTargetNodeName(pod: Pod): string | undefined {
  if (pod.spec.nodeName) return pod.spec.nodeName;
  const terms = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  for (const term of terms) {
    for (const req of term.matchFields ?? []) {
      if (req.key === 'metadata.name' && req.operator === 'In') {
        // Upstream gives up at the first such requirement rather than looking further.
        return req.values?.length === 1 ? req.values[0] : undefined;
      }
    }
  }
  return undefined;
}

/**
 * The affinity of a created daemon pod: required node affinity replaced by one term
 * `matchFields metadata.name In [nodeName]`; preferred terms and pod (anti-)affinity kept. Returns a new object.
 */
// upstream: pkg/controller/daemon/util/daemonset_util.go ReplaceDaemonSetPodNodeNameNodeAffinity
export function replaceDaemonSetPodNodeNameNodeAffinity(affinity: Affinity | undefined, nodeName: string): Affinity {
  const required = {nodeSelectorTerms: [{matchFields: [{key: 'metadata.name', operator: 'In', values: [nodeName]}]}]};
  return {
    ...(affinity ?? {}),
    nodeAffinity: {...(affinity?.nodeAffinity ?? {}), requiredDuringSchedulingIgnoredDuringExecution: required},
  };
}
