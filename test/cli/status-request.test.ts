// What `status`'s arguments ask for, decided without a cluster: one, each of a selection, or the table; whether
// it follows; and kubectl's refusals, one usage line each.
import {expect, test} from 'vitest';
import {UsageError} from '../../src/platform/errors.js';
import {type StatusFlags, statusRequest} from '../../src/cli/status-request.js';

const NONE: StatusFlags = {'all-namespaces': false};

test('what is asked for, and whether it follows (as kubectl: yes unless a snapshot, --now or --watch=false)', () => {
  expect(statusRequest('fluentd', NONE)).toEqual({kind: 'one', watch: true});
  expect(statusRequest('fluentd', {...NONE, snapshot: 'dump.json'})).toEqual({kind: 'one', watch: false});
  expect(statusRequest('fluentd', {...NONE, now: 0})).toEqual({kind: 'one', watch: false});
  expect(statusRequest(undefined, {...NONE, 'all-namespaces': true, watch: false})).toEqual({kind: 'list', watch: false});
  expect(statusRequest(undefined, {...NONE, 'all-namespaces': true})).toEqual({kind: 'list', watch: false});
  expect(statusRequest(undefined, {...NONE, 'all-namespaces': true, watch: true})).toEqual({kind: 'list', watch: true});
  expect(statusRequest(undefined, {...NONE, selector: 'app=x'})).toEqual({kind: 'selected', watch: true});
  expect(statusRequest(undefined, {...NONE, filename: 'ds.yaml'})).toEqual({kind: 'selected', watch: true});
});

test.each<[string | undefined, Partial<StatusFlags>, string]>([
  ['fluentd', {watch: true, snapshot: 'dump.json'}, '--watch follows a live cluster; it cannot be used with --snapshot'],
  ['fluentd', {watch: true, now: 0}, '--now fixes one instant; it cannot be used with --watch'],
  ['fluentd', {'all-namespaces': true}, 'a DaemonSet cannot be named across all namespaces: drop -A, or NAME'],
  ['fluentd', {selector: 'a=b'}, 'selectors and the all flag cannot be used when passing resource/name arguments'],
  ['fluentd', {filename: 'x.yaml'}, 'when paths, URLs, or stdin is provided as input, you may not specify resource arguments as well'],
  [undefined, {filename: 'x.yaml', selector: 'a=b'}, '-f names the DaemonSets itself: it cannot be used with -l or -A'],
  [undefined, {filename: '-', snapshot: '-'}, '-f - and --snapshot - cannot both read stdin'],
])('refused: %s %o', (name, flags, message) => {
  const attempt = () => statusRequest(name, {...NONE, ...flags});
  expect(attempt).toThrow(UsageError);
  expect(attempt).toThrow(message);
});
