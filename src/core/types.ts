// Plain, readonly shapes for everything the reconcile core reads and decides.
// Inputs are subsets of the Kubernetes JSON objects with the API's own field names, so objects read
// from the API or from `kubectl get -o yaml` can be passed in as they are. Times are RFC3339 strings
// (as on the wire); the core's own clock is a number of milliseconds since the epoch, always a parameter.
import type {Revision} from './revision-number.js';

/** An object of a read-only type while it is being built, field by field, before it is handed out. */
export type Mutable<T> = {-readonly [K in keyof T]: T[K]};

export type Labels = Readonly<Record<string, string>>;

export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  readonly name: string;
  readonly generateName?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly generation?: number;
  readonly creationTimestamp?: string;
  readonly deletionTimestamp?: string;
  readonly deletionGracePeriodSeconds?: number;
  readonly labels?: Labels;
  readonly annotations?: Labels;
  readonly ownerReferences?: readonly OwnerReference[];
  readonly finalizers?: readonly string[];
  /** Who last set which fields, and when (server-side field management); read only to date a change. */
  readonly managedFields?: readonly ManagedFieldsEntry[];
}

export interface ManagedFieldsEntry {
  readonly manager?: string;
  readonly operation?: string;
  /** RFC3339: when this manager last changed a field it owns. */
  readonly time?: string;
  readonly fieldsType?: string;
  readonly fieldsV1?: unknown;
}

export interface LabelSelectorRequirement {
  readonly key: string;
  readonly operator: string; // In | NotIn | Exists | DoesNotExist
  readonly values?: readonly string[];
}

export interface LabelSelector {
  readonly matchLabels?: Labels;
  readonly matchExpressions?: readonly LabelSelectorRequirement[];
}

export interface NodeSelectorRequirement {
  readonly key: string;
  readonly operator: string; // In | NotIn | Exists | DoesNotExist | Gt | Lt
  readonly values?: readonly string[];
}

export interface NodeSelectorTerm {
  readonly matchExpressions?: readonly NodeSelectorRequirement[];
  readonly matchFields?: readonly NodeSelectorRequirement[];
}

export interface NodeSelector {
  readonly nodeSelectorTerms: readonly NodeSelectorTerm[];
}

export interface NodeAffinity {
  readonly requiredDuringSchedulingIgnoredDuringExecution?: NodeSelector;
  readonly preferredDuringSchedulingIgnoredDuringExecution?: readonly unknown[];
}

export interface Affinity {
  readonly nodeAffinity?: NodeAffinity;
  readonly podAffinity?: unknown;
  readonly podAntiAffinity?: unknown;
}

export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: string; // NoSchedule | PreferNoSchedule | NoExecute
  readonly timeAdded?: string;
}

export interface Toleration {
  readonly key?: string;
  readonly operator?: string; // Exists | Equal (empty means Equal)
  readonly value?: string;
  readonly effect?: string;
  readonly tolerationSeconds?: number;
}

export interface ContainerPort {
  readonly containerPort: number;
  readonly hostPort?: number;
  readonly protocol?: string;
  readonly name?: string;
}

export interface Container {
  readonly name: string;
  readonly image?: string;
  readonly ports?: readonly ContainerPort[];
  readonly [field: string]: unknown;
}

export interface PodSpec {
  readonly nodeName?: string;
  readonly nodeSelector?: Labels;
  readonly affinity?: Affinity;
  readonly tolerations?: readonly Toleration[];
  readonly hostNetwork?: boolean;
  readonly containers: readonly Container[];
  readonly initContainers?: readonly Container[];
  readonly terminationGracePeriodSeconds?: number;
  readonly [field: string]: unknown;
}

export interface PodCondition {
  readonly type: string;
  readonly status: string; // True | False | Unknown
  readonly lastTransitionTime?: string;
  readonly reason?: string;
  readonly message?: string;
}

export interface ContainerState {
  readonly waiting?: {readonly reason?: string; readonly message?: string};
  readonly running?: {readonly startedAt?: string};
  readonly terminated?: {readonly reason?: string; readonly exitCode?: number; readonly message?: string};
}

export interface ContainerStatus {
  readonly name: string;
  readonly ready: boolean;
  readonly restartCount: number;
  readonly image?: string;
  readonly started?: boolean;
  readonly state?: ContainerState;
  readonly lastState?: ContainerState;
}

export interface PodStatus {
  readonly phase?: string; // Pending | Running | Succeeded | Failed | Unknown
  readonly conditions?: readonly PodCondition[];
  readonly containerStatuses?: readonly ContainerStatus[];
  readonly initContainerStatuses?: readonly ContainerStatus[];
  readonly reason?: string;
  readonly message?: string;
  readonly startTime?: string;
  readonly hostIP?: string;
  readonly podIP?: string;
}

