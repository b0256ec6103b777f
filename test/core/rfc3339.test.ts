// RFC3339 as Go's time.Parse(time.RFC3339, ...) accepts it: checked against the grammar and the calendar.
import {describe, expect, test} from 'vitest';
import {isRfc3339Time, parseRfc3339Time} from '../../src/core/index.js';

describe('isRfc3339Time', () => {
  test.each([
    '2026-11-21T12:00:00Z',
    '2026-11-21t12:00:00z',
    '2026-11-21T12:00:00.5Z',
    '2026-11-21T12:00:00.123456789Z',
    '2026-11-21T12:00:00+05:30',
    '2026-11-21T12:00:00.25-08:00',
    '2024-02-29T23:59:59Z',
    '2000-02-29T00:00:00Z',
    '0001-01-01T00:00:00Z',
  ])('%s is one', (text) => expect(isRfc3339Time(text)).toBe(true));

  test.each([
    '',
    '2026-11-21',
    '2026-11-21T12:00:00',
    '2026-11-21 12:00:00Z',
    '2026-11-21T12:00Z',
    '2026-11-21T12:00:00.Z',
    '2026-11-21T12:00:00ZZ',
    '2026-11-21T12:00:00+0530',
    '2026-11-21T12:00:00+05:30 ',
    '2026-11-21T12:00:00+24:00',
    '2026-11-21T12:00:00+05:60',
    '2026-11-21T12:00:00+05:3',
    '2026-13-21T12:00:00Z',
    '2026-00-21T12:00:00Z',
    '2026-11-00T12:00:00Z',
    '2026-11-31T12:00:00Z',
    '2023-02-29T12:00:00Z',
    '1900-02-29T12:00:00Z',
    '2026-11-21T24:00:00Z',
    '2026-11-21T12:60:00Z',
    '2026-11-21T12:00:60Z',
    '2026-1a-21T12:00:00Z',
    '+026-11-21T12:00:00Z',
    '２０２６-11-21T12:00:00Z',
  ])('%j is not', (text) => expect(isRfc3339Time(text)).toBe(false));
});

test('parseRfc3339Time: milliseconds since the epoch, undefined for what is not a time', () => {
  expect(parseRfc3339Time('2026-11-21T12:00:00.5+01:00')).toBe(Date.UTC(2026, 10, 21, 11, 0, 0, 500));
  expect(parseRfc3339Time('2024-02-30T00:00:00Z')).toBeUndefined();
});
