import {describe, expect, test} from 'vitest';
import {defaultDaemonSet, defaultImagePullPolicy, defaultPod, defaultPodSpec} from '../../src/core/defaults.js';
import type {DaemonSet, Pod, PodSpec} from '../../src/core/types.js';
import {newDaemonSet, newPod} from '../helpers/builders.js';

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** A manifest as a user writes it: no strategy, no history limit, no pod defaults. */
function bareDaemonSet(spec: Partial<DaemonSet['spec']> = {}, podSpec: Partial<PodSpec> = {}): DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {name: 'fluentd', namespace: 'kube-system'},
    spec: {
      selector: {matchLabels: {app: 'fluentd'}},
      template: {metadata: {labels: {app: 'fluentd'}}, spec: {containers: [{name: 'fluentd', image: 'fluentd:v1.16'}], ...podSpec}},
      ...spec,
    },
  };
}

const DEFAULTED_CONTAINER = {
  name: 'fluentd',
  image: 'fluentd:v1.16',
  imagePullPolicy: 'IfNotPresent',
  terminationMessagePath: '/dev/termination-log',
  terminationMessagePolicy: 'File',
  resources: {},
};

const DEFAULTED_POD_SPEC = {
  containers: [DEFAULTED_CONTAINER],
  restartPolicy: 'Always',
  terminationGracePeriodSeconds: 30,
  dnsPolicy: 'ClusterFirst',
  securityContext: {},
  schedulerName: 'default-scheduler',
};

describe('defaultDaemonSet', () => {
  test('a bare manifest gets exactly the API server defaults', () => {
    expect(defaultDaemonSet(bareDaemonSet())).toStrictEqual({
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: {name: 'fluentd', namespace: 'kube-system'},
      spec: {
        selector: {matchLabels: {app: 'fluentd'}},
        template: {metadata: {labels: {app: 'fluentd'}}, spec: DEFAULTED_POD_SPEC},
        updateStrategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 1, maxSurge: 0}},
        revisionHistoryLimit: 10,
      },
    });
  });

  const strategyRows: {name: string; input: DaemonSet['spec']['updateStrategy']; output: DaemonSet['spec']['updateStrategy']}[] = [
    {name: 'absent strategy', input: undefined, output: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 1, maxSurge: 0}}},
    {name: 'empty type', input: {type: ''}, output: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 1, maxSurge: 0}}},
    {name: 'OnDelete gets no rollingUpdate', input: {type: 'OnDelete'}, output: {type: 'OnDelete'}},
    {
      name: 'OnDelete keeps a given rollingUpdate as is',
      input: {type: 'OnDelete', rollingUpdate: {maxSurge: 2}},
      output: {type: 'OnDelete', rollingUpdate: {maxSurge: 2}},
    },
    {
      name: 'only maxSurge given',
      input: {type: 'RollingUpdate', rollingUpdate: {maxSurge: '25%'}},
      output: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 1, maxSurge: '25%'}},
    },
    {
      name: 'only maxUnavailable given',
      input: {rollingUpdate: {maxUnavailable: 0}},
      output: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 0, maxSurge: 0}},
    },
    {
      name: 'null budgets are unset',
      input: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: null, maxSurge: null} as never},
      output: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 1, maxSurge: 0}},
    },
    {name: 'unknown type left for validation', input: {type: 'Recreate'}, output: {type: 'Recreate'}},
  ];
  test.each(strategyRows)('updateStrategy: $name', ({input, output}) => {
    const ds = bareDaemonSet(input === undefined ? {} : {updateStrategy: input});
    expect(defaultDaemonSet(ds).spec.updateStrategy).toStrictEqual(output);
  });

  const specRows: {name: string; spec: Partial<DaemonSet['spec']>; check: (ds: DaemonSet) => void}[] = [
    {name: 'revisionHistoryLimit 0 is kept', spec: {revisionHistoryLimit: 0}, check: (ds) => expect(ds.spec.revisionHistoryLimit).toBe(0)},
    {name: 'minReadySeconds stays absent', spec: {}, check: (ds) => expect('minReadySeconds' in ds.spec).toBe(false)},
    {name: 'minReadySeconds kept', spec: {minReadySeconds: 5}, check: (ds) => expect(ds.spec.minReadySeconds).toBe(5)},
    {name: 'apps/v1 does not default the selector from template labels', spec: {selector: undefined}, check: (ds) => expect(ds.spec.selector).toBeUndefined()},
  ];
  test.each(specRows)('$name', ({spec, check}) => {
    check(defaultDaemonSet(bareDaemonSet(spec)));
  });

  test('template metadata is left alone (no creationTimestamp, no extra labels)', () => {
    expect(defaultDaemonSet(bareDaemonSet()).spec.template.metadata).toStrictEqual({labels: {app: 'fluentd'}});
  });

  test('does not modify its input', () => {
    const input = deepFreeze(bareDaemonSet());
    const copy = structuredClone(input);
    defaultDaemonSet(input);
    expect(input).toStrictEqual(copy);
  });
});

