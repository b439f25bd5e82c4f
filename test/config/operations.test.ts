import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';

/** The variables of decisions §12 and §15, and how a bad value is refused. */
describe('operations settings', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      metricsToken: null,
      requestTimeoutMs: 30_000,
      maxBodyBytes: 1_048_576,
      maxConnections: 10_000,
      retentionMs: null,
      engineHeapMb: 128,
      sqliteCacheMb: 8,
    });
  });

  it('reads each variable', () => {
    const config = loadConfig({
      SMSGW_METRICS_TOKEN: 'scrape',
      SMSGW_REQUEST_TIMEOUT_MS: '5000',
      SMSGW_MAX_BODY_BYTES: '65536',
      SMSGW_MAX_CONNECTIONS: '100',
      SMSGW_RETENTION: '90d',
      SMSGW_ENGINE_HEAP_MB: '512',
      SMSGW_SQLITE_CACHE_MB: '64',
    });
    expect(config).toMatchObject({
      metricsToken: 'scrape',
      requestTimeoutMs: 5000,
      maxBodyBytes: 65_536,
      maxConnections: 100,
      retentionMs: 90 * 86_400_000,
      engineHeapMb: 512,
      sqliteCacheMb: 64,
    });
    expect(loadConfig({ SMSGW_RETENTION: 'OFF' }).retentionMs).toBeNull();
  });

  it('leaves room for SMSGW_MAX_RECIPIENTS numbers when the body limit is not set', () => {
    expect(loadConfig({ SMSGW_MAX_RECIPIENTS: '100000' }).maxBodyBytes).toBeGreaterThanOrEqual(100_000 * 40);
    expect(loadConfig({ SMSGW_MAX_RECIPIENTS: '100000', SMSGW_MAX_BODY_BYTES: '2048' }).maxBodyBytes).toBe(
      2048,
    );
  });

  it.each([
    ['SMSGW_RETENTION', 'forever'],
    ['SMSGW_RETENTION', '0d'],
    ['SMSGW_REQUEST_TIMEOUT_MS', '10'],
    ['SMSGW_REQUEST_TIMEOUT_MS', '5s'],
    ['SMSGW_MAX_BODY_BYTES', '12'],
    ['SMSGW_MAX_CONNECTIONS', '0'],
    ['SMSGW_ENGINE_HEAP_MB', '16'],
    ['SMSGW_SQLITE_CACHE_MB', '0'],
    ['SMSGW_SQLITE_CACHE_MB', '8MB'],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });
});
