// The single executable's script (CommonJS, built by build/bundle.mjs). One script serves both binaries: the
// file's own name says which plugin it is (kubectl-ds_plan or kubectl-ds_rollout, as krew installs them).
import {basename, dirname} from 'node:path';
import {run} from './entry.mjs';

const plugin = basename(process.execPath).includes('ds_plan') ? 'plan' : 'rollout';
void run(plugin, dirname(process.execPath));