describe('defaultImagePullPolicy', () => {
  const digest = `sha256:${'a'.repeat(64)}`;
  const rows: {name: string; image: string | undefined; policy: string}[] = [
    {name: 'no tag means latest', image: 'nginx', policy: 'Always'},
    {name: 'explicit latest', image: 'nginx:latest', policy: 'Always'},
    {name: 'a version tag', image: 'nginx:1.25', policy: 'IfNotPresent'},
    {name: 'registry with port, no tag', image: 'registry:5000/team/nginx', policy: 'Always'},
    {name: 'registry with port and tag', image: 'registry:5000/team/nginx:2', policy: 'IfNotPresent'},
    {name: 'localhost registry', image: 'localhost/nginx', policy: 'Always'},
    {name: 'digest only', image: `nginx@${digest}`, policy: 'IfNotPresent'},
    {name: 'latest tag with digest', image: `nginx:latest@${digest}`, policy: 'Always'},
    {name: 'a tag named "latestx"', image: 'nginx:latestx', policy: 'IfNotPresent'},
    {name: 'uppercase repository does not parse', image: 'Nginx', policy: 'IfNotPresent'},
    {name: 'uppercase path component does not parse', image: 'team/Nginx', policy: 'IfNotPresent'},
    {name: 'uppercase first component is a domain', image: 'Registry.io/nginx', policy: 'Always'},
    {name: 'empty image', image: '', policy: 'IfNotPresent'},
    {name: 'absent image', image: undefined, policy: 'IfNotPresent'},
    {name: 'leading whitespace does not parse', image: ' nginx', policy: 'IfNotPresent'},
    {name: '64 hex characters is an ID, not a name', image: 'a'.repeat(64), policy: 'IfNotPresent'},
  ];
  test.each(rows)('$name', ({image, policy}) => {
    expect(defaultImagePullPolicy(image)).toBe(policy);
  });
});

