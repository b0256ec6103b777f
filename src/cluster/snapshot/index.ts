export {parseSnapshot, type SnapshotObjects} from './parse-snapshot.js';
export {SnapshotClusterSource, STDIN_NAME} from './snapshot-source.js';
