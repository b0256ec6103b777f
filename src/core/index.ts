// The only entry point other layers import from the reconcile core.
export * from './types.js';
export {STARTING_GRACE_MS, isNodeReady, isPodAvailable, isPodReady, isPodStarting, isTerminatingOnTime, podAvailableAt, podProblem} from './availability.js';
export {allowsSurge, getScaledValueFromIntOrPercent, rolloutBudgets, surgeCount, unavailableCount, validateRollingUpdate} from './budgets.js';
export {claimObjects, getControllerOf} from './claim.js';
export {addOrUpdateDaemonPodTolerations, getTargetNodeName, nodeShouldRunDaemonPod} from './eligibility.js';
export {type PlanOptions, planRollout} from './plan.js';
export {type ObservedPlanOptions, planObserved} from './observed-plan.js';
export {
  type InFlight,
  type NodeStatus,
  type NodeStatusState,
  type RolloutStatusReport,
  type RolloutVerdict,
  kubectlStatusMessage,
  nodeOfPod,
  rolloutReport,
  STATUS_KEYS,
} from './report.js';
export {CONTROLLER_REVISION_HASH_LABEL, isPodUpdated, newDaemonPod, TEMPLATE_GENERATION_ANNOTATION, templateGeneration} from './pod-template.js';
export {comparePodsByCreationTimestampAndPhase} from './pod-order.js';
export {formatLabelSelector, isEmptyLabelSelector, labelSelectorMatches, parseLabelSelector} from './selectors.js';
export {computeDaemonSetStatus} from './status.js';
export {type SyncOptions, type SyncResult, prepareReconcile, syncDaemonSet} from './sync.js';
export {canonicalJson, deepEqualJson, stripNulls} from './canonical-json.js';
export {defaultDaemonSet, defaultPod, defaultPodSpec, prepareDaemonSetCreate, prepareDaemonSetUpdate} from './defaults.js';
export {
  type HistoryDecision,
  computeTemplateHash,
  constructHistory,
  controlledRevisions,
  currentRevisionOf,
  maxRevision,
  textHash,
  revisionChangeCause,
  revisionData,
  revisionHash,
  revisionMatchesTemplate,
  templateOfRevision,
} from './revisions.js';
export {
  canonicalRevision,
  compareRevisions,
  higherRevision,
  INT64_MAX,
  jsonText,
  nextRevision,
  restoreExactRevisions,
  type Revision,
  revisionFromDigits,
} from './revision-number.js';
export {
  type FieldError,
  formatFieldError,
  formatInvalid,
  isToleratedByController,
  TOTAL_ANNOTATION_SIZE_LIMIT_BYTES,
  validateAnnotationsSize,
  validateControllerRevision,
  validateDaemonSet,
  validateDaemonSetUpdate,
  validateNamespace,
  validateNode,
  validatePod,
} from './validation.js';
export {
  type DecodedKind,
  type InputObject,
  type ReadObject,
  type StoredObjects,
  type StoredObjectsRead,
  decodeObject,
  valueErrorsOf,
  isDecodedKind,
  readStoredObject,
  readStoredObjects,
  summarizeFieldErrors,
} from './decode.js';
export {formatRfc3339, isRfc3339Time, parseRfc3339Time} from './rfc3339.js';
export {
  CHANGE_CAUSE_ANNOTATION,
  PAUSED_STRATEGY_ANNOTATION,
  type MergePatch,
  type ParsedRecord,
  type PauseDecision,
  type PausedStrategy,
  type PauseState,
  type RecordedRollingUpdate,
  type ResumeDecision,
  formatPausedStrategy,
  pauseBody,
  pauseDecision,
  pausedInfoOf,
  pausedStrategyOf,
  pauseStateOf,
  resumeBody,
  resumeDecision,
  unpausedWarning,
  DS_ROLLOUT_FIELD_MANAGER,
  withStrategy,
} from './pause.js';
export {
  type LandingState,
  type NodeLanding,
  type StepBudget,
  type StepDeletion,
  type StepEvent,
  type StepProblem,
  type StepWave,
  type StepWaveOptions,
  type StepWavePlan,
  type TemplateKey,
  type WaveLanding,
  landingWords,
  planStepWave,
  sameTemplate,
  templateKeyOf,
  waveLanding,
} from './step-wave.js';
export {type UpdateWarning, type UpdateWarningKind, updateWarnings} from './update-warnings.js';
export {type BudgetHold, budgetHold, budgetInUse, budgetWayForward, heldUnits, holdBlocks, holdWords} from './budget-use.js';
export {type BackoffEntry} from './manage.js';
export {MinHeap} from './min-heap.js';
export {type ControllerMinor, dumpKubeVersion, formatMinor, modelledMinor, NEWEST_MODELLED_MINOR, OLDEST_MODELLED_MINOR, parseMinor} from './versions.js';
export {SelectorError} from './selectors.js';
export {
  leaseExpiresAt,
  sameHolder,
  STEP_ANNOTATION,
  STEP_LEASE_ANNOTATION,
  STEP_LEASE_SECONDS,
  type StepLease,
  type StepProgress,
  stepLeaseBody,
  stepLeaseOf,
  stepProgressBody,
  stepProgressOf,
} from './step-lease.js';
export {
  type AbortResult,
  type CanarySpec,
  canarySizeOf,
  type GatedEvent,
  type GatedRecord,
  type GatedResult,
  type GatedRecordState,
  type GatedStage,
  type GatedStageRecord,
  type GatedStrategy,
  type ClusterWaveSpec,
  type StrategyFile,
  type RolloutOrigin,
  FINISHED_GATED_PHASES,
  MAX_RECORDED_FAILURES,
  recordedFailures,
  MAX_START_RECORD_BYTES,
  startRecordTooLarge,
  resolveGatedStage,
  resolveGatedStages,
  type GateInput,
  type GateVerdict,
  type OnFailure,
  GATED_ROLLOUT_ANNOTATION,
  describeGateFailure,
  formatGatedRecord,
  gatedRecordBody,
  gatedRecordOf,
  judgeGate,
  LOST_READY,
  planGatedStages,
  strategyFromDocument,
  strategyLine,
} from './gates.js';
export {
  type GateJudgement,
  type NeighbourBaseline,
  type NeighbourJudgement,
  type NodeBaseline,
  describeGateReading,
  judgeNeighbourGate,
  judgeNodeGate,
  MAX_NODE_BASELINE_BYTES,
  MAX_READING_BYTES,
  neighbourBaselineOf,
  NODE_TROUBLE_TAINTS,
  nodeBaselineOf,
  nodeTroubles,
  podGateReading,
  recordedReadings,
  touchedNodes,
  troubledNodes,
} from './node-gates.js';
export {
  type DecisionContext,
  type GatedCommand,
  type GatedDecision,
  type GatedView,
  type GatedViewState,
  effectiveGatedRecord,
  nodesByRevisionHash,
  gatedDecision,
  gatedFailureText,
  gatedPhaseOf,
  gatedProgressOf,
  gatedRefusalReason,
  gatedViewOf,
  gatedWayForward,
  rolloutOriginOf,
  settledGatedRecord,
  stepJobEndedHere,
  templateLabelHashOf,
  templateRevisionOf,
} from './gated-machine.js';
export {formatCount, formatList, plural} from './words.js';
export {
  DEFAULT_POD_DELETION_MS,
  DEFAULT_POD_START_MS,
  finishedDeletions,
  observePodTimings,
  observedStartMs,
  type DurationEstimate,
  type PodTimings,
} from './timing.js';
export {
  DETACH_NODE_READER,
  DETACH_NODE_READER_RULES,
  DETACHED_DAEMONSET_LABEL,
  DETACHED_JOB_ANNOTATION,
  DETACHED_JOB_ENV,
  DETACHED_JOB_LABEL,
  DETACHED_JOB_NAMESPACE_LABEL,
  DETACHED_TEMPLATE_ENV,
  type DetachedRolloutEnd,
  DETACHED_TEMPLATE_LABEL,
  type DetachInput,
  type Manifest,
  type PolicyRule,
  RELEASE_IMAGE_REPOSITORY,
  type RolloutEvent,
  type RolloutMilestone,
  detachManifests,
  detachedCommandArgs,
  detachedJobName,
  detachedJobOf,
  detachNodeBindingName,
  detachProxiedService,
  detachProxyRoleName,
  detachRoleRules,
  detachedRolloutEnd,
  failedJobPatch,
  jobEndedAs,
  jobOwnerReference,
  isDetachedJobOf,
  kubernetesEvent,
  releaseImage,
  rolloutEventOf,
  rulesAllow,
  serviceProxyName,
  serviceProxyRules,
} from './detach.js';
export {type DocumentProblem, describeDocumentProblem, documentProblem, EXPANSION_PER_BYTE, jsonTextDepth, MAX_DOCUMENT_DEPTH} from './document-limits.js';
export * from './metric-gate.js';
export * from './fleet-machine.js';
export * from './fleet-standing.js';
