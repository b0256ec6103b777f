// The fleet dashboard's container (`dashboard NAME --contexts`): subscribes to the fleet feed, keeps the fleet
// screen's interaction state, and shows either the fleet (a row per cluster) or, after Enter, that cluster's usual
// screen (the one-cluster Dashboard on that cluster's own feed and actions) under one line that leads back. Redraws
// from the feed are coalesced as the one-cluster screen's are.
import {Box, useApp, useInput} from 'ink';
import {useEffect, useMemo, useReducer, useRef} from 'react';
import {localNow} from '../../platform/clock.js';
import {deepEqualJson} from '../../core/index.js';
import type {ActionHandler, PlanFeed} from '../../services/dashboard/feed.js';
import type {FleetFeed} from '../../services/dashboard/fleet-feed.js';
import {Dashboard, DEFAULT_REDRAW_INTERVAL_MS} from './Dashboard.js';
import {type FleetAction, fleetKeyToAction, fleetReducer, type FleetState, initialFleetState} from './fleet-state.js';
import {drilledLine, type FleetViewModel, toFleetViewModel} from './fleet-view-model.js';
import {FleetScreen} from './FleetScreen.js';
import {useCoalesced, useTerminalSize} from './hooks.js';
import type {TerminalSize} from './layout.js';
import {SegmentLine} from './SegmentLine.js';
import {DEFAULT_THEME, type Theme} from './theme.js';
import type {DashboardContext} from './view-model.js';

/** What a cluster's own screen needs: its feed, its actions, how prompts name it. */
export interface ClusterScreen {
  readonly feed: PlanFeed;
  readonly actions: ActionHandler;
  readonly context: DashboardContext;
  readonly readonly: boolean;
  /** That cluster's clock (its API server's). */
  readonly clusterNow?: () => number;
}

export interface FleetDashboardProps {
  readonly feed: Pick<FleetFeed, 'subscribe'>;
  readonly name: string;
  readonly namespace?: string;
  /** A followed cluster's screen; undefined when it cannot open now. */
  readonly openCluster: (context: string) => ClusterScreen | undefined;
  readonly theme?: Theme;
  /** A fixed size (tests); by default the terminal's, following resizes. */
  readonly size?: TerminalSize;
  /** This machine's clock: redraw pacing and notice times. */
  readonly clock?: () => number;
  readonly redrawIntervalMs?: number;
  /** Every fleet view model that reaches the screen (tests). */
  readonly onFrame?: (vm: FleetViewModel) => void;
  readonly onQuit?: () => void;
}

/** Adds what only the screen knows: the row count and page, the context under the cursor and why it cannot open. */
function complete(action: FleetAction, ui: FleetState, vm: FleetViewModel | undefined, now: number): FleetAction {
  if (!vm) return action;
  if (action.type === 'move') return {...action, rows: vm.nav.rows, page: vm.nav.page};
  if (action.type !== 'open') return action;
  const index = Math.max(0, Math.min(ui.cursor, vm.nav.rows - 1));
  const context = vm.nav.contexts[index];
  if (context === undefined) return action;
  const why = vm.nav.closed[index];
  return {type: 'open', context, now, ...(why === undefined ? {} : {why})};
}

export function FleetDashboard(props: FleetDashboardProps) {
  const clock = props.clock ?? localNow;
  const theme = props.theme ?? DEFAULT_THEME;
  const {exit} = useApp();
  const [ui, dispatch] = useReducer(fleetReducer, undefined, initialFleetState);
  const size = useTerminalSize(props.size);
  const snapshot = useCoalesced(props.feed, clock, props.redrawIntervalMs ?? DEFAULT_REDRAW_INTERVAL_MS);
  const vmRef = useRef<FleetViewModel | undefined>(undefined);
  const uiRef = useRef(ui);
  uiRef.current = ui;

  const input = useMemo(
    () => (snapshot ? {snapshot, name: props.name, ...(props.namespace === undefined ? {} : {namespace: props.namespace})} : undefined),
    [snapshot, props.name, props.namespace],
  );
  const vm = useMemo(() => {
    if (!input) return undefined;
    const next = toFleetViewModel(input, ui, size);
    if (vmRef.current !== undefined && deepEqualJson(vmRef.current, next)) return vmRef.current;
    return next;
  }, [input, ui, size]);
  // Keys read the frame on screen at once (a key may come before any effect of this render has run).
  if (vm) vmRef.current = vm;
  useEffect(() => {
    if (vm) props.onFrame?.(vm);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [vm]);

  const {openCluster} = props;
  const screen = useMemo(() => (ui.drilled === undefined ? undefined : openCluster(ui.drilled)), [ui.drilled, openCluster]);
  useEffect(() => {
    // The cluster stopped being followed between the key and the render: stay on the fleet.
    if (ui.drilled !== undefined && screen === undefined) dispatch({type: 'back'});
  }, [ui.drilled, screen]);

  useInput(
    (text, key) => {
      const intent = fleetKeyToAction(text, key, uiRef.current);
      if (!intent) return;
      const action = complete(intent, uiRef.current, vmRef.current, clock());
      uiRef.current = fleetReducer(uiRef.current, action);
      dispatch(action);
    },
    {isActive: ui.drilled === undefined},
  );

  useEffect(() => {
    if (!ui.quit) return;
    props.onQuit?.();
    exit();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [ui.quit]);

  if (!vm || !input) return null;
  if (ui.drilled !== undefined && screen) {
    return (
      <Box flexDirection="column" width={size.columns}>
        <SegmentLine line={drilledLine(input, ui.drilled, size.columns)} theme={theme} />
        <Dashboard
          key={ui.drilled}
          feed={screen.feed}
          actions={screen.actions}
          context={screen.context}
          readonly={screen.readonly}
          theme={theme}
          size={{columns: size.columns, rows: Math.max(1, size.rows - 1)}}
          clock={clock}
          {...(screen.clusterNow ? {clusterNow: screen.clusterNow} : {})}
          {...(props.onQuit ? {onQuit: props.onQuit} : {})}
          onBack={() => dispatch({type: 'back'})}
        />
      </Box>
    );
  }
  return <FleetScreen vm={vm} theme={theme} />;
}
