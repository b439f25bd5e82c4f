/**
 * The PDU types, derived from the field table in bodies.ts so the types and the wire layout
 * cannot disagree: a union discriminated on `command`, fields in camelCase.
 */
import { BODIES, type BodySpec } from './bodies.js';
import type { CommandName } from './commands.js';
import type { Field } from './fields.js';
import type { Tlv } from './tlv.js';

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type BodyOf<S extends BodySpec> = {
  [E in S[number] as E[0]]: E[1] extends Field<infer T> ? T : never;
};

export interface PduHeader {
  sequenceNumber: number;
  /** 0 on requests; on responses an SMPP 3.4 status (status.ts) or a vendor code. */
  commandStatus: number;
  /** Optional parameters in wire order; left out when a PDU carries none. */
  tlvs?: Tlv[];
}

export type Pdu = {
  [N in CommandName]: Simplify<{ command: N } & PduHeader & BodyOf<(typeof BODIES)[N]>>;
}[CommandName];

export type PduOf<N extends CommandName> = Extract<Pdu, { command: N }>;

export type PduFields<N extends CommandName> = Omit<PduOf<N>, 'command'>;

/** A request PDU before a link numbers it (a full PDU will do too: its number is ignored). */
export type Unnumbered = Pdu extends infer P ? (P extends Pdu ? Omit<P, 'sequenceNumber'> : never) : never;

/**
 * A PDU with every field the caller leaves out at its initial value (empty strings, zeros,
 * interface_version 0x34), so a submit_sm can be written with only what matters.
 */
export function makePdu<N extends CommandName>(
  command: N,
  fields: Partial<PduFields<N>> & { sequenceNumber: number },
): PduOf<N> {
  const pdu: Record<string, unknown> = { command, commandStatus: 0 };
  for (const [name, field] of BODIES[command] as BodySpec) pdu[name] = field.initial;
  const given = fields as Record<string, unknown>;
  for (const name in given) if (given[name] !== undefined) pdu[name] = given[name];
  return pdu as PduOf<N>;
}
