/**
 * Opt-out keywords (decisions §17): the CTIA list that US carriers require to be honoured, which
 * UK and EU senders use too. An inbound body is a keyword only when it is nothing else, once
 * trimmed and compared case-insensitively: "Stop" is one, "stop sending me these" is not (a
 * person writing a sentence may mean something else, and carriers test the bare word).
 */
export const STOP_KEYWORDS = ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT'] as const;
export const START_KEYWORDS = ['START', 'UNSTOP', 'YES'] as const;

export type OptOutAction = 'stop' | 'start';

const ACTIONS: ReadonlyMap<string, OptOutAction> = new Map<string, OptOutAction>([
  ...STOP_KEYWORDS.map((k) => [k, 'stop'] as const),
  ...START_KEYWORDS.map((k) => [k, 'start'] as const),
]);

/** What an inbound body asks for: `stop` suppresses its sender, `start` lifts that; null: neither. */
export function optOutAction(body: string): OptOutAction | null {
  const word = body.trim();
  // The longest keyword has 11 letters: anything longer is a sentence, not a keyword.
  if (word.length === 0 || word.length > 11) return null;
  return ACTIONS.get(word.toUpperCase()) ?? null;
}
