// RFC3339 as Go's time.Parse(time.RFC3339, ...) takes it: the calendar is checked (2024-02-30 is refused), not
// rolled over the way Date.parse rolls it into March.
function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Milliseconds since the epoch for an RFC3339 time, or undefined when it is not one (or not a real date). */
export function parseRfc3339Time(text: string): number | undefined {
  if (!isRfc3339Time(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The number written by the `count` ASCII digits at `at`, or -1 when one of them is not a digit. */
function digitsAt(text: string, at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) {
    const d = text.charCodeAt(i) - 48;
    if (!(d >= 0 && d <= 9)) return -1; // NaN past the end too
    n = n * 10 + d;
  }
  return n;
}

/**
 * Whether `text` is an RFC3339 time of a real date: `YYYY-MM-DDThh:mm:ss[.frac](Z|±hh:mm)`. Read character by
 * character, without a regular expression or a Date: it runs for every timestamp of every object read.
 */
export function isRfc3339Time(text: string): boolean {
  if (text.length < 20) return false;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  const second = digitsAt(text, 17, 2);
  if (year < 0 || text[4] !== '-' || text[7] !== '-' || (text[10] !== 'T' && text[10] !== 't') || text[13] !== ':' || text[16] !== ':') return false;
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return false;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return false;
  let at = 19;
  if (text[at] === '.') {
    const fractionStart = ++at;
    while (digitsAt(text, at, 1) >= 0) at++;
    if (at === fractionStart) return false;
  }
  const zone = text[at];
  if (zone === 'Z' || zone === 'z') return at + 1 === text.length;
  if (zone !== '+' && zone !== '-') return false;
  const offsetHour = digitsAt(text, at + 1, 2);
  const offsetMinute = digitsAt(text, at + 4, 2);
  return at + 6 === text.length && text[at + 3] === ':' && offsetHour >= 0 && offsetHour <= 23 && offsetMinute >= 0 && offsetMinute <= 59;
}

/** RFC3339 UTC in whole seconds, as the API server writes metav1.Time (`2026-11-21T12:00:00Z`). */
export function formatRfc3339(ms: number): string {
  const second = Math.floor(ms / 1000);
  const day = Math.floor(second / 86_400);
  // A plan stamps thousands of pods on the same few days: the date is formatted once per day, the time by hand.
  if (lastDay?.day !== day) lastDay = {day, prefix: new Date(day * 86_400_000).toISOString().slice(0, 11)};
  if (lastDay.prefix.length !== 11 || lastDay.prefix[10] !== 'T') return new Date(second * 1000).toISOString().replace('.000Z', 'Z');
  const s = second - day * 86_400;
  return `${lastDay.prefix}${twoDigits(Math.floor(s / 3600))}:${twoDigits(Math.floor(s / 60) % 60)}:${twoDigits(s % 60)}Z`;
}

/** The last day formatRfc3339 wrote (days since the epoch) and its `YYYY-MM-DDT`. */
let lastDay: {readonly day: number; readonly prefix: string} | undefined;

function twoDigits(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}
