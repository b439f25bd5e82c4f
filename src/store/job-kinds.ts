/** Kinds of outbox work (message-level jobs); see src/store/message-jobs.ts. */
export const JOB = {
  /** A message is due: its pending recipients become submitted, which makes them send work. */
  release: 'release',
  /** A message's expires_at passed: recipients not yet sent expire. */
  expire: 'expire',
} as const;
export type JobKind = (typeof JOB)[keyof typeof JOB];
