import { describe, expect, it } from 'vitest';
import {
  DurationError,
  formatDuration,
  formatDurationShort,
  parseGoDuration,
  parseGoDurationNanos,
} from '../../src/model/duration.js';

describe('parseGoDuration follows time.ParseDuration', () => {
  it.each([
    ['300ms', 300],
    ['1.5h', 5_400_000],
    ['2h45m', 9_900_000],
    ['10m0s', 600_000],
    ['600s', 600_000],
    ['0', 0],
    ['-1m', -60_000],
    ['+5s', 5_000],
    ['1h1m1.5s', 3_661_500],
    ['.5s', 500],
    ['1.s', 1_000],
    ['1500us', 1.5],
    ['1500µs', 1.5],
    ['1500μs', 1.5],
    ['2000000ns', 2],
    ['87600h', 315_360_000_000],
    ['0s', 0],
  ])('parses %s as %d ms', (input, ms) => {
    expect(parseGoDuration(input)).toBe(ms);
  });

  it('keeps nanosecond precision in the exact form', () => {
    expect(parseGoDurationNanos('1.000000001s')).toBe(1_000_000_001n);
    expect(parseGoDurationNanos('9223372036854775807ns')).toBe(9_223_372_036_854_775_807n);
  });

  it.each([
    ['an empty string', '', 'time: invalid duration ""'],
    ['a bare sign', '-', 'time: invalid duration "-"'],
    ['a number without unit', '10', 'time: missing unit in duration "10"'],
    ['an unknown unit', '1d', 'time: unknown unit "d" in duration "1d"'],
    ['a unit without digits', '.s', 'time: invalid duration ".s"'],
    ['spaces between parts', '1h 30m', 'time: unknown unit "h " in duration "1h 30m"'],
    ['an overflowing value', '9223372036854775808ns', 'time: invalid duration "9223372036854775808ns"'],
    ['letters first', 'm5', 'time: invalid duration "m5"'],
  ])('rejects %s with Go’s message', (_name, input, message) => {
    expect(() => parseGoDuration(input)).toThrow(DurationError);
    expect(() => parseGoDuration(input)).toThrow(message);
  });
});

describe('formatDuration prints Go’s Duration.String()', () => {
  it.each([
    [0, '0s'],
    [300, '300ms'],
    [1_500, '1.5s'],
    [600_000, '10m0s'],
    [3_600_000, '1h0m0s'],
    [9_900_000, '2h45m0s'],
    [90_000, '1m30s'],
    [-60_000, '-1m0s'],
    [0.0015, '1.5µs'],
    [0.000001, '1ns'],
    [315_360_000_000, '87600h0m0s'],
  ])('formats %d ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('round-trips through the parser', () => {
    for (const s of ['10m0s', '2h45m0s', '1.5s', '300ms', '1h1m1.5s'])
      expect(formatDuration(parseGoDuration(s))).toBe(s);
  });

  it.each([
    [600_000, '10m'],
    [3_600_000, '1h'],
    [5_400_000, '1h30m'],
    [3_605_000, '1h0m5s'],
    [1_500, '1.5s'],
    [300, '300ms'],
    [0, '0s'],
  ])('the short form of %d ms is %s', (ms, text) => {
    expect(formatDurationShort(ms)).toBe(text);
  });
});

describe('parseGoDuration edge cases, as time.ParseDuration scans units', () => {
  it.each([
    ['a sign in the middle becomes part of the unit', '1h-1m', 'time: unknown unit "h-" in duration "1h-1m"'],
    ['an exponent is not a number in a duration', '1e3s', 'time: unknown unit "e" in duration "1e3s"'],
    ['a space before the unit is part of the unit', '5 s', 'time: unknown unit " s" in duration "5 s"'],
    ['a second decimal point ends the number without a unit', '1.5.5s', 'time: missing unit in duration "1.5.5s"'],
    ['two signs', '+-1s', 'time: invalid duration "+-1s"'],
    ['a doubled unit', '1hh', 'time: unknown unit "hh" in duration "1hh"'],
    ['one nanosecond past the largest duration', '2562047h47m16.854775808s', 'time: invalid duration "2562047h47m16.854775808s"'],
  ])('rejects %s (%s)', (_name, input, message) => {
    expect(() => parseGoDuration(input)).toThrow(message);
  });

  it('truncates a fraction of a nanosecond and accepts the largest duration exactly', () => {
    expect(parseGoDurationNanos('0.5ns')).toBe(0n);
    expect(parseGoDurationNanos('-0s')).toBe(0n);
    expect(parseGoDurationNanos('2562047h47m16.854775807s')).toBe(9_223_372_036_854_775_807n);
  });
});
