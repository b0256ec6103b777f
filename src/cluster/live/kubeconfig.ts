// Which cluster, user and namespace a live command talks to, resolved the way kubectl resolves them:
// --kubeconfig, else $KUBECONFIG (a list of files, merged the first-wins way), else ~/.kube/config (else in-cluster, else
// localhost:8080); --context, else the current context; -n, else the context's namespace, else "default".
import {KubeConfig} from '@kubernetes/client-node';
import {InputError} from '../../errors.js';
import {kubeconfigFiles, loadKubeconfigList} from './kubeconfig-merge.js';

export interface KubeconfigOptions {
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly namespace?: string;
}

export interface ResolvedKubeconfig {
  readonly kubeConfig: KubeConfig;
  /** The API server URL, for messages. */
  readonly server: string;
  readonly context: string;
  readonly namespace: string;
}

/** The kubeconfig as kubectl would load it (--kubeconfig, else $KUBECONFIG, else ~/.kube/config), not yet checked for a current context. */
export function loadKubeconfig(options: Pick<KubeconfigOptions, 'kubeconfig'>): KubeConfig {
  let kubeConfig = new KubeConfig();
  try {
    if (options.kubeconfig !== undefined) kubeConfig.loadFromFile(options.kubeconfig);
    else if (process.env.KUBECONFIG) {
      // kubectl's merge of the list (first wins), not client-node's (last wins): see kubeconfig-merge.ts.
      const merged = loadKubeconfigList(kubeconfigFiles(process.env.KUBECONFIG));
      if (merged === undefined) throw Object.assign(new Error('no such file'), {code: 'ENOENT'});
      kubeConfig = merged;
    } else kubeConfig.loadFromDefault();
  } catch (error) {
    const where = options.kubeconfig ?? process.env.KUBECONFIG ?? '~/.kube/config';
    const code = (error as NodeJS.ErrnoException).code;
    // client-node reads an empty or non-kubeconfig file as a document without fields, then trips over it.
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : error instanceof TypeError
          ? 'not a kubeconfig (no clusters, contexts or users)'
          : firstLine((error as Error).message);
    throw new InputError(`cannot load kubeconfig "${where}": ${why}`, {cause: error});
  }
  return kubeConfig;
}

export function resolveKubeconfig(options: KubeconfigOptions): ResolvedKubeconfig {
  const kubeConfig = loadKubeconfig(options);
  if (options.context !== undefined) {
    if (kubeConfig.getContextObject(options.context) === null) throw new InputError(`context "${options.context}" does not exist in the kubeconfig`);
    kubeConfig.setCurrentContext(options.context);
  }
  const context = kubeConfig.getCurrentContext();
  const cluster = kubeConfig.getCurrentCluster();
  if (cluster === null) {
    throw new InputError(context ? `context "${context}" names no cluster known to the kubeconfig` : 'the kubeconfig has no current context: pass --context');
  }
  // kubectl talks plain http without complaint; client-node's agent factory refuses it unless TLS checks are
  // off, which mean nothing for http. Say so on the cluster entry rather than refuse what kubectl accepts.
  if (cluster.server.startsWith('http:') && !cluster.skipTLSVerify) {
    kubeConfig.clusters = kubeConfig.clusters.map((entry) => (entry === cluster ? {...entry, skipTLSVerify: true} : entry));
  }
  const namespace = options.namespace ?? kubeConfig.getContextObject(context)?.namespace ?? 'default';
  return {kubeConfig, server: cluster.server.replace(/\/+$/, ''), context, namespace: namespace === '' ? 'default' : namespace};
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}
