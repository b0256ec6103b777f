// The two typed APIs the kubelet agents call, loaded when the first agent starts. A module of their own: a
// dynamic import keeps every export of its target, and client-node's index exports its whole generated client.
export {CoordinationV1Api, CoreV1Api} from '@kubernetes/client-node';
