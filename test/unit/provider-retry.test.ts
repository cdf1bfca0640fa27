import { describe, expect, it } from 'vitest';
import { requestedWaitMs } from '../../server/assistant/provider-retry.ts';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const wait = (headers: Record<string, string>) => requestedWaitMs(new Headers(headers), NOW);

describe("a provider's requested wait", () => {
  it('reads Retry-After as seconds or as an HTTP date, and retry-after-ms before both', () => {
    expect(wait({ 'retry-after': '3600' })).toBe(3_600_000);
    expect(wait({ 'retry-after': '1.5' })).toBe(1500);
    expect(wait({ 'retry-after': 'Mon, 30 Nov 2026 13:00:00 GMT' })).toBe(3_600_000);
    expect(wait({ 'retry-after-ms': '250', 'retry-after': '3600' })).toBe(250);
  });

  it('reads a date in the past as no wait, and nothing readable as no request', () => {
    expect(wait({ 'retry-after': 'Mon, 30 Nov 2026 11:00:00 GMT' })).toBe(0);
    expect(wait({ 'retry-after': 'soon' })).toBeUndefined();
    expect(wait({ 'retry-after': '-5' })).toBeUndefined();
    expect(wait({ 'retry-after-ms': 'later' })).toBeUndefined();
    expect(wait({})).toBeUndefined();
    expect(requestedWaitMs(undefined)).toBeUndefined();
  });
});
