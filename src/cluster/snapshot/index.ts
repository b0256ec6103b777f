export {parseSnapshot, type SnapshotObjects} from './parse-snapshot.js';
export {SnapshotClusterSource, STDIN_NAME, readSnapshot} from './snapshot-source.js';