export interface Pod {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: ObjectMeta;
  readonly spec: PodSpec;
  readonly status?: PodStatus;
}

export interface PodTemplateSpec {
  readonly metadata?: {
    readonly labels?: Labels;
    readonly annotations?: Labels;
    readonly [field: string]: unknown;
  };
  readonly spec: PodSpec;
}

export type IntOrString = number | string;

export interface RollingUpdateDaemonSet {
  readonly maxUnavailable?: IntOrString;
  readonly maxSurge?: IntOrString;
}

export interface DaemonSetUpdateStrategy {
  readonly type?: string; // RollingUpdate | OnDelete
  readonly rollingUpdate?: RollingUpdateDaemonSet;
}

export interface DaemonSetSpec {
  readonly selector?: LabelSelector;
  readonly template: PodTemplateSpec;
  readonly updateStrategy?: DaemonSetUpdateStrategy;
  readonly minReadySeconds?: number;
  readonly revisionHistoryLimit?: number;
}

/** The seven counters the controller writes, with the API's field names. */
export interface DaemonSetStatusCounters {
  readonly desiredNumberScheduled: number;
  readonly currentNumberScheduled: number;
  readonly numberMisscheduled: number;
  readonly numberReady: number;
  readonly updatedNumberScheduled: number;
  readonly numberAvailable: number;
  readonly numberUnavailable: number;
}

export interface DaemonSetStatus extends Partial<DaemonSetStatusCounters> {
  readonly observedGeneration?: number;
  readonly collisionCount?: number;
  readonly conditions?: readonly unknown[];
}

export interface DaemonSet {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: ObjectMeta;
  readonly spec: DaemonSetSpec;
  readonly status?: DaemonSetStatus;
}

export interface ControllerRevision {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: ObjectMeta;
  readonly data?: unknown;
  readonly revision: Revision;
}

export interface NodeCondition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
  readonly lastTransitionTime?: string;
}

export interface Node {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: ObjectMeta;
  readonly spec?: {
    readonly taints?: readonly Taint[];
    readonly unschedulable?: boolean;
    readonly [field: string]: unknown;
  };
  readonly status?: {
    readonly conditions?: readonly NodeCondition[];
    readonly [field: string]: unknown;
  };
}

/** Everything one sync of the DaemonSet controller looks at. */
export interface ClusterState {
  readonly daemonSet: DaemonSet;
  /** Every node of the cluster (the controller lists all of them, unfiltered). */
  readonly nodes: readonly Node[];
  /** Every pod of the DaemonSet's namespace: the claim rules decide which ones are daemon pods. */
  readonly pods: readonly Pod[];
  /** Every ControllerRevision of the DaemonSet's namespace. */
  readonly revisions: readonly ControllerRevision[];
}

// ---------------------------------------------------------------------------------------------
// Decisions

/** Why a pod is deleted: one value per upstream code path (docs/design/reconcile.md §16). */
export type DeleteReason =
  'failed' | 'succeeded' | 'surplus' | 'surge-extra' | 'old-unready' | 'replaced' | 'not-eligible' | 'orphaned-unscheduled' | 'outdated' | 'retired';

export interface PodCreation {
  readonly node: string;
}

export interface PodDeletion {
  readonly pod: string;
  readonly node: string;
  readonly reason: DeleteReason;
  /** Preconditions for the DELETE call, so a pod that changed meanwhile is never deleted blindly. */
  readonly uid?: string;
  readonly resourceVersion?: string;
  /**
   * The node is not Ready: the pod stays terminating until it is Ready again (only its kubelet confirms the
   * deletion), and the node counts against maxUnavailable until then. In a plan, present only when true.
   */
  readonly staysTerminating?: boolean;
}

export interface SyncActions {
  readonly create: readonly PodCreation[];
  readonly delete: readonly PodDeletion[];
}

/** Eligibility of one node for the DaemonSet (upstream NodeShouldRunDaemonPod), plus a human reason. */
export interface NodeEligibility {
  readonly shouldRun: boolean;
  readonly shouldContinueRunning: boolean;
  /** Empty when both are true; otherwise why not, e.g. `taint dedicated=gpu:NoSchedule not tolerated`. */
  readonly reason: string;
  /** The untolerated taint that keeps the daemon off the node, when that is the reason. */
  readonly taint?: Taint;
}

/** Budgets after scaling against desiredNumberScheduled and the both-zero fallback (docs/design/reconcile.md §8.1). */
export interface RolloutBudgets {
  readonly maxUnavailable: number;
  readonly maxSurge: number;
  /** Both scaled to 0 with nodes to run on: the controller uses maxUnavailable 1 instead (docs/design/reconcile.md §8.1). */
  readonly bothZeroFallback?: true;
}

