/** Field kinds of SMPP 3.4 mandatory parameters; bodies.ts lists each command's fields with them. */
import { PduEncodeError, type Cursor, type Writer } from './octets.js';

export interface Field<T> {
  /** The value a field takes when the caller leaves it out, and when a response has no body. */
  readonly initial: T;
  // Method syntax on purpose: it lets a Field<number> stand where a Field<unknown> is expected.
  read(c: Cursor, name: string): T;
  write(w: Writer, value: T, name: string): void;
}

export const u8: Field<number> = {
  initial: 0,
  read: (c, name) => c.u8(name),
  write: (w, v, name) => w.u8(v, name),
};

export function withInitial<T>(field: Field<T>, initial: T): Field<T> {
  return { ...field, initial };
}

/** C-octet string of at most `max` octets including the NUL (§5.2 gives each field's size). */
export function cstring(max: number): Field<string> {
  return {
    initial: '',
    read: (c, name) => c.cstring(name),
    write: (w, v, name) => w.cstring(v, max, name),
  };
}

/** sm_length followed by short_message; 3.4 allows 0..254 octets. */
export const shortMessage: Field<Buffer> = {
  initial: Buffer.alloc(0),
  read: (c, name) => c.bytes(c.u8('sm_length'), name),
  write: (w, v, name) => {
    if (v.length > 254) throw new PduEncodeError(name, `${v.length} octets; use message_payload above 254`);
    w.u8(v.length, 'sm_length');
    w.bytes(v);
  },
};
