// `npm run bench`: every benchmark of the project, printed as one line per figure.
import {benchCliStart} from './cli-start.js';
import {benchCore} from './core.js';
import {benchDashboard} from './dashboard.js';
import {benchGated} from './gated.js';
import {benchLive, benchLiveMemory} from './live.js';
import {benchPlanSnapshot} from './plan-snapshot.js';
import {benchSim} from './sim.js';
import {benchSimSnapshot} from './sim-snapshot.js';
import {benchWatch} from './watch.js';

const only = process.argv[2];
if (!only || only === 'core') await benchCore();
if (!only || only === 'cli') await benchCliStart();
if (!only || only === 'sim') await benchSim();
if (!only || only === 'sim' || only === 'snapshot') await benchSimSnapshot();
if (!only || only === 'plan') await benchPlanSnapshot();
if (!only || only === 'dashboard') await benchDashboard();
if (!only || only === 'live' || only === 'live-read') await benchLive();
if (!only || only === 'live') await benchLiveMemory();
if (!only || only === 'watch') await benchWatch();
if (!only || only === 'gated') await benchGated();
