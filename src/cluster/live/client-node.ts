// What the project takes from @kubernetes/client-node, in one module that is only ever imported dynamically:
// loading client-node costs more than a whole live read of a small cluster. The plugin sends every request itself
// (client.ts, watches included); client-node only builds two things for that transport: proxy agents and legacy
// auth-provider headers (credentials.ts). The simulated cluster's kubelets (`sim kubelets`) are another program
// against the API server and keep client-node's typed clients, over this same transport (TransportKubeConfig).
import {KubeConfig} from '@kubernetes/client-node';
import type {Agent} from 'node:http';

/**
 * What the kubelets' KubeConfig takes from the plugin's transport: credentials.ts's Credentials, as the consumer
 * declares it, so that this module imports nothing of the transport that imports it (dynamically) back.
 */
export interface TransportSource {
  transport(): Promise<{readonly agent: Agent; readonly headers: Readonly<Record<string, string | string[]>>}>;
}

export {CoordinationV1Api, CoreV1Api, KubeConfig} from '@kubernetes/client-node';

type FetchInit = Awaited<ReturnType<KubeConfig['applyToFetchOptions']>>;

/**
 * A KubeConfig for the simulated kubelets' typed API clients that sends this transport: one cluster (the server)
 * whose agent and headers come from `credentials`, so both paths authenticate the same way.
 */
export class TransportKubeConfig extends KubeConfig {
  constructor(
    private readonly credentials: TransportSource,
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