export interface CoreEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

// ---------------------------------------------------------------------------------------------
// The plan (docs/design/plan-contract.md): what ds-plan prints, step executes and the dashboard shows.

export interface RevisionRef {
  readonly revision: Revision;
  readonly hash: string;
  /** The ControllerRevision's name, when it exists. */
  readonly name?: string;
}

export interface UpdateRevisionRef extends RevisionRef {
  /** False when the controller would have to create it (then `hash` is the planner's stand-in). */
  readonly exists: boolean;
}

export interface PodSummary {
  readonly name: string;
  readonly hash: string;
  readonly updated: boolean;
  readonly ready: boolean;
  readonly available: boolean;
  readonly terminating: boolean;
  readonly phase: string;
  /** A container's waiting/terminated reason worth showing (CrashLoopBackOff, ImagePullBackOff, ...). */
  readonly problem?: string;
}

/**
 * How a node stands in the rollout, from a person's point of view:
 * updated (one updated available pod), updating (updated pod not yet available), old (only an old pod),
 * surging (old and new pods side by side), missing (should run, has no pod), misscheduled (has pods, should not run),
 * not-eligible (no pod, should not run), terminating (only terminating pods).
 */
export type NodeRolloutState = 'updated' | 'updating' | 'old' | 'surging' | 'missing' | 'misscheduled' | 'not-eligible' | 'terminating';

export interface NodePlan {
  readonly name: string;
  readonly shouldRun: boolean;
  readonly shouldContinueRunning: boolean;
  readonly reason: string;
  readonly state: NodeRolloutState;
  /** Why this node holds the rollout back, if it does (e.g. `pod fluentd-x is not ready: CrashLoopBackOff`). */
  readonly blocker?: string;
  /** A warning about this node that does not hold the rollout back (e.g. it loses its daemon pod). */
  readonly warning?: string;
  /** 1-based index of the wave that changes this node, if any. */
  readonly wave?: number;
  readonly pods: readonly PodSummary[];
}

export interface Wave extends SyncActions {
  /** Seconds after `now` at which this sync happens in the simulation (created pods become available after minReadySeconds). */
  readonly at: number;
}

export type BlockerKind =
  | 'budget-exhausted'
  | 'pod-unavailable'
  | 'untolerated-taint'
  | 'node-loses-daemon'
  | 'pod-terminating'
  | 'host-port-surge'
  | 'on-delete'
  | 'rolling-update-error'
  | 'being-deleted'
  | 'selects-all'
  | 'not-admissible'
  | 'unmodelled-version'
  | 'unpaused';

export interface Blocker {
  readonly kind: BlockerKind;
  readonly message: string;
  readonly nodes?: readonly string[];
}

/** A DaemonSet paused by `ds-rollout pause`: OnDelete, with its RollingUpdate settings recorded in an annotation. */
export interface PausedInfo {
  readonly by: 'ds-rollout';
  /** RFC3339. */
  readonly pausedAt: string;
  /** The recorded strategy as written (percentages stay percentages); `resume` restores it. */
  readonly strategy: {readonly type: 'RollingUpdate'; readonly maxUnavailable: IntOrString; readonly maxSurge: IntOrString};
  /** The recorded budgets scaled against the nodes that should run the daemon now. */
  readonly budgets: RolloutBudgets;
  /** Waves `ds-rollout step` has run since the pause. */
  readonly steps: number;
}

export interface RolloutPlan {
  readonly kind: 'DaemonSetRolloutPlan';
  /** The Kubernetes version whose DaemonSet controller the plan models, e.g. "1.20". */
  readonly controllerVersion: string;
  readonly daemonSet: {readonly namespace: string; readonly name: string};
  readonly strategy: {readonly type: string} & RolloutBudgets;
  readonly revisions: {readonly current: RevisionRef; readonly update: UpdateRevisionRef};
  readonly status: DaemonSetStatusCounters;
  readonly nodes: readonly NodePlan[];
  readonly nextSync: SyncActions;
  readonly waves: readonly Wave[];
  readonly complete: boolean;
  /** False when the waves stop before the rollout is complete (something blocks it). */
  readonly converges: boolean;
  /** What stops the rollout short of complete (empty when it converges). */
  readonly blockers: readonly Blocker[];
  /** What a person should know although it does not stop the rollout: nodes left without the daemon, hazards. */
  readonly warnings: readonly Blocker[];
  /** One-line remarks a person should read: arbitrary choices made by node name, model caveats, assumptions. */
  readonly notes: readonly string[];
  /** Present when `ds-rollout pause` paused the DaemonSet (then `strategy.type` is OnDelete). */
  readonly paused?: PausedInfo;
  /** What the wave times are based on, and when the rollout completes (present when the plan was given pod timings). */
  readonly timing?: PlanTiming;
  /** Present while a gated rollout (`step --canary ...`) is under way: its stage, phase and bake countdown. */
  readonly gated?: GatedProgress;
  /** Who uses the rolling update's budget now (the recorded one while paused; limits of 0 for plain OnDelete). */
  readonly budget: BudgetInUse;
}

