// `-o yaml`: the same document as `-o json`, in the same key order.
import {dump} from 'js-yaml';
import type {RolloutPlan} from '../core/index.js';
import {toPlanDocument} from './plan-json.js';

export function renderPlanYaml(plan: RolloutPlan): string {
  // lineWidth -1: long blocker messages stay on one line, as in JSON.
  return dump(toPlanDocument(plan), {noRefs: true, lineWidth: -1});
}