describe('defaultPodSpec', () => {
  const rows: {name: string; spec: PodSpec; expected: Record<string, unknown>}[] = [
    {
      name: 'set values are kept',
      spec: {
        containers: [
          {
            name: 'c',
            image: 'x:latest',
            imagePullPolicy: 'Never',
            terminationMessagePath: '/t',
            terminationMessagePolicy: 'FallbackToLogsOnError',
            resources: {limits: {cpu: '1'}},
          },
        ],
        dnsPolicy: 'ClusterFirstWithHostNet',
        restartPolicy: 'OnFailure',
        securityContext: {runAsUser: 1000},
        terminationGracePeriodSeconds: 0,
        schedulerName: 'custom',
      },
      expected: {
        containers: [
          {
            name: 'c',
            image: 'x:latest',
            imagePullPolicy: 'Never',
            terminationMessagePath: '/t',
            terminationMessagePolicy: 'FallbackToLogsOnError',
            resources: {limits: {cpu: '1'}},
          },
        ],
        dnsPolicy: 'ClusterFirstWithHostNet',
        restartPolicy: 'OnFailure',
        securityContext: {runAsUser: 1000},
        terminationGracePeriodSeconds: 0,
        schedulerName: 'custom',
      },
    },
    {
      name: 'ports get protocol TCP, env fieldRef apiVersion v1',
      spec: {
        containers: [
          {
            name: 'c',
            image: 'x:1',
            ports: [{containerPort: 80}, {containerPort: 53, protocol: 'UDP'}],
            env: [
              {name: 'A', value: 'a'},
              {name: 'NODE', valueFrom: {fieldRef: {fieldPath: 'spec.nodeName'}}},
            ],
          },
        ],
      },
      expected: {
        containers: [
          {
            ...DEFAULTED_CONTAINER,
            name: 'c',
            image: 'x:1',
            ports: [
              {containerPort: 80, protocol: 'TCP'},
              {containerPort: 53, protocol: 'UDP'},
            ],
            env: [
              {name: 'A', value: 'a'},
              {name: 'NODE', valueFrom: {fieldRef: {fieldPath: 'spec.nodeName', apiVersion: 'v1'}}},
            ],
          },
        ],
      },
    },
    {
      name: 'probes and lifecycle handlers',
      spec: {
        containers: [
          {
            name: 'c',
            image: 'x:1',
            livenessProbe: {httpGet: {port: 8080}, timeoutSeconds: 0},
            readinessProbe: {exec: {command: ['true']}, periodSeconds: 5},
            lifecycle: {preStop: {httpGet: {port: 80, path: '/quit'}}, postStart: {exec: {command: ['x']}}},
          },
        ],
      },
      expected: {
        containers: [
          {
            ...DEFAULTED_CONTAINER,
            name: 'c',
            image: 'x:1',
            // An explicit 0 is "unset" for these int32 fields.
            livenessProbe: {httpGet: {port: 8080, path: '/', scheme: 'HTTP'}, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3},
            readinessProbe: {exec: {command: ['true']}, timeoutSeconds: 1, periodSeconds: 5, successThreshold: 1, failureThreshold: 3},
            lifecycle: {preStop: {httpGet: {port: 80, path: '/quit', scheme: 'HTTP'}}, postStart: {exec: {command: ['x']}}},
          },
        ],
      },
    },
    {
      name: 'init containers are defaulted like containers',
      spec: {containers: [{name: 'c', image: 'x:1'}], initContainers: [{name: 'i', image: 'busybox'}]},
      expected: {
        containers: [{...DEFAULTED_CONTAINER, name: 'c', image: 'x:1'}],
        initContainers: [{...DEFAULTED_CONTAINER, name: 'i', image: 'busybox', imagePullPolicy: 'Always'}],
      },
    },
    {
      name: 'volumes',
      spec: {
        containers: [{name: 'c', image: 'x:1'}],
        volumes: [
          {name: 'scratch'},
          {name: 'logs', hostPath: {path: '/var/log'}},
          {name: 'cfg', configMap: {name: 'cfg'}},
          {name: 'sec', secret: {secretName: 's', defaultMode: 0o400}},
          {name: 'down', downwardAPI: {items: [{path: 'labels', fieldRef: {fieldPath: 'metadata.labels'}}]}},
          {name: 'proj', projected: {sources: [{serviceAccountToken: {path: 'token'}}]}},
          {name: 'eph', ephemeral: {volumeClaimTemplate: {spec: {accessModes: ['ReadWriteOnce']}}}},
        ],
      },
      expected: {
        containers: [{...DEFAULTED_CONTAINER, name: 'c', image: 'x:1'}],
        volumes: [
          {name: 'scratch', emptyDir: {}},
          {name: 'logs', hostPath: {path: '/var/log', type: ''}},
          {name: 'cfg', configMap: {name: 'cfg', defaultMode: 420}},
          {name: 'sec', secret: {secretName: 's', defaultMode: 0o400}},
          {name: 'down', downwardAPI: {defaultMode: 420, items: [{path: 'labels', fieldRef: {fieldPath: 'metadata.labels', apiVersion: 'v1'}}]}},
          {name: 'proj', projected: {defaultMode: 420, sources: [{serviceAccountToken: {path: 'token', expirationSeconds: 3600}}]}},
          {name: 'eph', ephemeral: {volumeClaimTemplate: {spec: {accessModes: ['ReadWriteOnce'], volumeMode: 'Filesystem'}}}},
        ],
      },
    },
  ];
  test.each(rows)('$name', ({spec, expected}) => {
    const podDefaults = {
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      securityContext: {},
      schedulerName: 'default-scheduler',
    };
    expect(defaultPodSpec(spec)).toStrictEqual({...podDefaults, ...expected});
  });

  test.each(rows)('idempotent: $name', ({spec}) => {
    const once = defaultPodSpec(spec);
    expect(defaultPodSpec(once)).toStrictEqual(once);
  });

  test.each(rows)('does not modify its input: $name', ({spec}) => {
    const input = deepFreeze(structuredClone(spec));
    expect(() => defaultPodSpec(input)).not.toThrow();
    expect(input).toStrictEqual(spec);
  });
});

