import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export interface Migration {
  readonly version: number;
  readonly name: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations shape the schema the types describe
  up(db: Kysely<any>, dialect: Dialect): Promise<void>;
}
