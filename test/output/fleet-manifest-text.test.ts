// What `ds-plan -f MANIFEST --contexts` says a manifest changes in one cluster, in one line.
import {describe, expect, test} from 'vitest';
import type {PodTemplateSpec} from '../../src/core/index.js';
import {manifestChangeSummary} from '../../src/output/fleet-manifest-text.js';

function template(containers: Array<{name: string; image: string}>, extra: Record<string, unknown> = {}): PodTemplateSpec {
  return {metadata: {labels: {app: 'fluentd'}}, spec: {containers, ...extra}} as PodTemplateSpec;
}

const v1 = template([{name: 'main', image: 'fluentd:v1'}]);

describe('manifestChangeSummary', () => {
  test('the images that change, container by container, then the warnings', () => {
    const to = template([
      {name: 'main', image: 'fluentd:v2'},
      {name: 'sidecar', image: 'proxy:1'},
    ]);
    const warnings = [{message: 'a'}, {message: 'b'}];
    expect(manifestChangeSummary({from: {label: 'revision 1', template: v1}, to: {label: 'f.yaml', template: to}, warnings})).toBe(
      'main: fluentd:v1 -> fluentd:v2; +sidecar: proxy:1; +1/-0 template lines; 2 warnings',
    );
  });

  test('a removed container, other template lines, no change at all, a create', () => {
    const two = template([
      {name: 'main', image: 'fluentd:v1'},
      {name: 'old', image: 'x:1'},
    ]);
    expect(manifestChangeSummary({from: {label: 'r', template: two}, to: {label: 'f', template: v1}, warnings: []})).toMatch(
      /^-old; \+0\/-\d+ template lines$/,
    );
    const tuned = template([{name: 'main', image: 'fluentd:v1'}], {priorityClassName: 'system-node-critical'});
    expect(manifestChangeSummary({from: {label: 'r', template: v1}, to: {label: 'f', template: tuned}, warnings: []})).toBe('+1/-0 template lines');
    expect(manifestChangeSummary({from: {label: 'r', template: v1}, to: {label: 'f', template: v1}, warnings: [{message: 'x'}]})).toBe(
      'no template change; 1 warning',
    );
    expect(manifestChangeSummary({from: {label: 'none', template: undefined}, to: {label: 'f', template: v1}, warnings: []})).toBe(
      'creates it; main: fluentd:v1',
    );
  });
});
