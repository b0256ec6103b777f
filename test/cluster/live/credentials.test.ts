// HTTPS_PROXY / HTTP_PROXY / NO_PROXY read as Go's http.ProxyFromEnvironment reads them (kubectl's proxy choice
// when the kubeconfig names no proxy-url).
import {describe, expect, test} from 'vitest';
import {proxyFromEnvironment} from '../../../src/cluster/live/credentials.js';

describe('proxyFromEnvironment', () => {
  const env = (vars: Record<string, string | undefined>) => vars as NodeJS.ProcessEnv;
  test.each([
    {name: 'https uses HTTPS_PROXY', server: 'https://k8s.example.com:6443', vars: {HTTPS_PROXY: 'http://proxy:3128'}, want: 'http://proxy:3128'},
    {name: 'lower case too', server: 'https://k8s.example.com', vars: {https_proxy: 'proxy:3128'}, want: 'http://proxy:3128'},
    {name: 'http uses HTTP_PROXY, not HTTPS_PROXY', server: 'http://k8s.example.com', vars: {HTTPS_PROXY: 'http://p:1'}, want: undefined},
    {name: 'loopback is never proxied', server: 'https://127.0.0.1:6443', vars: {HTTPS_PROXY: 'http://p:1'}, want: undefined},
    {name: 'localhost is never proxied', server: 'https://localhost:6443', vars: {HTTPS_PROXY: 'http://p:1'}, want: undefined},
    {name: 'NO_PROXY *', server: 'https://k8s.example.com', vars: {HTTPS_PROXY: 'http://p:1', NO_PROXY: '*'}, want: undefined},
    {
      name: 'NO_PROXY domain matches subdomains',
      server: 'https://api.k8s.example.com',
      vars: {HTTPS_PROXY: 'http://p:1', NO_PROXY: 'example.com'},
      want: undefined,
    },
    {name: 'NO_PROXY .domain', server: 'https://api.example.com', vars: {HTTPS_PROXY: 'http://p:1', NO_PROXY: '.example.com'}, want: undefined},
    {name: 'NO_PROXY other domain', server: 'https://api.example.org', vars: {HTTPS_PROXY: 'http://p:1', NO_PROXY: 'example.com'}, want: 'http://p:1'},
    {
      name: 'NO_PROXY suffix is not a domain match',
      server: 'https://badexample.com',
      vars: {HTTPS_PROXY: 'http://p:1', NO_PROXY: 'example.com'},
      want: 'http://p:1',
    },
    {name: 'NO_PROXY CIDR', server: 'https://10.1.2.3:6443', vars: {HTTPS_PROXY: 'http://p:1', NO_PROXY: '10.0.0.0/8'}, want: undefined},
    {name: 'NO_PROXY CIDR elsewhere', server: 'https://11.1.2.3:6443', vars: {HTTPS_PROXY: 'http://p:1', NO_PROXY: '10.0.0.0/8'}, want: 'http://p:1'},
    {
      name: 'NO_PROXY host:port matches that port only',
      server: 'https://k8s.example.com:6443',
      vars: {HTTPS_PROXY: 'http://p:1', NO_PROXY: 'k8s.example.com:443'},
      want: 'http://p:1',
    },
    {name: 'NO_PROXY IP', server: 'https://10.0.0.5', vars: {HTTPS_PROXY: 'http://p:1', NO_PROXY: 'foo, 10.0.0.5'}, want: undefined},
  ])('$name', ({server, vars, want}) => {
    expect(proxyFromEnvironment(server, env(vars))).toBe(want);
  });
});
