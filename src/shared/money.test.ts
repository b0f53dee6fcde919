import { describe, expect, it } from 'vitest';
import { assertMoney, commissionOf, isMoney, percentOf } from './money.js';

describe('commissionOf (half up)', () => {
  it('rounds exact halves up and the rest to the nearest', () => {
    expect(commissionOf(5, 1000)).toBe(1); // 0.5 -> 1
    expect(commissionOf(15, 1000)).toBe(2); // 1.5 -> 2
    expect(commissionOf(25, 1000)).toBe(3); // 2.5 -> 3
    expect(commissionOf(14, 1000)).toBe(1); // 1.4 -> 1
    expect(commissionOf(16, 1000)).toBe(2); // 1.6 -> 2
    expect(commissionOf(1, 4999)).toBe(0); // 0.4999 -> 0
    expect(commissionOf(1, 5000)).toBe(1); // 0.5 -> 1
    expect(commissionOf(1500, 1250)).toBe(188); // 187.5 -> 188
  });
  it('handles 0 and 100 %', () => {
    expect(commissionOf(0, 1500)).toBe(0);
    expect(commissionOf(12345, 0)).toBe(0);
    expect(commissionOf(12345, 10_000)).toBe(12345);
  });
  it('stays exact on amounts whose product with the rate exceeds 2^53', () => {
    const big = Number.MAX_SAFE_INTEGER; // 9007199254740991
    expect(commissionOf(big, 10_000)).toBe(big);
    // 9007199254740991 * 1 / 10000 = 900719925474.0991 -> 900719925474
    expect(commissionOf(big, 1)).toBe(900719925474);
    // * 5000 / 10000 = 4503599627370495.5 -> ...496
    expect(commissionOf(big, 5000)).toBe(4503599627370496);
  });
  it('refuses fractions, negatives, unsafe integers and rates above 100 %', () => {
    expect(() => commissionOf(1.5, 100)).toThrow(/amount/);
    expect(() => commissionOf(-1, 100)).toThrow(/amount/);
    expect(() => commissionOf(2 ** 53, 100)).toThrow(/amount/);
    expect(() => commissionOf(100, 10_001)).toThrow(/rate/);
    expect(() => commissionOf(100, 12.5)).toThrow(/rate/);
  });
});

describe('percentOf and the amount checks', () => {
  it('takes integer percentages with the same rounding', () => {
    expect(percentOf(1000, 15)).toBe(150);
    expect(percentOf(5, 10)).toBe(1); // 0.5 -> 1
    expect(percentOf(3, 50)).toBe(2); // 1.5 -> 2
    expect(() => percentOf(100, 101)).toThrow(/percentage/);
  });
  it('accepts only safe non-negative integers as money', () => {
    expect(isMoney(0)).toBe(true);
    expect(isMoney(Number.MAX_SAFE_INTEGER)).toBe(true);
    for (const bad of [-1, 0.1, NaN, Infinity, '10', null, 2 ** 53]) expect(isMoney(bad)).toBe(false);
    expect(() => assertMoney(-5, 'total')).toThrow(/total/);
  });
});
