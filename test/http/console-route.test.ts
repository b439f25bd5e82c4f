import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.js';

/** A server without a built console (no npm run build) says so in the API's error body. */
describe('the console route before a build', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite');
  });
  afterAll(async () => t.close());

  it('answers 404 with what to do, on the page and on any asset', async () => {
    for (const path of ['/console', '/console/', '/console/assets/main.js']) {
      const r = await call(t, 'GET', path, undefined, null);
      expect(r.status, path).toBe(404);
      expect(r.body).toEqual({
        status_code: 404,
        status_msg: 'Not Found',
        info: 'The web console is not built; run npm run build',
      });
    }
  });
});
