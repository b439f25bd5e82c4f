import type { ReceiptState } from '../port.js';

/** decisions §8: the outcome by the recipient's last digit. null = rejected at submit. */
export const SIMULATED_OUTCOMES: Readonly<Record<string, ReceiptState | null>> = {
  '0': 'delivered',
  '1': 'delivered',
  '2': 'delivered',
  '3': 'delivered',
  '4': 'delivered',
  '5': 'failed',
  '6': null,
  '7': 'expired',
  '8': 'deleted',
  '9': 'unknown',
};

export function simulatedOutcome(msisdn: string): ReceiptState | null {
  const digit = msisdn.slice(-1);
  // Every stored msisdn ends in a digit; the fallback only guards the table lookup.
  return Object.hasOwn(SIMULATED_OUTCOMES, digit) ? SIMULATED_OUTCOMES[digit]! : 'delivered';
}