/** One duration the plan's times use, and what it rests on. */
export interface TimingEstimate {
  readonly seconds: number;
  /** observed: the median of this DaemonSet's pods; assumed: the default; given: ds-plan --pod-start. */
  readonly basis: 'observed' | 'assumed' | 'given';
  readonly observations: number;
}

export interface PlanTiming {
  /** Seconds from now until the rollout is complete (the last new pod available, the last deletion done); absent when it does not converge or is complete. */
  readonly etaSeconds?: number;
  /** Creation to Ready of a new pod. */
  readonly podStart: TimingEstimate;
  /** Deletion to gone of an old pod. */
  readonly podDeletion: TimingEstimate;
}

// ---------------------------------------------------------------------------------------------------------------
// Shapes the plan and the gated rollout share (gates.ts and budget-use.ts decide them; types.ts imports neither)

/**
 * `aborting`: on its way back to the revision it started from (a rerun of abort continues); `abandoned`: ended by
 * `resume --force` or by the DaemonSet no longer being paused before it completed.
 */
export type GatedPhase =
  | 'rolling'
  | 'baking'
  | 'awaiting-approval'
  | 'failed'
  | 'aborting'
  | 'complete'
  | 'aborted'
  | 'abandoned'
  /** Someone else changed the template (neither the release nor, during an abort, the origin). */
  | 'superseded';

/** Which gate judged: the new revision's pods, their nodes, other workloads' pods on them, or a metric query. */
export type GateKind = 'pod' | 'node' | 'neighbour' | 'metric';

export interface GateFailure {
  readonly pod: string;
  readonly node: string;
  readonly reason: string;
  /** Absent in records written before there were other gates: the pod gate. */
  readonly gate?: GateKind;
}

/** One gate's current value against its bound, as status, the dashboard and the record show it. */
export interface GateReading {
  readonly gate: GateKind;
  /** The gate's name as the user knows it: `pods`, `nodes`, `neighbours`, or a metric query's name. */
  readonly name: string;
  readonly value: string;
  readonly bound: string;
  readonly verdict: 'pass' | 'fail' | 'inconclusive' | 'pending';
}

/** What status, ds-plan and the dashboard show: the stage, the phase and, while baking, the time left. */
export interface GatedProgress {
  readonly stage: number;
  readonly stages: number;
  readonly name: string;
  readonly phase: GatedPhase;
  /** While baking: seconds left on the server's clock. */
  readonly bakeLeftSeconds?: number;
  readonly failures: readonly GateFailure[];
  /** Each gate's last reading as the record has it (absent: none written yet). */
  readonly readings?: readonly GateReading[];
  /** The Job driving it (`--detach`), when the DaemonSet names one for this rollout's template. */
  readonly job?: string;
  /** `superseded`: the template someone else set, by revision number (or by hash before its revision exists). */
  readonly supersededBy?: {readonly revision: Revision} | {readonly hash: string};
}

/** Where in a strategy file a problem is: keys and list indexes. */
export type StrategyPath = readonly (string | number)[];

export interface StrategyProblem {
  readonly path: StrategyPath;
  readonly message: string;
}

/** A node the rolling update counts against its budget, and whether it can be expected to clear by itself. */
export interface BudgetUse {
  readonly node: string;
  readonly reason: string;
  /** True when the node is on its way to an available pod (starting, minReadySeconds, a deletion finishing). */
  readonly settling: boolean;
  /** For a ready pod waiting out minReadySeconds: when it becomes available (server clock, epoch ms). */
  readonly availableAt?: number;
}

/** One budget: its size and the nodes the controller counts against it. */
export interface BudgetCount {
  /** The budget scaled against the nodes that should run the daemon (the recorded one while paused). */
  readonly limit: number;
  /** How many nodes the controller counts against it now. */
  readonly used: number;
  /** Those nodes, by name. */
  readonly nodes: readonly BudgetUse[];
}

/** Both budgets, counted as the rolling update counts them; `spends` is the one it spends (maxSurge when above zero). */
export interface BudgetInUse {
  readonly spends: 'maxUnavailable' | 'maxSurge';
  readonly maxUnavailable: BudgetCount;
  readonly maxSurge: BudgetCount;
}
