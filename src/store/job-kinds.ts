/** Kinds of outbox work. Each has one handler; see src/app/engine.ts. */
export const JOB = {
  /** A message is due: its pending recipients become submitted and get send work. */
  release: 'release',
  /** A message's expires_at passed: recipients not yet sent expire. */
  expire: 'expire',
  /** One recipient to submit to the carrier. */
  send: 'send',
} as const;
export type JobKind = (typeof JOB)[keyof typeof JOB];
