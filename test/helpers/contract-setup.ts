import { afterEach } from 'vitest';
import { takeViolations } from './contract.js';

// Fails the test during which a response did not match the OpenAPI document (test/helpers/contract.ts).
afterEach(() => {
  const found = takeViolations();
  if (found.length > 0) {
    throw new Error(`Responses that do not match the OpenAPI document:\n${found.join('\n')}`);
  }
});
