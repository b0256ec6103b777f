// What the live adapter takes from @kubernetes/client-node, in one module that is only ever imported dynamically:
// loading client-node costs more than a whole live read of a small cluster, and the reads (plan, status, history)
// do not need it. Watches, proxy agents, legacy auth-providers and the simulated kubelets' typed clients do.
import {KubeConfig} from '@kubernetes/client-node';
import type {Credentials} from './credentials.js';

export {CoordinationV1Api, CoreV1Api, KubeConfig, Watch} from '@kubernetes/client-node';

type FetchInit = Awaited<ReturnType<KubeConfig['applyToFetchOptions']>>;

/**
 * A KubeConfig for client-node's Watch and typed API clients that sends this transport: one cluster (the server)
 * whose agent and headers come from `credentials`, so both paths authenticate the same way.
 */
export class TransportKubeConfig extends KubeConfig {
  constructor(
    private readonly credentials: Credentials,
    server: string,
  ) {
    super();
    this.loadFromOptions({
      clusters: [{name: 'cluster', server, skipTLSVerify: false}],
      users: [{name: 'user'}],
      contexts: [{name: 'context', cluster: 'cluster', user: 'user'}],
      currentContext: 'context',
    });
  }

  override async applyToFetchOptions(): Promise<FetchInit> {
    const {agent, headers} = await this.credentials.transport();
    const flat: Record<string, string> = {};
    for (const [key, value] of Object.entries(headers)) flat[key] = Array.isArray(value) ? value.join(', ') : value;
    return {agent, headers: flat} as unknown as FetchInit;
  }

  override async applyToHTTPSOptions(opts: Parameters<KubeConfig['applyToHTTPSOptions']>[0]): Promise<void> {
    const {agent, headers} = await this.credentials.transport();
    opts.agent = agent;
    opts.headers = {...(opts.headers ?? {}), ...headers};
  }

  override async applySecurityAuthentication(context: Parameters<KubeConfig['applySecurityAuthentication']>[0]): Promise<void> {
    const {agent, headers} = await this.credentials.transport();
    for (const [key, value] of Object.entries(headers)) context.setHeaderParam(key, Array.isArray(value) ? value.join(', ') : value);
    context.setAgent(agent);
  }
}
