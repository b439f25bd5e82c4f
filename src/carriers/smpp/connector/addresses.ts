/** Numbers between the port's '+' E.164 / alphanumeric form and SMPP's TON/NPI + digits. */
import { normaliseMsisdn } from '../../../domain/msisdn.js';

/** type_of_number and numbering_plan_indicator values (SMPP 3.4 §5.2.5, §5.2.6) we use. */
export const Ton = { Unknown: 0, International: 1, National: 2, Alphanumeric: 5 } as const;
export const Npi = { Unknown: 0, Isdn: 1 } as const;

export interface SmppAddress {
  readonly ton: number;
  readonly npi: number;
  readonly addr: string;
}

export interface AddressOverrides {
  readonly ton?: number;
  readonly npi?: number;
}

/** Sender: '+' msisdn → international/ISDN; an alphanumeric id → alphanumeric/unknown. */
export function sourceAddress(from: string, overrides: AddressOverrides): SmppAddress {
  const international = /^\+\d+$/.test(from);
  const digitsOnly = /^\d+$/.test(from);
  const ton = international ? Ton.International : digitsOnly ? Ton.Unknown : Ton.Alphanumeric;
  const npi = international || digitsOnly ? Npi.Isdn : Npi.Unknown;
  return { ton: overrides.ton ?? ton, npi: overrides.npi ?? npi, addr: from.replace(/^\+/, '') };
}

export function destinationAddress(to: string, overrides: AddressOverrides): SmppAddress {
  return {
    ton: overrides.ton ?? Ton.International,
    npi: overrides.npi ?? Npi.Isdn,
    addr: to.replace(/^\+/, ''),
  };
}

/**
 * An address from the SMSC → '+' E.164 when it is international, or when its digits are a
 * possible E.164 number (many SMSCs send TON unknown with full international digits);
 * short codes, national numbers and alphanumeric ids stay as given.
 */
export function inboundAddress(addr: string, ton: number): string {
  const digits = addr.startsWith('+') ? addr.slice(1) : addr;
  if (!/^\d+$/.test(digits) || ton === Ton.Alphanumeric) return addr;
  if (ton === Ton.International) return `+${digits}`;
  if (ton === Ton.National) return addr;
  return normaliseMsisdn(`+${digits}`) ?? addr;
}
