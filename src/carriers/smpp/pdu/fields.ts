/** Field kinds of SMPP 3.4 mandatory parameters; bodies.ts lists each command's fields with them. */
import { MalformedPdu, PduEncodeError, type Cursor, type Writer } from './octets.js';
import { CommandStatus } from './status.js';

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

/** One destination of a submit_multi: an SME address (dest_flag 1) or a distribution list (2). */
export type DestAddress =
  | { readonly kind: 'sme'; readonly ton: number; readonly npi: number; readonly addr: string }
  | { readonly kind: 'list'; readonly name: string };

const smeAddress = cstring(21);
const dlName = cstring(21);

/** number_of_dests followed by that many dest_address entries (§4.5.1.1). */
export const destAddresses: Field<DestAddress[]> = {
  initial: [],
  read: (c, name) => {
    const count = c.u8('number_of_dests');
    const dests: DestAddress[] = [];
    for (let i = 0; i < count; i++) {
      const flag = c.u8('dest_flag');
      if (flag === 1) {
        const ton = c.u8('dest_addr_ton');
        const npi = c.u8('dest_addr_npi');
        dests.push({ kind: 'sme', ton, npi, addr: smeAddress.read(c, name) });
      } else if (flag === 2) {
        dests.push({ kind: 'list', name: dlName.read(c, name) });
      } else {
        throw new MalformedPdu(
          `${name}: dest_flag ${flag} is neither 1 nor 2`,
          CommandStatus.ESME_RINVDESTFLAG,
        );
      }
    }
    return dests;
  },
  write: (w, dests, name) => {
    if (dests.length > 254) throw new PduEncodeError(name, `${dests.length} destinations; at most 254`);
    w.u8(dests.length, 'number_of_dests');
    for (const d of dests) {
      if (d.kind === 'sme') {
        w.u8(1, 'dest_flag');
        w.u8(d.ton, 'dest_addr_ton');
        w.u8(d.npi, 'dest_addr_npi');
        smeAddress.write(w, d.addr, name);
      } else {
        w.u8(2, 'dest_flag');
        dlName.write(w, d.name, name);
      }
    }
  },
};

/** A destination submit_multi could not take, with why (§4.5.2). */
export interface UnsuccessSme {
  readonly ton: number;
  readonly npi: number;
  readonly addr: string;
  readonly errorStatusCode: number;
}

/** no_unsuccess followed by that many unsuccess_sme entries. */
export const unsuccessSmes: Field<UnsuccessSme[]> = {
  initial: [],
  read: (c, name) => {
    const count = c.u8('no_unsuccess');
    const smes: UnsuccessSme[] = [];
    for (let i = 0; i < count; i++) {
      const ton = c.u8('dest_addr_ton');
      const npi = c.u8('dest_addr_npi');
      const addr = smeAddress.read(c, name);
      const high = c.u16('error_status_code');
      const low = c.u16('error_status_code');
      smes.push({ ton, npi, addr, errorStatusCode: high * 0x10000 + low });
    }
    return smes;
  },
  write: (w, smes, name) => {
    if (smes.length > 255) throw new PduEncodeError(name, `${smes.length} entries; at most 255`);
    w.u8(smes.length, 'no_unsuccess');
    for (const s of smes) {
      w.u8(s.ton, 'dest_addr_ton');
      w.u8(s.npi, 'dest_addr_npi');
      smeAddress.write(w, s.addr, name);
      w.u16(Math.floor(s.errorStatusCode / 0x10000), 'error_status_code');
      w.u16(s.errorStatusCode & 0xffff, 'error_status_code');
    }
  },
};
