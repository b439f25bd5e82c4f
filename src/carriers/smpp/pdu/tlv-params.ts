/**
 * The optional parameters this gateway reads or writes, with their tags (SMPP 3.4 §5.3.2)
 * and value layouts. `getTlv` never throws: a value of the wrong size reads as absent, since
 * one odd TLV from an SMSC should not cost us the receipt it rides on.
 */
import { findTlv, type Tlv } from './tlv.js';

interface ValueCodec<T> {
  decode(b: Buffer): T | undefined;
  encode(v: T): Buffer;
}

const uint8: ValueCodec<number> = {
  decode: (b) => (b.length === 1 ? b.readUInt8(0) : undefined),
  encode: (v) => {
    const b = Buffer.alloc(1);
    b.writeUInt8(v); // throws on 256 where Buffer.of would wrap to 0
    return b;
  },
};

const uint16: ValueCodec<number> = {
  decode: (b) => (b.length === 2 ? b.readUInt16BE(0) : undefined),
  encode: (v) => {
    const b = Buffer.alloc(2);
    b.writeUInt16BE(v);
    return b;
  },
};

/** C-octet string; some SMSCs leave out the NUL, so it is optional on read. */
const cstr: ValueCodec<string> = {
  decode: (b) => {
    const end = b.indexOf(0);
    return b.toString('latin1', 0, end < 0 ? b.length : end);
  },
  encode: (v) => Buffer.from(v + '\0', 'latin1'),
};

const octets: ValueCodec<Buffer> = {
  decode: (b) => b,
  encode: (v) => v,
};

export interface NetworkErrorCode {
  /** 1 ANSI-136, 2 IS-95, 3 GSM, 4 ANSI-41 (§5.3.2.31). */
  networkType: number;
  errorCode: number;
}

const networkError: ValueCodec<NetworkErrorCode> = {
  decode: (b) => (b.length === 3 ? { networkType: b.readUInt8(0), errorCode: b.readUInt16BE(1) } : undefined),
  encode: (v) => {
    const b = Buffer.alloc(3);
    b.writeUInt8(v.networkType, 0);
    b.writeUInt16BE(v.errorCode, 1);
    return b;
  },
};

export const TlvParam = {
  additional_status_info_text: { tag: 0x001d, codec: cstr },
  receipted_message_id: { tag: 0x001e, codec: cstr },
  user_message_reference: { tag: 0x0204, codec: uint16 },
  source_port: { tag: 0x020a, codec: uint16 },
  destination_port: { tag: 0x020b, codec: uint16 },
  sar_msg_ref_num: { tag: 0x020c, codec: uint16 },
  sar_total_segments: { tag: 0x020e, codec: uint8 },
  sar_segment_seqnum: { tag: 0x020f, codec: uint8 },
  sc_interface_version: { tag: 0x0210, codec: uint8 },
  network_error_code: { tag: 0x0423, codec: networkError },
  message_payload: { tag: 0x0424, codec: octets },
  delivery_failure_reason: { tag: 0x0425, codec: uint8 },
  message_state: { tag: 0x0427, codec: uint8 },
} as const;

export type TlvParamName = keyof typeof TlvParam;
export type TlvValue<N extends TlvParamName> =
  (typeof TlvParam)[N]['codec'] extends ValueCodec<infer T> ? T : never;

export function getTlv<N extends TlvParamName>(
  tlvs: readonly Tlv[] | undefined,
  name: N,
): TlvValue<N> | undefined {
  const raw = findTlv(tlvs, TlvParam[name].tag);
  if (raw === undefined) return undefined;
  return (TlvParam[name].codec as ValueCodec<TlvValue<N>>).decode(raw);
}

/** Builds a TLV; out-of-range numbers throw RangeError, as Buffer writes do. */
export function tlv<N extends TlvParamName>(name: N, value: TlvValue<N>): Tlv {
  return { tag: TlvParam[name].tag, value: (TlvParam[name].codec as ValueCodec<TlvValue<N>>).encode(value) };
}
