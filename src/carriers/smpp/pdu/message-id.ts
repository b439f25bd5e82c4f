/**
 * SMSCs report the id of a receipt in a different form from the submit_sm_resp: hex in one,
 * decimal in the other, upper or lower case, zero-padded or not. A receipt we cannot match
 * leaves a recipient `sent` until SMSGW_RECEIPT_TIMEOUT turns it `unknown`.
 */

function normalise(id: string): string {
  return id
    .trim()
    .toLowerCase()
    .replace(/^0+(?=.)/, '');
}

/** True when `dec` is the decimal form of the hex number `hex` (both normalised). */
function isDecimalOfHex(dec: string, hex: string): boolean {
  if (!/^\d+$/.test(dec) || !/^[0-9a-f]{1,64}$/.test(hex)) return false;
  return BigInt('0x' + hex).toString(10) === dec;
}

/**
 * Equal ignoring case, surrounding blanks and leading zeros, or one is the decimal form of
 * the other read as hex. The cross-form rule is ambiguous by nature ("10" hex is "16"
 * decimal), so compare only ids of the same carrier link, never across links. Empty ids
 * match nothing: an SMSC that returns none must not have every receipt land on one message.
 */
export function messageIdsMatch(a: string, b: string): boolean {
  const x = normalise(a);
  const y = normalise(b);
  if (x === '' || y === '') return false;
  return x === y || isDecimalOfHex(x, y) || isDecimalOfHex(y, x);
}
