// The CLI tests' handle on the simulated demo cluster's kube-system/fluentd: the built CLI run in kube-system
// against it, the DaemonSet as the store has it, and its gated rollout record.
import {GATED_ROLLOUT_ANNOTATION, type DaemonSet, type GatedRecord} from '../../src/core/index.js';
import {runCli} from './run-cli.js';
import type {TestCluster} from './sim-cluster.js';

const BIN = 'bin/kubectl-ds_rollout';

/** The BUILT `kubectl ds-rollout ARGS -n kube-system` against the test cluster (run `npm run build` first). */
export function fluentdCli(t: TestCluster, args: string[]) {
  return runCli([...args, '-n', 'kube-system', '--kubeconfig', t.kubeconfig], {bin: BIN});
}

export function fluentd(t: TestCluster): DaemonSet {
  return t.cluster.store.get('daemonsets', 'kube-system', 'fluentd') as unknown as DaemonSet;
}

export function fluentdRecord(t: TestCluster): GatedRecord {
  return JSON.parse(fluentd(t).metadata.annotations![GATED_ROLLOUT_ANNOTATION]!) as GatedRecord;
}
