/**
 * SMPP credentials of an account (decisions §21): the admin API's and the CLI's shared rules.
 * Passwords are kept as scrypt hashes; SMPP 3.4 caps a password at 8 characters, so a fast
 * hash would fall to a search of the whole space.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { AlreadyExistsError, illegal, NotFoundError } from '../domain/errors.js';
import { formatDateTime } from '../domain/dates.js';
import type { Store } from '../store/port.js';
import type { SmppUser } from '../store/smpp/index.js';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;
const KEY_LENGTH = 32;

/** SMPP 3.4 §5.2.1, §5.2.2: system_id is a 16-octet C string, password a 9-octet one. */
export const SYSTEM_ID_MAX = 15;
export const PASSWORD_MAX = 8;
export const MAX_BINDS_MAX = 64;
export const WINDOW_MAX = 1000;
export const SMPP_USER_DEFAULTS = { maxBinds: 4, window: 10 } as const;

export interface SmppUserInput {
  readonly systemId: string;
  readonly password: string;
  readonly maxBinds?: number | undefined;
  readonly window?: number | undefined;
}

/** Printable ASCII without space: what every SMPP client can type into a config file. */
const CREDENTIAL = /^[\x21-\x7e]+$/;

export async function hashSmppPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, KEY_LENGTH);
  return `scrypt$${salt.toString('hex')}$${hash.toString('hex')}`;
}

export async function verifySmppPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, saltHex, hashHex] = stored.split('$');
  if (scheme !== 'scrypt' || saltHex === undefined || hashHex === undefined) return false;
  const expected = Buffer.from(hashHex, 'hex');
  const actual = await scryptAsync(password, Buffer.from(saltHex, 'hex'), expected.length);
  return timingSafeEqual(actual, expected);
}

function checkInput(input: SmppUserInput): void {
  const { systemId, password, maxBinds, window } = input;
  if (systemId.length < 1 || systemId.length > SYSTEM_ID_MAX || !CREDENTIAL.test(systemId))
    throw illegal(
      'system_id',
      systemId,
      `system_id must be 1-${SYSTEM_ID_MAX} printable ASCII characters without spaces`,
    );
  if (password.length < 1 || password.length > PASSWORD_MAX || !CREDENTIAL.test(password))
    throw illegal(
      'password',
      password,
      `password must be 1-${PASSWORD_MAX} printable ASCII characters without spaces (SMPP 3.4)`,
    );
  if (maxBinds !== undefined && !(Number.isInteger(maxBinds) && maxBinds >= 1 && maxBinds <= MAX_BINDS_MAX))
    throw illegal('max_binds', maxBinds, `max_binds must be a whole number from 1 to ${MAX_BINDS_MAX}`);
  if (window !== undefined && !(Number.isInteger(window) && window >= 1 && window <= WINDOW_MAX))
    throw illegal('window', window, `window must be a whole number from 1 to ${WINDOW_MAX}`);
}

export function smppUserView(user: SmppUser) {
  return {
    accountID: user.accountId,
    system_id: user.systemId,
    max_binds: user.maxBinds,
    window: user.window,
    created_at: formatDateTime(user.createdAt),
    updated_at: formatDateTime(user.updatedAt),
  };
}

/** Creates or replaces the account's SMPP credentials; 409 when another account has the system_id. */
export async function setSmppUser(
  store: Store,
  accountId: number,
  input: SmppUserInput,
  now: number,
): Promise<SmppUser> {
  checkInput(input);
  const result = await store.smpp.users.set(
    {
      accountId,
      systemId: input.systemId,
      passwordHash: await hashSmppPassword(input.password),
      maxBinds: input.maxBinds ?? SMPP_USER_DEFAULTS.maxBinds,
      window: input.window ?? SMPP_USER_DEFAULTS.window,
    },
    now,
  );
  if (result.kind === 'taken')
    throw new AlreadyExistsError(`The system_id ${input.systemId} belongs to another account`);
  return result.user;
}

export async function removeSmppUser(store: Store, accountId: number): Promise<void> {
  if (!(await store.smpp.users.remove(accountId)))
    throw new NotFoundError('The account has no SMPP credentials');
}
