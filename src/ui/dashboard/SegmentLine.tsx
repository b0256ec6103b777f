// One line of view-model segments, each styled by its token. Truncates rather than wraps: the view model
// already fitted the line, this only guards the terminal against a miscount.
import {Text} from 'ink';
import type {Line} from './text.js';
import type {Theme} from './theme.js';

export interface SegmentLineProps {
  readonly line: Line;
  readonly theme: Theme;
  readonly inverse?: boolean;
}

export function SegmentLine({line, theme, inverse}: SegmentLineProps) {
  if (line.length === 0) return <Text> </Text>;
  return (
    <Text wrap="truncate" inverse={inverse === true}>
      {line.map((segment, index) => (
        <Text key={index} {...theme[segment.token]}>
          {segment.text}
        </Text>
      ))}
    </Text>
  );
}

export interface LinesProps {
  readonly lines: readonly Line[];
  readonly theme: Theme;
}

/** A column of lines. */
export function Lines({lines, theme}: LinesProps) {
  return (
    <>
      {lines.map((line, index) => (
        <SegmentLine key={index} line={line} theme={theme} />
      ))}
    </>
  );
}
