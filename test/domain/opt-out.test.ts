import { describe, expect, it } from 'vitest';
import { optOutAction } from '../../src/domain/opt-out.js';

describe('opt-out keywords (decisions §17)', () => {
  it('reads the six STOP and three START keywords, trimmed and in any case', () => {
    for (const body of [
      'STOP',
      'stop',
      ' Stop ',
      '\tSTOPALL\n',
      'Unsubscribe',
      'cancel',
      'END',
      'quit',
      '\u00A0stop\u00A0',
    ])
      expect(optOutAction(body), body).toBe('stop');
    for (const body of ['START', ' start', 'UnStop', 'yes', 'YES\r\n'])
      expect(optOutAction(body), body).toBe('start');
  });

  it('reads nothing else as a keyword', () => {
    for (const body of [
      '',
      '   ',
      'STOP!',
      'stop please',
      'S T O P',
      'stopp',
      'sto',
      'yes please',
      'NO',
      'UNSUBSCRIBEME',
    ])
      expect(optOutAction(body), body).toBe(null);
  });
});