describe('defaultPod', () => {
  const ds = newDaemonSet('foo');
  const rows: {name: string; pod: Pod; check: (pod: Pod) => void}[] = [
    {
      name: 'enableServiceLinks true, pod spec defaults',
      pod: newPod('p', 'node-0', ds),
      check: (pod) => {
        expect(pod.spec['enableServiceLinks']).toBe(true);
        expect(pod.spec['restartPolicy']).toBe('Always');
        expect(pod.spec.containers[0]!['imagePullPolicy']).toBe('IfNotPresent');
      },
    },
    {
      name: 'enableServiceLinks false is kept',
      pod: {...newPod('p', 'node-0', ds), spec: {...newPod('p', 'node-0', ds).spec, enableServiceLinks: false}},
      check: (pod) => expect(pod.spec['enableServiceLinks']).toBe(false),
    },
    {
      name: 'requests default to limits, given requests win',
      pod: {
        ...newPod('p', 'node-0', ds),
        spec: {
          containers: [{name: 'c', image: 'x:1', resources: {limits: {cpu: '1', memory: '1Gi'}, requests: {cpu: '500m'}}}],
          initContainers: [{name: 'i', image: 'x:1', resources: {limits: {cpu: '2'}}}],
        },
      },
      check: (pod) => {
        expect(pod.spec.containers[0]!['resources']).toStrictEqual({limits: {cpu: '1', memory: '1Gi'}, requests: {cpu: '500m', memory: '1Gi'}});
        expect(pod.spec.initContainers![0]!['resources']).toStrictEqual({limits: {cpu: '2'}, requests: {cpu: '2'}});
      },
    },
    {
      name: 'hostNetwork: hostPort defaults to containerPort',
      pod: {
        ...newPod('p', 'node-0', ds),
        spec: {hostNetwork: true, containers: [{name: 'c', image: 'x:1', ports: [{containerPort: 9100}, {containerPort: 53, hostPort: 5353}]}]},
      },
      check: (pod) =>
        expect(pod.spec.containers[0]!.ports).toStrictEqual([
          {containerPort: 9100, hostPort: 9100, protocol: 'TCP'},
          {containerPort: 53, hostPort: 5353, protocol: 'TCP'},
        ]),
    },
    {
      name: 'without hostNetwork no hostPort is added',
      pod: {...newPod('p', 'node-0', ds), spec: {containers: [{name: 'c', image: 'x:1', ports: [{containerPort: 9100}]}]}},
      check: (pod) => expect(pod.spec.containers[0]!.ports).toStrictEqual([{containerPort: 9100, protocol: 'TCP'}]),
    },
    {
      name: 'admission-plugin fields are not added',
      pod: newPod('p', 'node-0', ds),
      check: (pod) => {
        for (const key of ['priority', 'preemptionPolicy', 'serviceAccountName', 'serviceAccount', 'tolerations']) expect(pod.spec[key]).toBeUndefined();
      },
    },
    {
      name: 'metadata and status untouched',
      pod: newPod('p', 'node-0', ds),
      check: (pod) => {
        expect(pod.metadata).toStrictEqual(newPod('p', 'node-0', ds).metadata);
        expect(pod.status).toStrictEqual(newPod('p', 'node-0', ds).status);
      },
    },
  ];
  test.each(rows)('$name', ({pod, check}) => {
    check(defaultPod(pod));
  });

  test.each(rows)('idempotent: $name', ({pod}) => {
    const once = defaultPod(pod);
    expect(defaultPod(once)).toStrictEqual(once);
  });

  test.each(rows)('does not modify its input: $name', ({pod}) => {
    const input = deepFreeze(structuredClone(pod));
    expect(() => defaultPod(input)).not.toThrow();
    expect(input).toStrictEqual(pod);
  });

  test('the template spec of a DaemonSet does not get pod-only defaults', () => {
    const spec = defaultDaemonSet(bareDaemonSet({}, {hostNetwork: true})).spec.template.spec;
    expect(spec['enableServiceLinks']).toBeUndefined();
    expect(spec.containers[0]!.ports).toBeUndefined();
  });
});

describe('defaulting is idempotent', () => {
  const rows: {name: string; ds: DaemonSet}[] = [
    {name: 'bare manifest', ds: bareDaemonSet()},
    {name: 'builder DaemonSet', ds: newDaemonSet('foo')},
    {name: 'OnDelete', ds: newDaemonSet('foo', {type: 'OnDelete'})},
    {name: 'surge', ds: newDaemonSet('foo', {maxUnavailable: 0, maxSurge: '10%'})},
    {
      name: 'with probes and volumes',
      ds: bareDaemonSet({}, {volumes: [{name: 'v'}], containers: [{name: 'c', image: 'x', readinessProbe: {httpGet: {port: 1}}}]}),
    },
  ];
  test.each(rows)('$name', ({ds}) => {
    const once = defaultDaemonSet(ds);
    expect(defaultDaemonSet(once)).toStrictEqual(once);
  });
});
